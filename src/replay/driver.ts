// The replay driver (docs/storage-replay.md §3): records in, handlers called at their trace time, events interleaved.
import {statSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {LctError, LmtError, lmtError} from '../errors.js'
import {type DecodedArgs, UnknownTagError, wireText} from '../lct/codecs.js'
import {openTrace} from '../lct/reader.js'
import {recordArgs} from '../lct/record-args.js'
import {openTraceThreaded} from '../lct/threaded-reader.js'
import type {Clock} from '../lct/recorder.js'
import type {LctHeader, LctRecord, LctWarning} from '../lct/types.js'
import type {LevelObservations, ReplayContext, ReplayEnv, ReplayLevel} from './level.js'
import {RecordFile} from './record-file.js'
import {EventScheduler} from './scheduler.js'
import {ReplayStats} from './stats.js'

export interface RecordOutcome {
  index: number
  qualname: string
  status: 'OK' | 'FAIL' | 'SKIP'
  latencyMs: number
  traceTime: number
  error?: string
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
  warn: (code: string, key: string, message: string) => void
  onRecord?: (o: RecordOutcome) => void
  /**
   * Ends the replay: it throws `signal.reason` when that is an LmtError, else INTERRUPTED, within about
   * {@link YIELD_MS} ms (the loop gives the event loop a turn that often, so that signal handlers run). The
   * `recordPath` temporary file is removed in the abort event itself, so a process exiting right after leaves none.
   */
  /** after each batch of records: records read so far, byte offset of the end of the last one */
  onProgress?: (records: number, offset: number) => void
  signal?: AbortSignal
  /** decode the trace on a worker thread: `auto` (default) for traces of 8 MiB or more with two cores or more */
  readerThread?: boolean | 'auto'
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const turn = () => new Promise((r) => setImmediate(r))

/** the longest the replay loop runs without giving the event loop (signal handlers, aborts) a turn */
export const YIELD_MS = 50
/** records between two looks at the clock (a look costs ~30 ns; a record, ~1 µs) */
const YIELD_CHECK_RECORDS = 256

/** The reason a replay aborted by `signal` ends with. */
function abortError(signal: AbortSignal): LmtError {
  return signal.reason instanceof LmtError ? signal.reason : lmtError('INTERRUPTED', 'an abort signal')
}

/** below this size a trace is decoded on the replay's thread: a worker's start-up would cost more than it saves */
const THREAD_MIN_BYTES = 8 << 20

/** Whether the trace is decoded on a worker thread, beside the replay (a second core is needed to gain). */
function readsOnThread(o: {file: string; readerThread?: boolean | 'auto'}): boolean {
  if (o.readerThread !== undefined && o.readerThread !== 'auto') return o.readerThread
  if (availableParallelism() < 2) return false
  try {
    return statSync(o.file).size >= THREAD_MIN_BYTES
  } catch {
    return false // the reader reports it
  }
}

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
  if (o.signal?.aborted) throw abortError(o.signal)
  const scheduler = new EventScheduler()
  const record = openRecordFile(o, scheduler)
  // synchronous, in the abort event: a caller exiting right after the abort leaves no temporary file
  const onAbort = () => record?.discard()
  o.signal?.addEventListener('abort', onAbort, {once: true})
  try {
    const result = await replayRecords(o, scheduler, record)
    record?.commit()
    return result
  } catch (err) {
    record?.discard()
    throw err
  } finally {
    o.signal?.removeEventListener('abort', onAbort)
  }
}

async function replayRecords<C>(
  o: ReplayRunOptions<C>,
  scheduler: EventScheduler,
  record: RecordFile | undefined,
): Promise<ReplayResult> {
  const stats = new ReplayStats(o.exactLatency)
  const skipped: Skipped = {decode_error: 0, unknown_tag: 0, no_handler: {}}
  let replayed = 0
  let failed = 0
  let nonfinite = 0
  const recorder = record?.recorder
  const env: ReplayEnv = {header: o.header, pace: o.pace, speed: o.speed, scheduler, warn: o.warn, recorder}
  const target = o.level.createTarget(o.config, env)
  if (recorder) o.level.attachRecorder?.(target, o.config, recorder)
  const ctx: ReplayContext<unknown> = {target, env, scratch: new Map()}
  const dispatcher = o.level.buildDispatcher()
  const digest = o.level.configDigest?.(o.config).digest ?? ''

  // realtime: trace time T is due at origin + T / speed on the wall clock
  let origin = 0
  const wallTrace = () => (performance.now() / 1000 - origin) * o.speed
  const waitUntil = async (t: number) => {
    const ms = (t / o.speed - (performance.now() / 1000 - origin)) * 1000
    if (ms >= 1) await sleep(ms)
  }
  const realtimeEvent = (t: number) => {
    // while running, now = max(T, elapsed wall × speed): a lagging replay sees later times
    scheduler.setNow(Math.max(t, wallTrace()))
  }
  const skip = (n: number, qualname: string) =>
    o.onRecord?.({index: n, qualname, status: 'SKIP', latencyMs: 0, traceTime: scheduler.now()})

  // skipped frames and a truncated tail (docs/lct.md §4.5): printed once per kind with its offset, then counted
  const onWarning = (w: LctWarning) => o.warn(w.code, 'frames', w.message)
  const reader = readsOnThread(o)
    ? openTraceThreaded(o.file, {maxFrameBytes: o.maxFrameBytes, name: o.file, onWarning})
    : await openTrace(o.file, {
        maxFrameBytes: o.maxFrameBytes,
        name: o.file,
        internObjectKeys: true,
        onWarning,
      })
  let started = 0
  let n = 0
  let lastTurn = performance.now()
  try {
    for await (const batch of reader.batches()) {
      for (const r of batch) {
        if (n === 0) {
          started = performance.now()
          origin = performance.now() / 1000
        }
        n++
        // batches can arrive without a turn of the event loop: take one now and then, so that a signal is heard
        if ((n & (YIELD_CHECK_RECORDS - 1)) === 0 && performance.now() - lastTurn >= YIELD_MS) {
          await turn()
          lastTurn = performance.now()
        }
        if (o.signal?.aborted) throw abortError(o.signal)
        if (record?.failed) throw record.failedError()
        let T = scheduler.now()
        if (Number.isFinite(r.tMono)) {
          if (r.tMono > T) T = r.tMono
        } else nonfinite++
        if (o.pace === 'realtime') {
          for (;;) {
            const next = scheduler.peekTime()
            if (next === undefined || next > T) break
            await waitUntil(next)
            scheduler.runUpTo(next, realtimeEvent)
          }
          await waitUntil(T)
          scheduler.setNow(Math.max(T, wallTrace()))
        } else {
          scheduler.runUpTo(T)
          scheduler.setNow(T)
        }
        const args = decodeOrSkip(r, n, skipped, o.warn)
        if (args === undefined) {
          skip(n, r.qualname)
          continue
        }
        if (!dispatcher.has(r.qualname)) {
          skipped.no_handler[r.qualname] = (skipped.no_handler[r.qualname] ?? 0) + 1
          o.warn('no_handler', r.qualname, `no handler for qualname '${r.qualname}'; skipping`)
          skip(n, r.qualname)
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
          o.warn(
            'record_failed',
            `${r.qualname}\u0000${error}`,
            `record ${n} (${r.qualname}) failed: ${error}`,
          )
        }
        // outside the handler's try: a failing observer (an output that cannot be written) is not a failed record
        o.onRecord?.({
          index: n,
          qualname: r.qualname,
          status: error === undefined ? 'OK' : 'FAIL',
          latencyMs: ms,
          traceTime: scheduler.now(),
          ...(error === undefined ? {} : {error}),
        })
      }
      const lastRecord = batch[batch.length - 1]
      if (lastRecord) o.onProgress?.(n, lastRecord.offset + 4 + lastRecord.length)
    }
    if (n === 0) started = performance.now()
    if (o.signal?.aborted) throw abortError(o.signal)
    // end of trace (§3.3)
    scheduler.runUpTo(scheduler.now())
    o.level.finalSweep?.(ctx)
    scheduler.drain(o.pace === 'realtime' ? realtimeEvent : undefined)
    o.level.finalize?.(target)
  } finally {
    await reader.close()
  }
  const wall = (performance.now() - started) / 1000
  const result: ReplayResult = {
    recordsReplayed: replayed,
    recordsSkipped:
      skipped.decode_error +
      skipped.unknown_tag +
      Object.values(skipped.no_handler).reduce((a, b) => a + b, 0),
    recordsFailed: failed,
    skippedByReason: skipped,
    stats,
    headerLevel: o.header.level,
    headerDigest: o.header.smConfigDigest,
    replayConfigDigest: digest,
    wallDurationS: wall,
    traceTimeS: scheduler.now(),
    nonfiniteTMono: nonfinite,
    observations: o.level.observations?.(target),
  }
  const snapshot = o.level.snapshot?.bind(o.level)
  if (snapshot) {
    let value: {state: unknown; digest: string} | undefined
    Object.defineProperty(result, 'snapshot', {enumerable: true, get: () => (value ??= snapshot(target))})
  }
  return result
}
