// Worker-thread entry of a sweep: runs the tasks it is sent over the shared encoded rows (sweep-workers.ts). It
// never transfers a buffer: rows are shared, results cloned.
import {workerData} from 'node:worker_threads'
import {serveJobs} from '../../util/workers/serve-jobs.js'
import {type PointJob, type SweepTask, SweepTaskRunner} from '../sweep/sweep-tasks.js'
import type {EncodedRows} from './row-batch-codec.js'
import {encodedRows} from './sweep-workers.js'

const {encoded, job} = workerData as {encoded: EncodedRows; job: PointJob}
const runner = new SweepTaskRunner(() => encodedRows(encoded), job)

serveJobs((task: SweepTask) => ({result: runner.run(task)}))
