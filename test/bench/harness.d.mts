// Types of harness.mjs for the TypeScript benchmarks.
export declare const ROOT: string
export interface LmtRun {
  seconds: number
  /** user + system CPU time of the process */
  cpuSeconds: number
  rssMb: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  output: any
  stderr: string
}
export declare function runLmt(args: string[], options?: {json?: boolean}): LmtRun
export declare function fmtRate(n: number, seconds: number): string
export declare function bestOf(runs: number, fn: () => unknown): Promise<number>
export declare function reportRecordRate(
  name: string,
  records: number,
  bytes: number,
  seconds: number,
  defaultTarget: number,
): void
