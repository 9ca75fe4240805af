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
    const decoder = new TapeDecoder()
    try {
      for (;;) {
        const m = await asked.next()
        if ('done' in m) return
        asked.submit(null) // the next batch may be decoded while this one is replayed
        const records = decoder.records(m.batch)
        let from = 0
        for (const {before, warning} of m.batch.warnings) {
          if (before > from) {
            yield records.slice(from, before)
            from = before
          }
          opts.onWarning?.(warning)
        }
        if (from < records.length) yield from === 0 ? records : records.slice(from)
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
