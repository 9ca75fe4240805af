import {Worker} from 'node:worker_threads'

interface Pending<R> {
  resolve: (result: R) => void
  reject: (err: Error) => void
  promise: Promise<R>
}

/**
 * Worker threads that take jobs round-robin and give their results back in submission order, with a bounded number
 * of jobs in flight (the line mappers' pools). A worker answers `{id, result}` or `{id, error}`; a crash or an
 * error fails every job still waiting.
 */
export class OrderedPool<R> {
  private readonly workers: Worker[] = []
  private readonly waiting = new Map<number, Pending<R>>()
  private readonly queue: Array<Pending<R>> = []
  private nextId = 0
  private failure: Error | undefined

  constructor(
    entry: URL,
    workerData: unknown,
    count: number,
    /** jobs in flight per worker before {@link full} says to wait */
    private readonly inFlightPerWorker = 3,
  ) {
    for (let i = 0; i < count; i++) {
      const w = new Worker(entry, {
        workerData,
        // a mapper's garbage is short-lived: a small young generation keeps the worker's footprint small
        resourceLimits: {maxYoungGenerationSizeMb: 8},
      })
      w.on('message', (msg: {id?: number; result?: R; error?: string; ready?: boolean}) => {
        if (msg.ready || msg.id === undefined) return
        const p = this.waiting.get(msg.id)
        if (!p) return
        this.waiting.delete(msg.id)
        if (msg.error) p.reject(new Error(msg.error))
        else p.resolve(msg.result as R)
      })
      w.on('error', (err) => this.fail(err))
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`line mapper worker exited with code ${code}`))
      })
      this.workers.push(w)
    }
  }

  /** Posts a job (its message gets the job's `id`); its result comes from {@link next} in order. */
  submit(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): void {
    if (this.failure) throw this.failure
    const id = this.nextId++
    let resolve!: (r: R) => void
    let reject!: (e: Error) => void
    const promise = new Promise<R>((res, rej) => {
      resolve = res
      reject = rej
    })
    promise.catch(() => {}) // observed by next()
    const p: Pending<R> = {resolve, reject, promise}
    this.waiting.set(id, p)
    this.queue.push(p)
    this.workers[id % this.workers.length].postMessage({...message, id}, transfer)
  }

  /** True when the caller should take a result before submitting more. */
  get full(): boolean {
    return this.queue.length >= this.inFlightPerWorker * this.workers.length
  }

  get pending(): number {
    return this.queue.length
  }

  /** The oldest job's result. */
  async next(): Promise<R> {
    const head = this.queue.shift()
    if (!head) throw new Error('no job pending')
    return head.promise
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()))
  }

  private fail(err: Error): void {
    this.failure ??= err
    for (const p of this.waiting.values()) p.reject(err)
  }
}
