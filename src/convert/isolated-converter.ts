// A converter class whose code runs elsewhere (a third-party converter: on a worker thread, see
// src/plugins/plugin-thread.ts): the conversion is handed over whole, into a folder the caller made and owns. The runner
// writes only there and reports the finished file; the caller commits it (rename) or removes the folder.
import type {ConvertSummary, InputSummary} from './summary.js'
import type {ConverterClass, ConverterOptions, Logger} from './types.js'

/** The static member of a class that runs elsewhere. */
export const RUNS_ELSEWHERE = Symbol.for('lmt.convert.runsElsewhere')

/** What a conversion elsewhere is given: plain data only (it crosses to another thread). */
export interface StagedConversion {
  inputs: readonly string[]
  format: string
  converterSource: string
  converterPath?: string
  options: Omit<ConverterOptions, 'logger' | 'spillDir'>
  /** Merge inputs by time (default) or concatenate them (`--no-sort`). */
  sort: boolean
  strict: boolean
  /** the folder the caller made; every file of the run is written in it */
  stagingDir: string
  /** the output the finished file will become (named in the summary) */
  output: string
}

export interface ElsewhereRunner {
  /** The run's summary, and its finished output: a file in the staging folder. */
  run(
    staged: StagedConversion,
    on: {
      logger: Logger
      progress(p: {bytesDone: number; bytesTotal: number; traces: number}): void
      inputDone(summary: InputSummary): void
    },
  ): Promise<{summary: ConvertSummary; finished: string}>
  /** Ends the run now, whatever it is doing (safe to call from a signal handler). */
  abandon(): void
}

/** The runner of a class that runs elsewhere, or undefined for one that runs here. */
export function runnerOf(cls: ConverterClass): ElsewhereRunner | undefined {
  return (cls as unknown as {[RUNS_ELSEWHERE]?: ElsewhereRunner})[RUNS_ELSEWHERE]
}
