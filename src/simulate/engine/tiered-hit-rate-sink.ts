// The hit-rate CSV of an instance of a tiered configuration: the 24 columns of every run, then the July-2026
// Optimizer's four groups of tier columns (hit tokens, hit rate, accumulated hit rate, blocks held; one column per
// tier in priority order). The tier fields of a row are known at its read, so each row waits only for its
// AccWriteBlocks, as in the untiered sink; they wait as ASCII bytes, written as the row prefixes are.
import {
  type AccumulatedCounts,
  CSV_HEADER,
  CsvRowBuffer,
  type HitRateCsv,
  type ReadRecord,
} from './hit-rate-csv.js'
import {InlineHitRateSink} from './hit-rate-sink.js'

/** The tier columns' names for tiers named `names` (in priority order). */
export function tierColumns(names: readonly string[]): string {
  const t = names.map((n, i) => `Tier${i}(${n})`)
  return [
    ...t.map((c) => `${c}_HitTokens`),
    ...t.map((c) => `${c}_HitRate`),
    ...t.map((c) => `Acc${c}_HitRate`),
    ...t.map((c) => `${c}_BlockNum`),
  ].join(',')
}

const NEWLINE = new Uint8Array([0x0a])

/** The untiered sink's rows, each followed by the tier fields it was handed before it ({@link tierFields}). */
export class TieredHitRateSink extends InlineHitRateSink {
  /** the pending rows' tier fields, each followed by a comma, and where each row's end */
  private readonly tails = new CsvRowBuffer()
  private readonly tailEnd: number[] = []
  /** the tier fields of the next row handed to {@link row} end here */
  private nextTailEnd = 0
  /** a row's AccWriteBlocks and its comma */
  private readonly accWrite = new CsvRowBuffer()

  /** `columns(file)`: the tier column names of the file */
  constructor(private readonly columns: (file: number) => string) {
    super()
  }

  /**
   * The tier fields of the next row: per tier in priority order its hit tokens (`hitBlocks` × `blockSize`), its hit
   * rate, its accumulated hit rate (`accHitTokens` over `accInputTokens`) and the blocks it holds.
   */
  tierFields(
    hitBlocks: readonly number[],
    blockSize: number,
    accHitTokens: readonly number[],
    tiers: ReadonlyArray<{readonly size: number}>,
    inputTokens: number,
    accInputTokens: number,
  ): void {
    const out = this.tails
    const n = hitBlocks.length
    for (let t = 0; t < n; t++) out.int(hitBlocks[t] * blockSize)
    for (let t = 0; t < n; t++) out.rate(hitBlocks[t] * blockSize, inputTokens)
    for (let t = 0; t < n; t++) out.rate(accHitTokens[t], accInputTokens)
    for (let t = 0; t < n; t++) out.int(tiers[t].size)
    this.nextTailEnd = out.used
  }

  protected override header(file: number): string {
    return `${CSV_HEADER},${this.columns(file)}`
  }

  protected override endRow(csv: HitRateCsv, i: number, accWrite: number): void {
    const acc = this.accWrite
    acc.clear()
    acc.int(accWrite)
    csv.bytes(acc.buf, 0, acc.used)
    // the row's fields without the last one's comma
    csv.bytes(this.tails.buf, i === 0 ? 0 : this.tailEnd[i - 1], this.tailEnd[i] - 1)
    csv.bytes(NEWLINE, 0, 1)
  }

  override row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    super.row(file, ts, r, acc)
    this.tailEnd.push(this.nextTailEnd)
  }

  override complete(accWrite: (file: number) => number): void {
    super.complete(accWrite)
    this.tails.clear()
    this.tailEnd.length = 0
    this.nextTailEnd = 0
  }
}
