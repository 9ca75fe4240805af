// Worker threads that answer jobs: the one pool under lmt's three users (the line mappers of a conversion, the
// points of a sweep, the reading thread of a replay). A job goes to a given thread as `{id, job}` and comes back as
// `{id, result}` or `{id, error}` (see serve-jobs.ts for the worker side); what a job throws is rethrown here as it
// was thrown, and a thread that ends before the pool is closed fails every job still waiting with WORKER_FAILED.
import {createRequire} from 'node:module'
import type {ResourceLimits, TransferListItem, Worker} from 'node:worker_threads'
import {lmtError} from '../../errors.js'
import {reviveWorkerError, type WorkerErrorData} from './worker-errors.js'

export interface WorkerPoolOptions {
  /** what the threads are, for the error of one that stops ("line mapper", "sweep", "trace reading") */
  name: string
  /** the worker module */
  entry: URL
  /** each thread's `workerData` (structured-cloned once per thread) */
  workerData?: unknown
  /** how many threads */
  count: number
  resourceLimits?: ResourceLimits
  /** aborting it fails the waiting jobs with its reason and ends the threads */
  signal?: AbortSignal
}

/** What a worker thread posts back: the answer to job `id`. */
export type JobReply<R> = {id: number; result: R; error?: undefined} | {id: number; error: WorkerErrorData}

// node:worker_threads (five of Node's modules, ~3 ms of a start-up) is loaded when a pool starts, not by every run
// of the commands that may start one (docs/performance-notes.md, "Start-up")
const require = createRequire(import.meta.url)

export class WorkerPool<J, R> {
  private readonly workers: Worker[] = []
  private readonly waiting = new Map<number, {resolve: (result: R) => void; reject: (err: Error) => void}>()
  private nextId = 0
  private failure: Error | undefined
  private closed = false
  private readonly onAbort = (): void => {
    const reason: unknown = this.options.signal?.reason
    this.fail(reason instanceof Error ? reason : lmtError('CLI_INTERRUPTED', 'an abort signal'))
    void this.close()
  }

  constructor(private readonly options: WorkerPoolOptions) {
    const {Worker} = require('node:worker_threads') as typeof import('node:worker_threads')
    for (let i = 0; i < options.count; i++) {
      const w = new Worker(options.entry, {
        workerData: options.workerData,
        resourceLimits: options.resourceLimits,
      })
      w.on('message', (reply: JobReply<R>) => this.answer(reply))
      w.on('error', (err) => this.fail(err)) // the worker's own error (its start-up failed), as it threw it
      w.on('exit', (code) => {
        if (!this.closed) this.fail(lmtError('CLI_WORKER_FAILED', options.name, `exit code ${code}`))
      })
      this.workers.push(w)
    }
    options.signal?.addEventListener('abort', this.onAbort, {once: true})
    if (options.signal?.aborted) this.onAbort()
  }

  /** How many threads. */
  get size(): number {
    return this.workers.length
  }

  /** Hands `job` to thread `worker`; the buffers in `transfer` move there instead of being copied. */
  call(worker: number, job: J, transfer: readonly TransferListItem[] = []): Promise<R> {
    if (this.failure) return Promise.reject(this.failure)
    const id = this.nextId++
    const answer = new Promise<R>((resolve, reject) => this.waiting.set(id, {resolve, reject}))
    this.workers[worker].postMessage({id, job}, transfer)
    return answer
  }

  /** Ends the threads; jobs still waiting fail. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.options.signal?.removeEventListener('abort', this.onAbort)
    this.fail(lmtError('CLI_WORKER_FAILED', this.options.name, 'closed'))
    await Promise.all(this.workers.map((w) => w.terminate()))
  }

  private answer(reply: JobReply<R>): void {
    const w = this.waiting.get(reply.id)
    if (!w) return
    this.waiting.delete(reply.id)
    if (reply.error) w.reject(reviveWorkerError(reply.error))
    else w.resolve(reply.result)
  }

  private fail(err: Error): void {
    this.failure ??= err
    for (const w of this.waiting.values()) w.reject(this.failure)
    this.waiting.clear()
  }
}
