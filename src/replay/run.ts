// `lmt replay`'s library side (docs/storage-replay.md §1.4): the request from the trace and the flags (steps 2–8),
// then the run (the record count for per-record lines, the replay through the driver, the summary document). The
// command parses, renders and owns the console and Ctrl-C.
import {statSync} from 'node:fs'
import {chosenDecoding} from '../formats/lct/fast/index.js'
import {countTrace} from '../formats/lct/reader.js'
import type {LctHeader} from '../formats/lct/types.js'
import {replayTrace, type RecordOutcome, type ReplayResult, type ReplayRunOptions} from './driver.js'
import type {ReplayLevel} from './level.js'
import {modelJson, summaryJson} from './outputs.js'
import {
  checkReplaySchema,
  chooseLevel,
  type KnownLevels,
  levelConfig,
  readReplayHeader,
  replaySpeed,
} from './request.js'

export interface ReplayRequestInput<F> {
  /** the trace, by path (a standard input is spooled to a file first: it is read more than once) */
  file: string
  maxFrameBytes: number
  pace: 'virtual' | 'realtime'
  speed?: string
  /** `--level`: must equal the header's */
  level?: string
  allowSchema1: boolean
  levels: KnownLevels
  /** the strict parse of the command line once the level, whose flags join the base ones, is known */
  parseWithLevel: (level: ReplayLevel) => Promise<F>
  warn: (code: string, key: string, message: string) => void
  /** what a level says while it builds its configuration */
  configWarning: (message: string) => void
}

export interface ReplayRequest<F> {
  file: string
  level: ReplayLevel
  config: unknown
  header: LctHeader
  pace: 'virtual' | 'realtime'
  speed: number
  maxFrameBytes: number
  /** the flags of the strict parse */
  flags: F
}

/** Steps 2–8: the speed, the header, the level, its schemas, the strict parse, the level's configuration. */
export async function replayRequest<F extends Record<string, unknown>>(
  i: ReplayRequestInput<F>,
): Promise<ReplayRequest<F>> {
  const speed = replaySpeed(i.pace, i.speed)
  const header = await readReplayHeader(i.file, i.maxFrameBytes)
  const level = chooseLevel(i.levels, i.level, header)
  checkReplaySchema(level, header, i.allowSchema1, i.warn)
  const flags = await i.parseWithLevel(level)
  const config = levelConfig(level, flags, header, i.configWarning)
  return {file: i.file, level, config, header, pace: i.pace, speed, maxFrameBytes: i.maxFrameBytes, flags}
}

/** What a run is told besides the request: the driver's observers and options that come from the command. */
export interface ReplayRunHooks extends Pick<
  ReplayRunOptions<unknown>,
  'exactLatency' | 'recordPath' | 'placeRecord' | 'warn' | 'signal'
> {
  /** each record's outcome; `total` is the trace's record count when `countRecords` asked for it, else 0 */
  onRecord?: (total: number) => ((o: RecordOutcome) => void) | undefined
  countRecords?: boolean
  /** after each batch: records so far, bytes of the trace read so far, the trace's size */
  onProgress?: (records: number, offset: number, traceBytes: number) => void
  /** just before the first record is replayed */
  onStart?: () => void
  /** the summary document (JSON text) is made too */
  summary?: boolean
}

export interface ReplayRun {
  result: ReplayResult
  /** the summary document, when asked for */
  summary?: string
}

/** The replay of a request (steps 9–11): the records through the level's target, the result and its summary. */
export async function runReplay(r: ReplayRequest<unknown>, h: ReplayRunHooks): Promise<ReplayRun> {
  const decoding = chosenDecoding()
  const traceBytes = statSync(r.file).size
  const total = h.countRecords
    ? (await countTrace(r.file, {maxFrameBytes: r.maxFrameBytes, decoding})).totalRecords
    : 0
  h.onStart?.()
  const onProgress = h.onProgress
  const result = await replayTrace({
    ...r,
    ...h,
    decoding,
    onRecord: h.onRecord?.(total),
    onProgress: onProgress && ((records, offset) => onProgress(records, offset, traceBytes)),
  })
  if (!h.summary) return {result}
  return {
    result,
    summary: summaryJson(result, modelJson(result, r.pace, r.speed, result.stats.histogramMode)),
  }
}
