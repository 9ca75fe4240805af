// What `lmt simulate` is asked to do (the command builds it from flags) and the progress it reports: below the
// run, the sweep and the row passes, which all read it.
import type {CapacityUnit} from './capacity.js'
import type {SimFlags} from './config.js'
import type {ConverterRegistration} from '../../convert/types.js'

/** The formats whose converters say `line` looks like their input (the command asks the registry). */
export type FormatRecogniser = (line: string) => Promise<string[]>

export type OracleChoice = 'none' | 'infinite' | 'belady' | 'all'

export interface SweepRequest {
  capacities?: number[]
  min?: number
  max?: number
  points: number
  /** the unit of the points: blocks, GiB (2^30 bytes), or a fraction of the working set */
  unit: CapacityUnit
  group?: string
  /** a tiered group: the storage whose capacity varies (default: what --capacity sets) */
  storage?: string
}

/** LMCache's lookup-hash log format: converted, its bytes per token are read from the log's layout */
export const LMCACHE_FORMAT = 'lmcache_lookup'

/** `-i INPUT -f FORMAT`: inputs converted on the fly to a temporary Get+Write trace, which is then simulated. */
export interface ConvertRequest {
  /** files, or folders of a format whose converter lists their files */
  inputs: string[]
  converter: ConverterRegistration
  /** the conversion's warnings */
  warn(message: string): void
}

export interface SimulateRequest {
  configPath?: string
  /** the trace is converted from these inputs (flags.trace is then its temporary file) */
  convert?: ConvertRequest
  /** aborted by an interrupt: a conversion stops and its temporary trace is removed at once */
  signal?: AbortSignal
  flags: SimFlags
  seed: bigint
  skipInvalid: boolean
  strictInstances: boolean
  plots: boolean
  oracle: OracleChoice
  sweep?: SweepRequest
  keepPointCsv: boolean
  /** check that the trace's rows do not contradict a given block size as too small (default true) */
  blockSizeCheck?: boolean
  /** sweeps: the one-pass stack method where it is certified exact (auto, the default), or never */
  stack?: 'auto' | 'off'
  /** the formats a line that is not a trace row looks like (asks the converters; for the error's hint) */
  recogniseFormats?: FormatRecogniser
  /** threads for the points of a sweep (this one included); default: the available cores */
  jobs?: number
  version: string
  onProgress?(p: SimulateProgress): void
}

/**
 * Progress of a run: bytes of the trace read (and rows so far), then, in a sweep, the points done (`points`) and,
 * when the Belady references are computed after the points (one thread), those done (`belady`).
 */
export interface SimulateProgress {
  bytes: number
  total: number
  rows: number
  points?: {done: number; total: number; belady?: boolean}
  /** a pass over rows held in memory (an oracle, a sweep's first passes): rows done of total */
  step?: {label: string; done: number; total: number}
}

/**
 * The progress callback of one pass over `total` rows held in memory (an oracle, a sweep's first passes) as a step
 * of the run's progress, or undefined when nobody shows progress.
 */
export function stepProgress(
  req: {onProgress?(p: SimulateProgress): void},
  label: string,
): ((done: number, total: number) => void) | undefined {
  const on = req.onProgress
  return on ? (done, total) => on({bytes: 0, total: 0, rows: 0, step: {label, done, total}}) : undefined
}
