// The records of a trace decoded on a worker thread, so that a replay's model runs beside its decoding.
import {WorkerPool} from '../util/workers/worker-pool.js'
import {OrderedJobs} from '../util/workers/ordered-jobs.js'
import {type TapeBatch, TapeDecoder} from './record-tape.js'
import type {LctRecord, LctWarning} from './types.js'

export interface ThreadedReadOptions {
  maxFrameBytes?: number
  name?: string
  /** reader warnings, each delivered between the records it came between */
  onWarning?: (w: LctWarning) => void
  batchRecords?: number
  batchBytes?: number
  /** records that repeat a list of keys get one array (for consumers that never change args' arrays), else copies */
  shareLists?: boolean
}

/** records decoded from a batch at a time (a few replayed between two young-generation collections) */
const CHUNK_RECORDS = 256

/** The records of `batch`, `CHUNK_RECORDS` at a time, each warning delivered before the record it came before. */
function* decoded(
  decoder: TapeDecoder,
  batch: TapeBatch,
  onWarning: ((w: LctWarning) => void) | undefined,
): Generator<LctRecord[]> {
  decoder.open(batch)
  const {warnings, count} = batch
  let w = 0
  let from = 0
  for (;;) {
    while (w < warnings.length && warnings[w].before <= from) onWarning?.(warnings[w++].warning)
    const to = Math.min(count, from + CHUNK_RECORDS, w < warnings.length ? warnings[w].before : count)
    if (to <= from) break
    yield decoder.range(batch, from, to)
    from = to
  }
  for (; w < warnings.length; w++) onWarning?.(warnings[w].warning)
  decoder.close(batch)
}

/** What the reading thread answers a request for the next batch with. */
export type TapeReply = {batch: TapeBatch} | {done: true}

/**
 * Batches asked for ahead of the replay (it asks for another as it starts on one): decoding may run up to six
 * batches ahead, which absorbs the pauses of either thread (a collection, a burst of evictions).
 */
const READ_AHEAD = 6

export interface ThreadedTraceReader {
  batches(): AsyncIterableIterator<LctRecord[]>
  close(): Promise<void>
}

/**
 * Reads `file` on a worker thread: records arrive in order, with the same values, skips and warnings as
 * `openTrace(file, {internObjectKeys: true})` gives (the header is validated by the caller beforehand).
 */
export function openTraceThreaded(file: string, opts: ThreadedReadOptions = {}): ThreadedTraceReader {
  let pool: WorkerPool<null, TapeReply> | undefined

  async function* batches(): AsyncIterableIterator<LctRecord[]> {
    pool = new WorkerPool<null, TapeReply>({
      name: 'trace reading',
      entry: new URL('./tape-worker.js', import.meta.url),
      workerData: {
        file,
        maxFrameBytes: opts.maxFrameBytes,
        name: opts.name,
        batchRecords: opts.batchRecords,
        batchBytes: opts.batchBytes,
      },
      count: 1,
    })
    const asked = new OrderedJobs(pool, READ_AHEAD)
    while (!asked.full) asked.submit(null)
    const decoder = new TapeDecoder({shareLists: opts.shareLists})
    try {
      for (;;) {
        const m = await asked.next()
        if ('done' in m) return
        asked.submit(null) // the next batch may be decoded while this one is replayed
        yield* decoded(decoder, m.batch, opts.onWarning)
      }
    } finally {
      await close()
    }
  }

  async function close(): Promise<void> {
    await pool?.close()
  }

  return {batches, close}
}
