// Sweep tasks on worker threads (the `sweepWorkers` accelerator): the rows are encoded once into typed arrays on
// shared memory, and every worker plays the tasks it is handed straight from them (a row object exists only while
// it is played, so a worker's memory does not grow with the trace).
import type {TraceRow} from '../input/trace-rows.js'
import type {SweepWorkers} from '../sweep/run-tasks.js'
import type {PointJob, SweepTask, SweepTaskResult} from '../sweep/sweep-tasks.js'
import {WorkerPool} from '../../util/workers/worker-pool.js'
import {decodeRows, type EncodedRows, encodeRows} from './row-batch-codec.js'

/** rows decoded at a time (fresh objects: the play may keep their keys, e.g. for a scheduled write) */
const DECODE_CHUNK = 256

/** The rows of an encoding, decoded a few hundred at a time. */
export function* encodedRows(e: EncodedRows): Generator<TraceRow> {
  for (let start = 0; start < e.n; start += DECODE_CHUNK)
    yield* decodeRows(e, start, Math.min(e.n, start + DECODE_CHUNK))
}

/** `count` worker threads over `rows`, each running the tasks it is called with. */
export function sweepWorkers(rows: readonly TraceRow[], job: PointJob, count: number): SweepWorkers {
  return new WorkerPool<SweepTask, SweepTaskResult>({
    name: 'sweep',
    entry: new URL('./sweep-worker.js', import.meta.url),
    workerData: {encoded: encodeRows(rows), job},
    count,
  })
}
