// The replay driver (storage-replay.md §3): records in, handlers called at their trace time, events interleaved.
import {mkdirSync, statSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {dirname} from 'node:path'
import {LctError, lmtError} from '../errors.js'
import {CodecError, decodeArgsInPlace, type DecodedArgs, UnknownTagError} from '../lct/codecs.js'
import {openTrace} from '../lct/reader.js'
import {openTraceThreaded} from '../lct/threaded-reader.js'
import {type Clock, TraceRecorder} from '../lct/recorder.js'
import type {LctHeader, LctWarning} from '../lct/types.js'
import type {LevelObservations, ReplayContext, ReplayEnv, ReplayLevel} from './level.js'
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
  recordPath?: string
  warn: (code: string, key: string, message: string) => void
  onRecord?: (o: RecordOutcome) => void
  /** after each batch of records: records read so far, byte offset of the end of the last one */
  onProgress?: (records: number, offset: number) => void
  signal?: AbortSignal
  /** decode the trace on a worker thread: `auto` (default) for traces of 8 MiB or more with two cores or more */
  readerThread?: boolean | 'auto'
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

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

/** Replays every record of `file` against a fresh target of the level. */
export async function replayTrace<C>(o: ReplayRunOptions<C>): Promise<ReplayResult> {
  const scheduler = new EventScheduler()
  const stats = new ReplayStats(o.exactLatency)
  const skipped = {decode_error: 0, unknown_tag: 0, no_handler: {} as Record<string, number>}
  let replayed = 0
  let failed = 0
  let nonfinite = 0
  let recorder: TraceRecorder | undefined
  if (o.recordPath) {
    mkdirSync(dirname(o.recordPath), {recursive: true})
    const clock: Clock =
      o.pace === 'virtual'
        ? {mono: () => scheduler.now(), wall: () => o.header.tWallStart + scheduler.now()}
        : {
            mono: () => performance.now() / 1000,
            wall: () => (performance.timeOrigin + performance.now()) / 1000,
          }
    recorder = new TraceRecorder({
      path: o.recordPath,
      level: o.level.name,
      clock,
      onWarning: (m) => o.warn('record', m, m),
    })
  }
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

  // skipped frames and a truncated tail (lct §4.5): printed once per kind with its offset, then counted
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
  try {
    for await (const batch of reader.batches()) {
      for (const r of batch) {
        if (n === 0) {
          started = performance.now()
          origin = performance.now() / 1000
        }
        n++
        if (o.signal?.aborted) throw lmtError('INTERRUPTED', 'replay')
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
        let args
        try {
          args = r.argsDecoded ? (r.args as DecodedArgs) : decodeArgsInPlace(r.args) // the record is ours alone
        } catch (err) {
          if (!(err instanceof CodecError)) throw err
          const reason = err instanceof UnknownTagError ? 'unknown_tag' : 'decode_error'
          skipped[reason]++
          o.warn(
            reason,
            r.qualname,
            `cannot decode args of record ${n} at offset ${r.offset} (${r.qualname}): ${err.message}; skipping`,
          )
          o.onRecord?.({
            index: n,
            qualname: r.qualname,
            status: 'SKIP',
            latencyMs: 0,
            traceTime: scheduler.now(),
          })
          continue
        }
        if (!dispatcher.has(r.qualname)) {
          skipped.no_handler[r.qualname] = (skipped.no_handler[r.qualname] ?? 0) + 1
          o.warn('no_handler', r.qualname, `no handler for qualname '${r.qualname}'; skipping`)
          o.onRecord?.({
            index: n,
            qualname: r.qualname,
            status: 'SKIP',
            latencyMs: 0,
            traceTime: scheduler.now(),
          })
          continue
        }
        const t0 = performance.now()
        try {
          dispatcher.dispatch(r.qualname, ctx, args)
          const ms = performance.now() - t0
          replayed++
          stats.sample(r.qualname, ms)
          o.onRecord?.({
            index: n,
            qualname: r.qualname,
            status: 'OK',
            latencyMs: ms,
            traceTime: scheduler.now(),
          })
        } catch (err) {
          if (err instanceof LctError) throw err
          const ms = performance.now() - t0
          failed++
          stats.error(r.qualname)
          const message = (err as Error)?.message ?? String(err)
          o.warn(
            'record_failed',
            `${r.qualname}\u0000${message}`,
            `record ${n} (${r.qualname}) failed: ${message}`,
          )
          o.onRecord?.({
            index: n,
            qualname: r.qualname,
            status: 'FAIL',
            latencyMs: ms,
            traceTime: scheduler.now(),
            error: message,
          })
        }
      }
      const lastRecord = batch[batch.length - 1]
      if (lastRecord) o.onProgress?.(n, lastRecord.offset + 4 + lastRecord.length)
    }
    if (n === 0) started = performance.now()
    // end of trace (§3.3)
    scheduler.runUpTo(scheduler.now())
    o.level.finalSweep?.(ctx)
    scheduler.drain(o.pace === 'realtime' ? realtimeEvent : undefined)
    o.level.finalize?.(target)
  } finally {
    await reader.close()
    recorder?.close()
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
