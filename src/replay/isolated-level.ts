// A replay level whose code runs elsewhere (a third-party level: on lmt's plugin thread, see src/plugins/plugin-thread.ts):
// the replay is handed over whole. Its --record file is written into a folder made here; it becomes a temporary
// file beside the record path, for the caller to place, only once the level's side reports success, and the folder
// is removed whatever happened.
import {mkdtempSync, renameSync, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {lmtError, LmtError} from '../errors.js'
import {tempPathBeside} from '../util/atomic-write.js'
import {removeStaleEntries} from '../util/stale-entries.js'
import type {LctHeader} from '../formats/lct/types.js'
import type {ReplayLevel} from './level.js'
import type {ReplayStats} from './stats.js'
import type {Replacement} from '../util/replace-set.js'

/** The static member of a level that runs elsewhere. */
export const REPLAYS_ELSEWHERE = Symbol.for('lmt.replay.replaysElsewhere')

/** What a replay elsewhere is given: plain data only (it crosses to another thread). */
export interface StagedReplay {
  file: string
  config: unknown
  header: LctHeader
  pace: 'virtual' | 'realtime'
  speed: number
  maxFrameBytes?: number
  exactLatency?: boolean
  /** where the --record file is written, inside the staging folder */
  recordPath?: string
}

/** A replay's result as plain data (the driver's ReplayResult): the statistics as their summary. */
export interface PlainReplayResult {
  stats: {summary: ReturnType<ReplayStats['summary']>; histogramMode: boolean}
  /** the finished --record file, in the staging folder */
  record?: string
  [field: string]: unknown
}

/** One record's outcome (the driver's RecordOutcome), as it crosses. */
type Outcome = never

/** What {@link replayElsewhere} takes of the driver's options. */
export interface ElsewhereOptions extends Omit<StagedReplay, 'recordPath'> {
  /** where the finished --record file goes */
  recordPath?: string
  placeRecord?: (done: Replacement) => void
  warn: (code: string, key: string, message: string) => void
  onRecord?: (o: Outcome) => void
  onProgress?: (records: number, offset: number) => void
  signal?: AbortSignal
}

export interface LevelRunner {
  run(
    staged: StagedReplay,
    on: {
      warn(code: string, key: string, message: string): void
      records(outcomes: Outcome[]): void
      progress(records: number, offset: number): void
    },
  ): Promise<PlainReplayResult>
  /** Ends the replay now, whatever it is doing (safe to call from a signal handler). */
  abandon(): void
}

/** The runner of a level that replays elsewhere, or undefined for one that runs here. */
export function levelRunnerOf(level: ReplayLevel<unknown, unknown>): LevelRunner | undefined {
  return (level as unknown as {[REPLAYS_ELSEWHERE]?: LevelRunner})[REPLAYS_ELSEWHERE]
}

/** The reason a replay aborted by `signal` ends with. */
export function abortError(signal: AbortSignal): LmtError {
  return signal.reason instanceof LmtError ? signal.reason : lmtError('CLI_INTERRUPTED', 'an abort signal')
}

/** A plugin level's staging folder beside its record: `.<record>.lmt-replay-<pid>-<random>`. */
const STAGING = /^\..+\.lmt-replay-(\d+)-[^.]+$/

/** The driver's replayTrace for a level that replays elsewhere: its result, with statistics that read as a summary. */
export async function replayElsewhere(o: ElsewhereOptions, runner: LevelRunner): Promise<PlainReplayResult> {
  if (o.signal?.aborted) throw abortError(o.signal)
  let staging: string | undefined
  const removeStaging = (): void => {
    if (staging) rmSync(staging, {recursive: true, force: true})
    staging = undefined
  }
  // synchronous, in the abort event: the level's side ends and nothing it wrote is left
  const onAbort = (): void => {
    runner.abandon()
    removeStaging()
  }
  o.signal?.addEventListener('abort', onAbort, {once: true})
  try {
    if (o.recordPath) {
      // what a killed replay left beside the record: its staging folder, named by its process id
      removeStaleEntries(dirname(o.recordPath), {dirs: STAGING})
      staging = mkdtempSync(
        join(dirname(o.recordPath), `.${basename(o.recordPath)}.lmt-replay-${process.pid}-`),
      )
    }
    const plain = await runner.run(
      {
        file: o.file,
        config: o.config,
        header: o.header,
        pace: o.pace,
        speed: o.speed,
        maxFrameBytes: o.maxFrameBytes,
        exactLatency: o.exactLatency,
        recordPath: staging === undefined ? undefined : join(staging, 'record.lct'),
      },
      {
        warn: o.warn,
        records: (outcomes) => {
          for (const outcome of outcomes) o.onRecord?.(outcome)
        },
        progress: (records, offset) => o.onProgress?.(records, offset),
      },
    )
    if (o.signal?.aborted) throw abortError(o.signal)
    const {stats, record, ...rest} = plain
    const result = {
      ...rest,
      stats: {summary: () => stats.summary, histogramMode: stats.histogramMode},
    } as unknown as PlainReplayResult
    if (o.recordPath && record !== undefined) {
      if (dirname(record) !== staging) throw new Error(`the finished record ${record} is not staged`)
      const tmp = tempPathBeside(o.recordPath)
      renameSync(record, tmp)
      try {
        if (o.placeRecord) o.placeRecord({tmp, path: o.recordPath})
        else renameSync(tmp, o.recordPath)
      } catch (err) {
        rmSync(tmp, {force: true})
        throw err
      }
    }
    return result
  } catch (err) {
    if (o.signal?.aborted) throw abortError(o.signal)
    throw err
  } finally {
    o.signal?.removeEventListener('abort', onAbort)
    removeStaging()
  }
}
