// Worker-thread entry of a sweep: decodes the rows once, then runs the tasks it is sent (sweep-pool.ts).
import {parentPort, workerData} from 'node:worker_threads'
import {decodeRows, type EncodedRows, type PointJob, type SweepTask, SweepTaskRunner} from './sweep-pool.js'

const {encoded, job} = workerData as {encoded: EncodedRows; job: PointJob}
const runner = new SweepTaskRunner(decodeRows(encoded), job)

parentPort?.on('message', ({index, task}: {index: number; task: SweepTask}) => {
  try {
    parentPort?.postMessage({index, result: runner.run(task)})
  } catch (err) {
    parentPort?.postMessage({index, error: (err as Error)?.stack ?? String(err)})
  }
})
