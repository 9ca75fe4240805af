// Types of generate.mjs for the TypeScript benchmarks.
export declare function rng(seed: number): () => number
export declare function writeQwen(
  path: string,
  count: number,
  options?: {seed?: number; shuffle?: boolean},
): Promise<void>
export declare function writeQwenStream(path: string, count: number, seed?: number): Promise<void>
export declare function writePublisher(path: string, lines: number, seed?: number): Promise<void>
