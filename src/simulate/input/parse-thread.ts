// The trace's rows parsed on a worker thread while this thread plays them: the worker runs the same
// row reader (trace-source.ts: the same rules, skips, errors and key ids) and hands over batches of rows as typed
// arrays; this side replays its batches, progress calls, statistics and error in the order the reader made them,
// so a run sees exactly what readTraceRowBatches gives. At most READ_AHEAD replies are in flight.
import {availableParallelism} from 'node:os'
import {isLmtError, lmtError} from '../../errors.js'
import {OrderedJobs} from '../../util/workers/ordered-jobs.js'
import {reviveWorkerError, type WorkerErrorData} from '../../util/workers/worker-errors.js'
import {WorkerPool} from '../../util/workers/worker-pool.js'
import {growStringTable, readRowSlot, type RowSlotArrays, type RowSlotBatch} from './row-batch-codec.js'
import type {TraceRow} from './trace-rows.js'
import type {TraceReadOptions, TraceReadStats} from './trace-source.js'
import {eventLoopTurn} from '../../util/event-loop-turn.js'
import {plainPaths} from '../../util/plain.js'

/** What the worker is started with: the row reader's options that are data. */
export type ParseThreadData = Pick<TraceReadOptions, 'path' | 'name' | 'skipInvalid' | 'mode'>

export type StatsSnapshot = Omit<TraceReadStats, 'bytes'>

/** One batch of the reader (one yield of readTraceRowBatches) and what it reported before it. */
export interface ParsePart {
  /** the reader's progress calls since the part before: bytes read, and the statistics at that moment */
  progress: Array<{bytes: number; stats: StatsSnapshot}>
  /** the statistics after the part's rows (or at the error) */
  stats: StatsSnapshot
  /** how many of the slot's rows are this part's (the parts' rows follow each other in the slot) */
  rows: number
}

/** The worker's answer to a request to fill a slot: the reader's next batches, then maybe its error or end. */
export interface ParseReply {
  parts: ParsePart[]
  /** the slot the rows are in */
  slot?: number
  batch?: RowSlotBatch
  /** what the reader threw after the parts' rows */
  error?: WorkerErrorData
  done?: true
}

/**
 * Slots asked for ahead of the play, each its own piece of shared memory: parsing may run up to this many replies
 * (of about REPLY_ROWS rows) ahead, which absorbs the pauses of either thread and bounds the memory in flight.
 */
const READ_AHEAD = 4
/**
 * rows a reply gathers at least (several of the reader's batches, which are ≤ 256 KB of trace each): fewer
 * replies, fewer wake-ups of either thread (on a loaded machine each one can cost a trip through the scheduler)
 */
export const REPLY_ROWS = 1024

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
 * Whether a trace of `bytes` is parsed on a worker thread: `choice` when forced, never on the plain paths
 * (`LMT_PLAIN=1`), on when `LMT_SIMULATE_PARSE_THREAD=on` (tests force it for small traces), else by size, with
 * two cores or more.
 */
export function parsesOnThread(
  choice: boolean | 'auto' | undefined,
  bytes: number,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (choice !== undefined && choice !== 'auto') return choice
  if (plainPaths(env)) return false
  if (env.LMT_SIMULATE_PARSE_THREAD === 'on') return true
  return availableParallelism() >= 2 && bytes >= PARSE_THREAD_MIN_BYTES
}

export interface ParseThreadOptions extends Omit<TraceReadOptions, 'keys' | 'countKeysOnly'> {
  /** the worker module (tests give one that fails) */
  entry?: URL
}

/** {@link readTraceRowBatches} with the parsing on a worker thread (`keys` and `countKeysOnly` are the worker's). */
export async function* readTraceRowBatchesOnThread(
  opts: ParseThreadOptions,
  stats: TraceReadStats,
): AsyncGenerator<TraceRow[]> {
  const data: ParseThreadData = {
    path: opts.path,
    name: opts.name,
    skipInvalid: opts.skipInvalid,
    mode: opts.mode,
  }
  const pool = new WorkerPool<number, ParseReply>({
    name: 'trace parsing',
    entry: opts.entry ?? new URL('./parse-thread-worker.js', import.meta.url),
    workerData: data,
    count: 1,
  })
  const asked = new OrderedJobs(pool, READ_AHEAD)
  const table: string[] = []
  const slots: RowSlotArrays[] = []
  let turned = performance.now()
  try {
    for (let slot = 0; !asked.full; slot++) asked.submit(slot)
    for (;;) {
      const reply = await nextReply(asked)
      const {slot, batch} = reply
      if (batch && slot !== undefined) {
        if (batch.arrays) slots[slot] = batch.arrays
        growStringTable(table, batch)
      }
      let from = 0
      for (const part of reply.parts) {
        for (const p of part.progress) {
          Object.assign(stats, p.stats)
          opts.onBytes?.(p.bytes)
        }
        Object.assign(stats, part.stats)
        if (part.rows === 0 || slot === undefined) continue
        // one part at a time: the rows held while they are played are one of the reader's batches, as on one thread
        const end = from + part.rows
        const rows = readRowSlot(slots[slot], from, end, table)
        from = end
        if (end === batch?.n) asked.submit(slot) // its last rows are out: it is refilled while they are played
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
