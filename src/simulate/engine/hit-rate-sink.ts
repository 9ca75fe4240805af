// Where a replay's hit-rate CSV rows go (docs/simulate.md §5.2). A read record's fields are known at its get, its
// AccWriteBlocks only once replay moves past its timestamp; a sink holds the rows in between.
import {lmtError} from '../../errors.js'
import {
  type AccumulatedCounts,
  CSV_HEADER,
  CsvRowBuffer,
  HitRateCsv,
  newAccumulatedCounts,
  newReadRecord,
  type ReadRecord,
  writeCsvRowPrefix,
} from './hit-rate-csv.js'
import {targetOfTemp} from '../../util/atomic-write.js'
import {grown} from '../../util/grown.js'

export interface HitRateSink {
  /** opens the CSV of file number `file` (numbers are dense, from 0, in order of first use) */
  open(file: number, path: string): void
  /** a read record of `file` (its objects are read now, not kept), pending until the next {@link complete} */
  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void
  /** closes the pending rows, each with AccWriteBlocks = `accWrite(file)` */
  complete(accWrite: (file: number) => number): void
  /** renames the files into place (commit) or removes them; the rows must have been completed */
  close(commit: boolean): Promise<void> | void
  /** writes the completed rows out now (a sink that defers its output); called between replay batches */
  drain?(): void
}

/** Formats and writes the rows on this thread. */
export class InlineHitRateSink implements HitRateSink {
  private readonly files: HitRateCsv[] = []
  // pending rows: their prefixes in one byte buffer, each row's file and end offset
  private readonly prefixes = new CsvRowBuffer()
  private readonly pendingFile: number[] = []
  private readonly pendingEnd: number[] = []

  /** the CSV header of file number `file` */
  protected header(_file: number): string {
    return CSV_HEADER
  }

  /** ends the pending row number `i` of `csv` after its prefix (whose last byte is a comma) */
  protected endRow(csv: HitRateCsv, _i: number, accWrite: number): void {
    csv.intLine(accWrite)
  }

  open(file: number, path: string): void {
    try {
      this.files[file] = new HitRateCsv(path, this.header(file))
    } catch (err) {
      throw lmtError('SIM_OUTPUT_FAILED', `cannot write ${targetOfTemp(path)}`, (err as Error).message, {
        suggestions: ['check that the output directory is writable'],
      })
    }
  }

  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    writeCsvRowPrefix(this.prefixes, ts, r, acc)
    this.pendingFile.push(file)
    this.pendingEnd.push(this.prefixes.used)
  }

  complete(accWrite: (file: number) => number): void {
    let start = 0
    for (let i = 0; i < this.pendingFile.length; i++) {
      const end = this.pendingEnd[i]
      const csv = this.files[this.pendingFile[i]]
      csv.bytes(this.prefixes.buf, start, end)
      this.endRow(csv, i, accWrite(this.pendingFile[i]))
      start = end
    }
    this.prefixes.clear()
    this.pendingFile.length = 0
    this.pendingEnd.length = 0
  }

  close(commit: boolean): void {
    const files = this.files.filter((f) => f !== undefined) // (an open that failed left a hole)
    this.files.length = 0
    if (!commit) {
      for (const f of files) f.abandon()
      return
    }
    // every file is written out (the run's commit renames them with its other outputs): a failure leaves no CSV
    try {
      for (const f of files) f.finish()
    } catch (err) {
      for (const f of files) f.abandon()
      throw err
    }
  }
}

/** completed rows a deferred sink holds before it writes them out by itself (bounds its memory) */
const DEFERRED_ROWS = 1 << 14

/** numbers per row: file, cached, cachedAll, read, localHit, remoteHit, inputTokens, bs, 6 totals, AccWriteBlocks */
const ROW_SLOTS = 15

/**
 * Keeps the rows as numbers (15 per row, and the timestamp, in typed arrays) during the replay and formats and
 * writes them on {@link drain}, which the runner calls between replay batches: output writing stays off the
 * replay's path (and out of its timer, docs/simulate.md §5.4) without a second thread competing for the cores with
 * the replay and its compiler. `completed` of the rows have their AccWriteBlocks, the rest wait for it.
 */
export class DeferredHitRateSink implements HitRateSink {
  private readonly out = new InlineHitRateSink()
  private numbers = new Float64Array(2048 * ROW_SLOTS)
  private timestamps = new BigInt64Array(2048)
  private rows = 0
  private completed = 0
  private readonly acc = newAccumulatedCounts()
  private readonly record = newReadRecord()

  constructor() {
    // the arrays are replaced when they grow: replace them once now, so that V8 does not compile them as
    // constants into the replay (code that did so would be thrown away at the first replacement)
    this.numbers = new Float64Array(2048 * ROW_SLOTS)
    this.timestamps = new BigInt64Array(2048)
  }

  open(file: number, path: string): void {
    this.out.open(file, path)
  }

  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    // rows of one timestamp can outnumber the capacity: the arrays grow until the rows are completed
    if (this.rows === this.timestamps.length) {
      this.numbers = grown(this.numbers, this.numbers.length * 2)
      this.timestamps = grown(this.timestamps, this.timestamps.length * 2)
    }
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

  complete(accWrite: (file: number) => number): void {
    const f = this.numbers
    for (let r = this.completed; r < this.rows; r++) f[r * ROW_SLOTS + 14] = accWrite(f[r * ROW_SLOTS])
    this.completed = this.rows
    if (this.completed >= DEFERRED_ROWS) this.drain()
  }

  /** formats the completed rows into their files, in order; waiting rows move to the front */
  drain(): void {
    const {numbers: f, acc, record} = this
    const done = this.completed
    let accWrite = 0
    const accWriteOf = (): number => accWrite
    for (let r = 0; r < done; r++) {
      const o = r * ROW_SLOTS
      record.cached = f[o + 1]
      record.cachedAll = f[o + 2]
      record.read = f[o + 3]
      record.localHit = f[o + 4]
      record.remoteHit = f[o + 5]
      record.inputTokens = f[o + 6]
      record.bs = f[o + 7]
      acc.read_blocks = f[o + 8]
      acc.hit_blocks = f[o + 9]
      acc.input_tokens = f[o + 10]
      acc.local_hit_tokens = f[o + 11]
      acc.remote_hit_tokens = f[o + 12]
      acc.hit_tokens = f[o + 13]
      this.out.row(f[o], this.timestamps[r], record, acc)
      accWrite = f[o + 14]
      this.out.complete(accWriteOf)
    }
    if (done === 0) return
    f.copyWithin(0, done * ROW_SLOTS, this.rows * ROW_SLOTS)
    this.timestamps.copyWithin(0, done, this.rows)
    this.rows -= done
    this.completed = 0
  }

  close(commit: boolean): void {
    try {
      if (commit) this.drain()
    } catch (err) {
      this.out.close(false)
      throw err
    }
    this.out.close(commit)
  }
}
