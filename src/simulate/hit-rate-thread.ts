// Hit-rate CSV rows formatted and written on a worker thread: the replay hands over numbers (15 per row and the
// timestamp) in transferred batches, so formatting and writing run beside the replay on another core.
import {Worker} from 'node:worker_threads'
import {lmtError} from '../errors.js'
import {settleArrayBufferDetaching} from '../util/array-buffer-detaching.js'
import type {AccumulatedCounts, ReadRecord} from './hit-rate-csv.js'
import type {HitRateSink} from './hit-rate-sink.js'

/** numbers per row: file, cached, cachedAll, read, localHit, remoteHit, inputTokens, bs, 6 totals, AccWriteBlocks */
export const ROW_SLOTS = 15
const BATCH_ROWS = 2048
/** batches handed over and not yet written; the replay waits beyond this, so memory stays bounded */
const MAX_IN_FLIGHT = 8
/** a writer that makes no progress for this long is taken for dead */
const STALL_MS = 60_000

export interface RowBatchMessage {
  kind: 'rows'
  n: number
  numbers: ArrayBuffer
  timestamps: ArrayBuffer
}
export type WriterMessage =
  RowBatchMessage | {kind: 'open'; file: number; path: string} | {kind: 'close'; commit: boolean}

export class ThreadedHitRateSink implements HitRateSink {
  private readonly worker: Worker
  /** [batches in flight, failed] shared with the writer */
  private readonly state = new Int32Array(new SharedArrayBuffer(8))
  private readonly closed: Promise<string | undefined>
  private numbers = new Float64Array(BATCH_ROWS * ROW_SLOTS)
  private timestamps = new BigInt64Array(BATCH_ROWS)
  private rows = 0
  private completed = 0

  constructor() {
    settleArrayBufferDetaching() // this thread will transfer its batches: settle it before the replay is compiled
    this.worker = new Worker(new URL('./hit-rate-worker.js', import.meta.url), {
      workerData: {state: this.state},
    })
    // the batch buffers are replaced at every send: replace them once now, so that V8 does not compile them as
    // constants into the replay (code that did so is thrown away at the first send)
    this.numbers = new Float64Array(BATCH_ROWS * ROW_SLOTS)
    this.timestamps = new BigInt64Array(BATCH_ROWS)
    this.closed = new Promise((resolve) => {
      this.worker.on('message', (m: {closed: true; error?: string}) => resolve(m.error))
      this.worker.on('error', (e) => resolve(e.message))
      this.worker.on('exit', (code) => resolve(`the CSV writer thread exited with code ${code}`))
    })
  }

  private post(m: WriterMessage, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(m, transfer)
  }

  open(file: number, path: string): void {
    this.post({kind: 'open', file, path})
  }

  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    if (this.rows === this.timestamps.length) this.grow()
    const f = this.numbers
    const o = this.rows * ROW_SLOTS
    f[o] = file
    f[o + 1] = r.cached
    f[o + 2] = r.cachedAll
    f[o + 3] = r.read
    f[o + 4] = r.localHit
    f[o + 5] = r.remoteHit
    f[o + 6] = r.inputTokens
    f[o + 7] = r.bs
    f[o + 8] = acc.read_blocks
    f[o + 9] = acc.hit_blocks
    f[o + 10] = acc.input_tokens
    f[o + 11] = acc.local_hit_tokens
    f[o + 12] = acc.remote_hit_tokens
    f[o + 13] = acc.hit_tokens
    this.timestamps[this.rows++] = ts
  }

  /** rows of one timestamp can outnumber a batch: the buffers grow until they are completed */
  private grow(): void {
    const numbers = new Float64Array(this.numbers.length * 2)
    numbers.set(this.numbers)
    const timestamps = new BigInt64Array(this.timestamps.length * 2)
    timestamps.set(this.timestamps)
    this.numbers = numbers
    this.timestamps = timestamps
  }

  complete(accWrite: (file: number) => number): void {
    const f = this.numbers
    for (let r = this.completed; r < this.rows; r++) f[r * ROW_SLOTS + 14] = accWrite(f[r * ROW_SLOTS])
    this.completed = this.rows
    if (this.rows >= BATCH_ROWS) this.send()
  }

  private send(): void {
    if (this.completed === 0) return
    this.post(
      {kind: 'rows', n: this.completed, numbers: this.numbers.buffer, timestamps: this.timestamps.buffer},
      [this.numbers.buffer, this.timestamps.buffer],
    )
    this.numbers = new Float64Array(BATCH_ROWS * ROW_SLOTS)
    this.timestamps = new BigInt64Array(BATCH_ROWS)
    this.rows = this.completed = 0
    const s = this.state
    Atomics.add(s, 0, 1)
    // back-pressure: a slower writer makes the replay wait instead of letting batches pile up in memory
    let waited = 0
    for (let v = Atomics.load(s, 0); v > MAX_IN_FLIGHT && Atomics.load(s, 1) === 0; v = Atomics.load(s, 0)) {
      if (Atomics.wait(s, 0, v, 100) === 'timed-out' && (waited += 100) >= STALL_MS)
        throw lmtError('SIM_OUTPUT', 'the hit-rate CSV writer thread stopped making progress')
    }
  }

  async close(commit: boolean): Promise<void> {
    if (commit) this.send()
    this.post({kind: 'close', commit})
    const error = await this.closed
    await this.worker.terminate()
    if (error !== undefined && commit)
      throw lmtError('SIM_OUTPUT', error, {suggestions: ['check that the output directory is writable']})
  }
}
