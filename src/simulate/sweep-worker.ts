// Worker-thread entry of a sweep: decodes the rows once, then replays the points it is sent (sweep-pool.ts).
import {parentPort, workerData} from 'node:worker_threads'
import {
  decodeRows,
  type EncodedRows,
  type PointJob,
  pointResult,
  replayPoint,
  type SweepCapacity,
} from './sweep-pool.js'

const {encoded, job} = workerData as {encoded: EncodedRows; job: PointJob}
const rows = decodeRows(encoded)

parentPort?.on('message', ({index, cap}: {index: number; cap: SweepCapacity}) => {
  try {
    const r = replayPoint(rows, job, cap)
    parentPort?.postMessage({index, result: pointResult(r, job.groupName)})
  } catch (err) {
    parentPort?.postMessage({index, error: (err as Error)?.stack ?? String(err)})
  }
})
