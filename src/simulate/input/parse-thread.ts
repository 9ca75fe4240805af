// The trace's rows parsed on a worker thread while this thread plays them (issue 20): the worker runs the same
// row reader (trace-source.ts: the same rules, skips, errors and key ids) and hands over batches of rows as typed
// arrays; this side replays its progress calls, its statistics and its error in the order the reader made them,
// so a run sees exactly what readTraceRowBatches gives. At most READ_AHEAD batches are in flight.
import {availableParallelism} from 'node:os'
import {isLmtError, lmtError} from '../../errors.js'
import {OrderedJobs} from '../../util/workers/ordered-jobs.js'
import {reviveWorkerError, type WorkerErrorData} from '../../util/workers/worker-errors.js'
import {WorkerPool} from '../../util/workers/worker-pool.js'
import {readRowSlot, type RowSlotArrays, type RowSlotBatch} from './row-batch-codec.js'
import type {TraceRow} from './trace-rows.js'
import type {TraceReadOptions, TraceReadStats} from './trace-source.js'

/** What the worker is started with: the row reader's options that are data. */
export type ParseThreadData = Pick<TraceReadOptions, 'path' | 'name' | 'skipInvalid' | 'mode'>

export type StatsSnapshot = Omit<TraceReadStats, 'bytes'>

/** The worker's answer to a request for the next batch. */
export interface ParseReply {
  /** the reader's progress calls since the last reply: bytes read, and the statistics at that moment */
  progress: Array<{bytes: number; stats: StatsSnapshot}>
  /** the statistics after the batch (or at the error) */
  stats: StatsSnapshot
  /** the slot the batch's rows are in */
  slot?: number
  batch?: RowSlotBatch
  /** what the reader threw after the batch's rows */
  error?: WorkerErrorData
  done?: true
}

/**
 * Batches asked for ahead of the play, each in its own slot of shared memory: parsing may run up to this many
 * batches (of ≤ 1024 rows, ≤ 256 KB of trace) ahead, which absorbs the pauses of either thread and bounds the
 * memory in flight.
 */
const READ_AHEAD = 4

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
const turn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Whether a trace of `bytes` is parsed on a worker thread: `choice` when forced, else `LMT_SIMULATE_PARSE_THREAD`
 * (on, off: to measure both paths on one build), else by size, with two cores or more.
 */
export function parsesOnThread(
  choice: boolean | 'auto' | undefined,
  bytes: number,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (choice !== undefined && choice !== 'auto') return choice
  const forced = env.LMT_SIMULATE_PARSE_THREAD
  if (forced === 'on' || forced === 'off') return forced === 'on'
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
      if (performance.now() - turned >= TURN_MS) {
        await turn()
        turned = performance.now()
      }
      const reply = await nextReply(asked)
      for (const p of reply.progress) {
        Object.assign(stats, p.stats)
        opts.onBytes?.(p.bytes)
      }
      Object.assign(stats, reply.stats)
      if (reply.batch && reply.slot !== undefined) {
        if (reply.batch.arrays) slots[reply.slot] = reply.batch.arrays
        const rows = readRowSlot(slots[reply.slot], reply.batch, table)
        asked.submit(reply.slot) // the slot is refilled while its rows are played
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
