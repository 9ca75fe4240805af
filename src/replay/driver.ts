// The replay driver (docs/storage-replay.md §3): records in, handlers called at their trace time, events interleaved.
import {LctError} from '../errors.js'
import {type DecodedArgs, UnknownTagError, wireText} from '../formats/lct/codecs.js'
import {openTrace} from '../formats/lct/reader.js'
import {recordArgs} from '../formats/lct/record-args.js'
import type {Clock} from '../formats/lct/recorder.js'
import type {LctHeader, LctRecord, RecordDecoding} from '../formats/lct/types.js'
import type {LevelObservations, ReplayContext, ReplayEnv, ReplayLevel} from './level.js'
import {type PlaceFile, RecordFile} from './record-file.js'
import {abortError, levelRunnerOf, replayElsewhere} from './isolated-level.js'
import {EventScheduler} from './scheduler.js'
import {ReplayStats} from './stats.js'

export interface RecordOutcome {
  index: number
  qualname: string
  status: 'OK' | 'FAIL' | 'SKIP'
  latencyMs: number
}

export interface ReplayResult {
  recordsReplayed: number
  recordsSkipped: number
  recordsFailed: number
  skippedByReason: {decode_error: number; unknown_tag: number; no_handler: Record<string, number>}
  stats: ReplayStats
  headerLevel: string
  headerDigest: string
  replayConfigDigest: string
  wallDurationS: number
  traceTimeS: number
  nonfiniteTMono: number
  observations?: LevelObservations
  /**
   * The model's canonical state and its digest (§6.15), computed when first read: it serializes the whole model,
   * which a replay that does not look at it should not pay for.
   */
  snapshot?: {state: unknown; digest: string}
}

export interface ReplayRunOptions<C> {
  file: string
  level: ReplayLevel<unknown, C>
  config: C
  header: LctHeader
  pace: 'virtual' | 'realtime'
  speed: number
  maxFrameBytes?: number
  exactLatency?: boolean
  /** re-record the replayed calls into this file (written whole at the end, or not at all) */
  recordPath?: string
  /** the write call of the `recordPath` file (default fs.writeSync; injectable for tests) */
  recordWrite?: (fd: number, bytes: Buffer) => void
  /**
   * puts the finished `recordPath` file in place (default: renamed over its path at the end); a caller that replaces
   * all its outputs together takes the temporary file here, and removes it if it never gets there
   */
  placeRecord?: PlaceFile
  warn: (code: string, key: string, message: string) => void
  onRecord?: (o: RecordOutcome) => void
  /** after each batch of records: records read so far, byte offset of the end of the last one */
  onProgress?: (records: number, offset: number) => void
  /**
   * Ends the replay: it throws `signal.reason` when that is an LmtError, else INTERRUPTED, within about
   * {@link YIELD_MS} ms (the loop gives the event loop a turn that often, so that signal handlers run). The
   * `recordPath` temporary file is removed in the abort event itself, so a process exiting right after leaves none.
   */
  signal?: AbortSignal
  /** how the trace's records are decoded (default: the plain way) */
  decoding?: RecordDecoding
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const turn = () => new Promise((r) => setImmediate(r))

/** the longest the replay loop runs without giving the event loop (signal handlers, aborts) a turn */
export const YIELD_MS = 50
/** records between two looks at the clock (a look costs far less than a record's replay, but not nothing) */
const YIELD_CHECK_RECORDS = 256

type Skipped = ReplayResult['skippedByReason']

/** The `--record` file of a run, on the replay's clock (virtual: trace time; realtime: the wall clock). */
function openRecordFile<C>(o: ReplayRunOptions<C>, scheduler: EventScheduler): RecordFile | undefined {
  if (!o.recordPath) return undefined
  const clock: Clock =
    o.pace === 'virtual'
      ? {mono: () => scheduler.now(), wall: () => o.header.tWallStart + scheduler.now()}
      : {
          mono: () => performance.now() / 1000,
          wall: () => (performance.timeOrigin + performance.now()) / 1000,
        }
  return new RecordFile(o.recordPath, {
    level: o.level.name,
    clock,
    warn: (m) => o.warn('record', m, m),
    write: o.recordWrite,
  })
}

/** The decoded arguments of record `n`, or undefined when they do not decode: then it is skipped, counted, warned. */
function decodeOrSkip(
  r: LctRecord,
  n: number,
  skipped: Skipped,
  warn: ReplayRunOptions<unknown>['warn'],
): DecodedArgs | undefined {
  try {
    return recordArgs(r) // the record is ours alone: decoded in place
  } catch (err) {
    // whatever decoding throws (a plugin's codec too) skips the record; it never ends the replay
    const reason = err instanceof UnknownTagError ? 'unknown_tag' : 'decode_error'
    skipped[reason]++
    const why = err instanceof Error ? err.message : wireText(err)
    warn(
      reason,
      r.qualname,
      `cannot decode args of record ${n} at offset ${r.offset} (${r.qualname}): ${why}; skipping`,
    )
    return undefined
  }
}

/** Replays every record of `file` against a fresh target of the level. */
export async function replayTrace<C>(o: ReplayRunOptions<C>): Promise<ReplayResult> {
  const elsewhere = levelRunnerOf(o.level)
  if (elsewhere) return (await replayElsewhere(o, elsewhere)) as unknown as ReplayResult
  if (o.signal?.aborted) throw abortError(o.signal)
  const scheduler = new EventScheduler()
  const record = openRecordFile(o, scheduler)
  // synchronous, in the abort event: a caller exiting right after the abort leaves no temporary file
  const onAbort = () => record?.discard()
  o.signal?.addEventListener('abort', onAbort, {once: true})
  try {
    const result = await replayRecords(o, scheduler, record)
    record?.commit(o.placeRecord)
    return result
  } catch (err) {
    record?.discard()
    throw err
  } finally {
    o.signal?.removeEventListener('abort', onAbort)
  }
}

/** The fixed parts of one replay: the level's target and context, its dispatcher, the counters the loop fills. */
interface Run {
  target: unknown
  ctx: ReplayContext<unknown>
  dispatcher: ReturnType<ReplayLevel['buildDispatcher']>
  stats: ReplayStats
  skipped: Skipped
  pacer: WallPacer
}

/** What the record loop counted (kept in locals while it runs). */
interface Counts {
  replayed: number
  failed: number
  nonfinite: number
  /** performance.now() at the first record (or at the end, for a trace without records) */
  started: number
}

/** Realtime pace: trace time T is due at origin + T / speed on the wall clock (§4.2). */
class WallPacer {
  private origin = 0

