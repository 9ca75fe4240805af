// Types of gen-lookup-log.mjs for the TypeScript benchmarks.
export declare function writeLookupLog(
  dir: string,
  totalBytes: number,
  options?: {seed?: number; conversations?: number; fileBytes?: number},
): {lookups: number; bytes: number; files: number}
