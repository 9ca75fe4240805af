// A replay's hit-rate CSV rows kept as numbers (15 per row, and the timestamp) in typed arrays. The replay only
// stores them; they are formatted later, between replay batches (DeferredHitRateSink in hit-rate-sink.ts).
import {type AccumulatedCounts, newAccumulatedCounts, newReadRecord, type ReadRecord} from './hit-rate-csv.js'
import {grown} from '../../util/grown.js'

/** numbers per row: file, cached, cachedAll, read, localHit, remoteHit, inputTokens, bs, 6 totals, AccWriteBlocks */
export const ROW_SLOTS = 15

/** Rows of read records; `completed` of them have their AccWriteBlocks, the rest wait for it. */
export class HitRateRows {
  numbers: Float64Array
  timestamps: BigInt64Array
  rows = 0
  completed = 0

  constructor(capacity: number) {
    this.numbers = new Float64Array(capacity * ROW_SLOTS)
    this.timestamps = new BigInt64Array(capacity)
    // the arrays are replaced when they grow: replace them once now, so that V8 does not compile them as
    // constants into the replay (code that did so would be thrown away at the first replacement)
    this.numbers = new Float64Array(capacity * ROW_SLOTS)
    this.timestamps = new BigInt64Array(capacity)
  }

  add(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
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

  /** gives the waiting rows their AccWriteBlocks */
  complete(accWrite: (file: number) => number): void {
    const f = this.numbers
    for (let r = this.completed; r < this.rows; r++) f[r * ROW_SLOTS + 14] = accWrite(f[r * ROW_SLOTS])
    this.completed = this.rows
  }

  /** drops the completed rows (after they were written); waiting rows move to the front */
  dropCompleted(): void {
    const done = this.completed
    if (done === 0) return
    this.numbers.copyWithin(0, done * ROW_SLOTS, this.rows * ROW_SLOTS)
    this.timestamps.copyWithin(0, done, this.rows)
    this.rows -= done
    this.completed = 0
  }

  /** rows of one timestamp can outnumber the capacity: the arrays grow until the rows are completed */
  private grow(): void {
    this.numbers = grown(this.numbers, this.numbers.length * 2)
    this.timestamps = grown(this.timestamps, this.timestamps.length * 2)
  }
}

const acc = newAccumulatedCounts()
const record = newReadRecord()

/** What {@link writeRows} hands the rows to (the inline sink of hit-rate-sink.ts, which imports this module). */
export interface HitRateRowTarget {
  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void
  complete(accWrite: (file: number) => number): void
}

/** Formats the first `n` rows of `numbers`/`timestamps` (all completed) into `out`, in order. */
export function writeRows(
  out: HitRateRowTarget,
  numbers: Float64Array,
  timestamps: BigInt64Array,
  n: number,
): void {
  let accWrite = 0
  const accWriteOf = (): number => accWrite
  for (let r = 0; r < n; r++) {
    const o = r * ROW_SLOTS
    acc.read_blocks = numbers[o + 8]
    acc.hit_blocks = numbers[o + 9]
    acc.input_tokens = numbers[o + 10]
    acc.local_hit_tokens = numbers[o + 11]
    acc.remote_hit_tokens = numbers[o + 12]
    acc.hit_tokens = numbers[o + 13]
    record.cached = numbers[o + 1]
    record.cachedAll = numbers[o + 2]
    record.read = numbers[o + 3]
    record.localHit = numbers[o + 4]
    record.remoteHit = numbers[o + 5]
    record.inputTokens = numbers[o + 6]
    record.bs = numbers[o + 7]
    out.row(numbers[o], timestamps[r], record, acc)
    accWrite = numbers[o + 14]
    out.complete(accWriteOf)
  }
}
