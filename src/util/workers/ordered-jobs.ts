import type {TransferListItem} from 'node:worker_threads'
import type {WorkerPool} from './worker-pool.js'

/**
 * Jobs handed to a pool's threads round-robin, whose results are taken in submission order, with a bounded number
 * in flight (the line mappers' batches, the reading thread's batches of records).
 */
export class OrderedJobs<J, R> {
  private readonly queue: Array<Promise<R>> = []
  private submitted = 0

  constructor(
    private readonly pool: WorkerPool<J, R>,
    /** jobs in flight per thread before {@link full} says to take a result first */
    private readonly inFlightPerWorker: number,
  ) {}

  /** Hands out a job (its buffers in `transfer` move to the thread); its result comes from {@link next} in order. */
  submit(job: J, transfer?: readonly TransferListItem[]): void {
    const result = this.pool.call(this.submitted++ % this.pool.size, job, transfer)
    result.catch(() => {}) // observed by next(); a job dropped by close() is not an unhandled rejection
    this.queue.push(result)
  }

  /** True when the caller should take a result before submitting more. */
  get full(): boolean {
    return this.queue.length >= this.inFlightPerWorker * this.pool.size
  }

  /** Jobs submitted whose result was not taken yet. */
  get pending(): number {
    return this.queue.length
  }

  /** The oldest job's result. */
  async next(): Promise<R> {
    const head = this.queue.shift()
    if (!head) throw new Error('no job pending')
    return head
  }
}
