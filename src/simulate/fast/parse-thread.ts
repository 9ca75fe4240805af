// The trace's rows parsed on a worker thread while this thread plays them (the `parseThread` accelerator): the
// worker runs the same row reader (input/trace-source.ts, with the byte scanner: the same rules, skips, errors and
// key ids) and hands over its batches as typed arrays on shared memory (row-batch-codec.ts); this side replays the
// batches, progress calls, statistics and error in the order the reader made them, so a run sees exactly what
// readTraceRowBatches gives on one thread. At most READ_AHEAD replies are in flight.
import {availableParallelism} from 'node:os'
import {isLmtError, lmtError} from '../../errors.js'
import {eventLoopTurn} from '../../util/event-loop-turn.js'
import {OrderedJobs} from '../../util/workers/ordered-jobs.js'
import {reviveWorkerError, type WorkerErrorData} from '../../util/workers/worker-errors.js'
import {WorkerPool} from '../../util/workers/worker-pool.js'
import type {TraceRow} from '../input/trace-rows.js'
import type {ParseThread, TraceReadOptions, TraceReadStats} from '../input/trace-source.js'
import {decodeRows, type EncodedRows} from './row-batch-codec.js'

/** What the worker is started with: the row reader's options that are data. */
export type ParseThreadData = Pick<
  TraceReadOptions,
  'path' | 'name' | 'skipInvalid' | 'mode' | 'tieredRows' | 'keysPrivate'
> & {shardCounts?: readonly number[]}

export type StatsSnapshot = Omit<TraceReadStats, 'bytes'>

/** One batch of the reader (one yield of readTraceRowBatches) and what it reported before it. */
export interface ParsePart {
  /** the reader's progress calls since the part before: bytes read, and the statistics at that moment */
  progress: Array<{bytes: number; stats: StatsSnapshot}>
  /** the statistics after the part's rows (or at the error) */
  stats: StatsSnapshot
  /** how many of the reply's rows are this part's (the parts' rows follow each other) */
  rows: number
}

/** The worker's answer to a request to fill a slot: the reader's next batches, encoded, then maybe its error or end. */
export interface ParseReply {
  parts: ParsePart[]
  /** the slot filled (its arrays are reused for the slot's next fill, once its rows are read) */
  slot: number
  rows?: EncodedRows
  /** tiered rows: the values of the keys the worker interned for these rows (the playing side mirrors them) */
  keyValues?: Uint32Array
  /** with `keyShards`: the shards of the keys the worker interned for these rows (KeyShards.of) */
  keyShards?: Uint16Array | Uint32Array
  /** what the reader threw after the parts' rows */
  error?: WorkerErrorData
  done?: true
}

/**
 * Replies asked for ahead of the play: parsing may run up to this many replies (of about REPLY_ROWS rows) ahead,
 * which absorbs the pauses of either thread and bounds the memory in flight.
 */
const READ_AHEAD = 4
/** rows a reply gathers at least (several of the reader's batches): fewer replies, fewer wake-ups of either thread */
export const REPLY_ROWS = 2048

/**
 * Below this size the trace is parsed on the playing thread: the worker's start-up (an isolate, the reader's
 * modules, a cold JIT) costs more than the overlap saves (docs/performance-notes.md, "Parsing on a second thread").
 */
export const PARSE_THREAD_MIN_BYTES = 64 << 20

/**
 * The longest the play runs without giving the event loop a turn (signal handlers): replies the worker made ahead
 * are taken without one (their promises are settled), so a turn is given between batches this often.
 */
const TURN_MS = 25

/**
 * The parse thread for a trace of `bytes`, if it is read on one: with two cores or more and a large trace, or
 * always when `LMT_SIMULATE_PARSE_THREAD=on` (tests force it for small traces); `off` never.
 */
export function parseThreadFor(bytes: number, env: NodeJS.ProcessEnv = process.env): ParseThread | undefined {
  const forced = env.LMT_SIMULATE_PARSE_THREAD
  if (forced === 'off') return undefined
  if (forced === 'on' || (availableParallelism() >= 2 && bytes >= PARSE_THREAD_MIN_BYTES))
    return readTraceRowBatchesOnThread
  return undefined
}

/**
 * readTraceRowBatches with the parsing on a worker thread (`keys` and `countKeysOnly` are the worker's; with
 * `tieredRows` and not `keysPrivate`, `keys` is made to mirror the values of the worker's keys by id, see
 * KeyInterner.adoptValues; `keyShards` is given their shards).
 */
export async function* readTraceRowBatchesOnThread(
  opts: TraceReadOptions & {entry?: URL},
  stats: TraceReadStats,
): AsyncGenerator<TraceRow[]> {
  const data: ParseThreadData = {
    path: opts.path,
    name: opts.name,
    skipInvalid: opts.skipInvalid,
    mode: opts.mode,
    tieredRows: opts.tieredRows,
    keysPrivate: opts.keysPrivate,
    shardCounts: opts.keyShards?.counts,
  }
  const pool = new WorkerPool<number, ParseReply>({
    name: 'trace parsing',
    entry: opts.entry ?? new URL('./parse-thread-worker.js', import.meta.url),
    workerData: data,
    count: 1,
  })
  const asked = new OrderedJobs(pool, READ_AHEAD)
  let turned = performance.now()
  try {
    for (let slot = 0; !asked.full; slot++) asked.submit(slot)
    for (;;) {
      const reply = await nextReply(asked)
      const more = !reply.error && !reply.done
      if (reply.keyValues !== undefined) opts.keys.adoptValues(reply.keyValues)
      if (reply.keyShards !== undefined) opts.keyShards?.adopt(reply.keyShards)
      if (more && reply.rows === undefined) asked.submit(reply.slot)
      let from = 0
      for (const part of reply.parts) {
        for (const p of part.progress) {
          Object.assign(stats, p.stats)
          opts.onBytes?.(p.bytes)
        }
        Object.assign(stats, part.stats)
        if (part.rows === 0 || reply.rows === undefined) continue
        // one part at a time: the rows held while they are played are one of the reader's batches, as on one thread
        const end = from + part.rows
        const rows = decodeRows(reply.rows, from, end)
        from = end
        // its last rows are out: the slot is refilled while they are played
        if (more && end === reply.rows.n) asked.submit(reply.slot)
        if (performance.now() - turned >= TURN_MS) {
          await eventLoopTurn()
          turned = performance.now()
        }
        yield rows
      }
      if (reply.error) throw reviveWorkerError(reply.error)
      if (reply.done) return
    }
  } finally {
    await pool.close()
  }
}

/** The next reply; a thread that failed (it died, its start-up threw) is a coded error. */
async function nextReply(asked: OrderedJobs<number, ParseReply>): Promise<ParseReply> {
  try {
    return await asked.next()
  } catch (err) {
    if (isLmtError(err)) throw err
    throw lmtError('CLI_WORKER_FAILED', 'trace parsing', (err as Error).message)
  }
}
