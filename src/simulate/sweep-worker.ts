// Worker-thread entry of a sweep: runs the tasks it is sent over the shared encoded rows (sweep-pool.ts).
import {parentPort, workerData} from 'node:worker_threads'
import {type EncodedRows, encodedRows, type PointJob, type SweepTask, SweepTaskRunner} from './sweep-pool.js'
import {settleArrayBufferDetaching} from '../util/array-buffer-detaching.js'

settleArrayBufferDetaching() // this thread transfers buffers: before any hot code is compiled

const {encoded, job} = workerData as {encoded: EncodedRows; job: PointJob}
const runner = new SweepTaskRunner(() => encodedRows(encoded), job)

parentPort?.on('message', ({index, task}: {index: number; task: SweepTask}) => {
  try {
    parentPort?.postMessage({index, result: runner.run(task)})
  } catch (err) {
    parentPort?.postMessage({index, error: (err as Error)?.stack ?? String(err)})
  }
})
