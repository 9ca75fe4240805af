// The worker side of a WorkerPool: answers each `{id, job}` the thread is sent with `{id, result}` (its buffers in
// `transfer` moved, not copied) or, when the job throws, `{id, error}`.
import {parentPort, type TransferListItem} from 'node:worker_threads'
import {workerErrorData} from './worker-errors.js'

type Answer<R> = {result: R; transfer?: readonly TransferListItem[]}

/**
 * Serves the jobs of this worker thread with `run` (a job may be started before the last one ended); the buffers in
 * an answer's `transfer` move to the other thread instead of being copied.
 */
export function serveJobs<J, R>(run: (job: J) => Answer<R> | Promise<Answer<R>>): void {
  const port = parentPort
  if (!port) throw new Error('serveJobs runs in a worker thread')
  port.on('message', async ({id, job}: {id: number; job: J}) => {
    try {
      const {result, transfer} = await run(job)
      port.postMessage({id, result}, transfer)
    } catch (err) {
      port.postMessage({id, error: workerErrorData(err)})
    }
  })
}
