// The hit-rate CSV of an instance of a tiered configuration: the 24 columns of every run, then the July-2026
// Optimizer's four groups of tier columns (hit tokens, hit rate, accumulated hit rate, blocks held; one column per
// tier in priority order). The tier fields of a row are known at its read, so each row waits only for its
// AccWriteBlocks, as in the untiered sink.
import {formatG} from '../../util/format-g.js'
import {type AccumulatedCounts, CSV_HEADER, type HitRateCsv, type ReadRecord} from './hit-rate-csv.js'
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

/** One read's tier fields: hit tokens, blocks held, and the running hit tokens per tier. */
export interface TierRecord {
  hitTokens: readonly number[]
  accHitTokens: readonly number[]
  blocks: readonly number[]
  inputTokens: number
  accInputTokens: number
}

/** The tier fields of a row (without a leading comma). */
export function tierFields(r: TierRecord): string {
  const n = r.hitTokens.length
  const input = r.inputTokens
  const accInput = r.accInputTokens
  let out = ''
  for (let t = 0; t < n; t++) out += `${r.hitTokens[t]},`
  for (let t = 0; t < n; t++) out += `${formatG(input > 0 ? r.hitTokens[t] / input : 0)},`
  for (let t = 0; t < n; t++) out += `${formatG(accInput > 0 ? r.accHitTokens[t] / accInput : 0)},`
  for (let t = 0; t < n; t++) out += t === n - 1 ? `${r.blocks[t]}` : `${r.blocks[t]},`
  return out
}

/** The untiered sink's rows, each followed by the tier fields it was handed at its read. */
export class TieredHitRateSink extends InlineHitRateSink {
  private readonly pendingTail: string[] = []
  /** the tier fields of the next row handed to {@link row} */
  nextTail = ''

  /** `columns(file)`: the tier column names of the file */
  constructor(private readonly columns: (file: number) => string) {
    super()
  }

  protected override header(file: number): string {
    return `${CSV_HEADER},${this.columns(file)}`
  }

  protected override endRow(csv: HitRateCsv, i: number, accWrite: number): void {
    csv.write(`${accWrite},${this.pendingTail[i]}\n`)
  }

  override row(file: number, ts: bigint, r: ReadRecord, acc: AccumulatedCounts): void {
    super.row(file, ts, r, acc)
    this.pendingTail.push(this.nextTail)
  }

  override complete(accWrite: (file: number) => number): void {
    super.complete(accWrite)
    this.pendingTail.length = 0
  }
}
