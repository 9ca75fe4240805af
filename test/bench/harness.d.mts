// Types of harness.mjs for the TypeScript benchmarks.
export declare const ROOT: string
export declare const MEASURED_BY: string
export interface Timed {
  seconds: number
  /** user + system CPU time of the command */
  cpuSeconds: number
  rssMb: number
  stdout: string
  stderr: string
}
export interface LmtRun extends Timed {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  output: any
}
export declare function timeCommand(
  build: string,
  args: string[],
  options?: {env?: Record<string, string>},
): Timed
export declare function runLmt(args: string[], options?: {json?: boolean}): LmtRun
