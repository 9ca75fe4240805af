// Worker-thread entry of a sweep: runs the tasks it is sent over the shared encoded rows (sweep-pool.ts). It never
// transfers a buffer: rows are shared, results cloned.
import {workerData} from 'node:worker_threads'
import {serveJobs} from '../../util/workers/serve-jobs.js'
import {type EncodedRows, encodedRows, type PointJob, type SweepTask, SweepTaskRunner} from './sweep-pool.js'

const {encoded, job} = workerData as {encoded: EncodedRows; job: PointJob}
const runner = new SweepTaskRunner(() => encodedRows(encoded), job)

serveJobs((task: SweepTask) => ({result: runner.run(task)}))
