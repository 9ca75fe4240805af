// Where a replay's hit-rate CSV rows go (docs/simulate.md §5.2). A read record's fields are known at its get, its
// AccWriteBlocks only once replay moves past its timestamp; a sink holds the rows in between.
import {lmtError} from '../../errors.js'
import {
  type AccumulatedCounts,
  CSV_HEADER,
  CsvRowBuffer,
  HitRateCsv,
  type ReadRecord,
  writeCsvRowPrefix,
} from './hit-rate-csv.js'
import {HitRateRows, writeRows} from './hit-rate-rows.js'
import {targetOfTemp} from '../../util/atomic-write.js'

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

/**
 * Keeps the rows as numbers during the replay and formats and writes them on {@link drain}, which the runner
 * calls between replay batches: output writing stays off the replay's path (and out of its timer, docs/simulate.md
 * §5.4) without a second thread competing for the cores with the replay and its compiler.
 */
export class DeferredHitRateSink implements HitRateSink {
  private readonly out = new InlineHitRateSink()
  private readonly rows = new HitRateRows(2048)

  open(file: number, path: string): void {
    this.out.open(file, path)
  }

  row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    this.rows.add(file, ts, r, acc)
  }

  complete(accWrite: (file: number) => number): void {
    this.rows.complete(accWrite)
    if (this.rows.completed >= DEFERRED_ROWS) this.drain()
  }

  drain(): void {
    const rows = this.rows
    writeRows(this.out, rows.numbers, rows.timestamps, rows.completed)
    rows.dropCompleted()
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