  constructor(
    private readonly speed: number,
    private readonly scheduler: EventScheduler,
  ) {}

  /** at the first record: wall time 0 of the trace */
  start(): void {
    this.origin = performance.now() / 1000
  }

  /** elapsed wall time in trace seconds */
  traceNow(): number {
    return (performance.now() / 1000 - this.origin) * this.speed
  }

  async waitUntil(t: number): Promise<void> {
    const ms = (t / this.speed - (performance.now() / 1000 - this.origin)) * 1000
    if (ms >= 1) await sleep(ms)
  }

  /** before each event: while running, now = max(T, elapsed wall × speed), so a lagging replay sees later times */
  readonly beforeEvent = (t: number): void => {
    this.scheduler.setNow(Math.max(t, this.traceNow()))
  }

  /** Runs the events due by T as the wall clock reaches each, then waits for T itself. */
  async advanceTo(T: number): Promise<void> {
    for (;;) {
      const next = this.scheduler.peekTime()
      if (next === undefined || next > T) break
      await this.waitUntil(next)
      this.scheduler.runUpTo(next, this.beforeEvent)
    }
    await this.waitUntil(T)
    this.scheduler.setNow(Math.max(T, this.traceNow()))
  }
}

/** A fresh target of the level, its context and dispatcher (the recorder attached under `--record`). */
function startRun<C>(o: ReplayRunOptions<C>, scheduler: EventScheduler, record: RecordFile | undefined): Run {
  const recorder = record?.recorder
  const env: ReplayEnv = {header: o.header, pace: o.pace, speed: o.speed, scheduler, warn: o.warn, recorder}
  const target = o.level.createTarget(o.config, env)
  if (recorder) o.level.attachRecorder?.(target, o.config, recorder)
  return {
    target,
    ctx: {target, env, scratch: new Map()},
    dispatcher: o.level.buildDispatcher(),
    stats: new ReplayStats(o.exactLatency),
    skipped: {decode_error: 0, unknown_tag: 0, no_handler: {}},
    pacer: new WallPacer(o.speed, scheduler),
  }
}

/** A record without a handler: counted by qualname and warned (deduplicated); newer recorders stay replayable. */
function countNoHandler(skipped: Skipped, qualname: string, warn: ReplayRunOptions<unknown>['warn']): void {
  skipped.no_handler[qualname] = (skipped.no_handler[qualname] ?? 0) + 1
  warn('no_handler', qualname, `no handler for qualname '${qualname}'; skipping`)
}

async function replayRecords<C>(
  o: ReplayRunOptions<C>,
  scheduler: EventScheduler,
  record: RecordFile | undefined,
): Promise<ReplayResult> {
  const run = startRun(o, scheduler, record)
  // the header was validated by the caller; skipped frames and a truncated tail (docs/lct.md §4.2) are printed once
  // per kind with their offset, then counted
  const reader = await openTrace(o.file, {
    maxFrameBytes: o.maxFrameBytes,
    name: o.file,
    decoding: o.decoding,
    onWarning: (w) => o.warn(w.code, 'frames', w.message),
  })
  let counts: Counts
  try {
    counts = await replayLoop(o, scheduler, run, reader.batches(), record)
    if (o.signal?.aborted) throw abortError(o.signal)
    endOfTrace(o, scheduler, run)
  } finally {
    await reader.close()
  }
  return resultOf(o, scheduler, run, counts)
}

/**
 * The record loop (§3.1): the hot path of a replay, kept in one piece with its counters in locals; what is rare
 * (realtime waits, skips, failures) is in the functions it calls.
 */
async function replayLoop<C>(
  o: ReplayRunOptions<C>,
  scheduler: EventScheduler,
  run: Run,
  batches: AsyncIterable<LctRecord[]>,
  record: RecordFile | undefined,
): Promise<Counts> {
  const {dispatcher, ctx, stats, skipped, pacer} = run
  let replayed = 0
  let failed = 0
  let nonfinite = 0
  let started = 0
  let n = 0
  let lastTurn = performance.now()
  for await (const batch of batches) {
    for (const r of batch) {
      if (n === 0) {
        started = performance.now()
        pacer.start()
      }
      n++
      // batches can arrive without a turn of the event loop: take one now and then, so that a signal is heard
      if ((n & (YIELD_CHECK_RECORDS - 1)) === 0 && performance.now() - lastTurn >= YIELD_MS) {
        await turn()
        lastTurn = performance.now()
      }
      if (o.signal?.aborted) throw abortError(o.signal)
      const failure = record?.failedError()
      if (failure) throw failure
      let T = scheduler.now()
      if (Number.isFinite(r.tMono)) {
        if (r.tMono > T) T = r.tMono
      } else nonfinite++
      if (o.pace === 'realtime') await pacer.advanceTo(T)
      else {
        scheduler.runUpTo(T)
        scheduler.setNow(T)
      }
      const args = decodeOrSkip(r, n, skipped, o.warn)
      if (args === undefined || !dispatcher.has(r.qualname)) {
        if (args !== undefined) countNoHandler(skipped, r.qualname, o.warn)
        o.onRecord?.({
          index: n,
          qualname: r.qualname,
          status: 'SKIP',
          latencyMs: 0,
        })
        continue
      }
      const t0 = performance.now()
      let error: string | undefined
      try {
        dispatcher.dispatch(r.qualname, ctx, args)
      } catch (err) {
        if (err instanceof LctError) throw err
        error = err instanceof Error ? err.message : wireText(err)
      }
      const ms = performance.now() - t0
      if (error === undefined) {
        replayed++
        stats.sample(r.qualname, ms)
      } else {
        failed++
        stats.error(r.qualname)
        o.warn('record_failed', `${r.qualname}\u0000${error}`, `record ${n} (${r.qualname}) failed: ${error}`)
      }
      // outside the handler's try: a failing observer (an output that cannot be written) is not a failed record
      const status = error === undefined ? 'OK' : 'FAIL'
      o.onRecord?.({index: n, qualname: r.qualname, status, latencyMs: ms})
    }
    const lastRecord = batch[batch.length - 1]
    if (lastRecord) o.onProgress?.(n, lastRecord.offset + 4 + lastRecord.length)
  }
  return {replayed, failed, nonfinite, started: n === 0 ? performance.now() : started}
}

/** End of trace (§3.3): events due now, the level's final sweep, the drain, the target finalised. */
function endOfTrace<C>(o: ReplayRunOptions<C>, scheduler: EventScheduler, run: Run): void {
  scheduler.runUpTo(scheduler.now())
  o.level.finalSweep?.(run.ctx)
  scheduler.drain(o.pace === 'realtime' ? run.pacer.beforeEvent : undefined)
  o.level.finalize?.(run.target)
}

/** The result (§3.4); the snapshot is computed when first read. */
function resultOf<C>(o: ReplayRunOptions<C>, scheduler: EventScheduler, run: Run, c: Counts): ReplayResult {
  const {skipped, target} = run
  const wall = (performance.now() - c.started) / 1000
  const result: ReplayResult = {
    recordsReplayed: c.replayed,
    recordsSkipped:
      skipped.decode_error +
      skipped.unknown_tag +
      Object.values(skipped.no_handler).reduce((a, b) => a + b, 0),
    recordsFailed: c.failed,
    skippedByReason: skipped,
    stats: run.stats,
    headerLevel: o.header.level,
    headerDigest: o.header.smConfigDigest,
    replayConfigDigest: o.level.configDigest?.(o.config).digest ?? '',
    wallDurationS: wall,
    traceTimeS: scheduler.now(),
    nonfiniteTMono: c.nonfinite,
    observations: o.level.observations?.(target),
  }
  const snapshot = o.level.snapshot?.bind(o.level)
  if (snapshot) {
    let value: {state: unknown; digest: string} | undefined
    Object.defineProperty(result, 'snapshot', {enumerable: true, get: () => (value ??= snapshot(target))})
  }
  return result
}
