// The hit-rate CSV of an instance of a tiered configuration: the 24 columns of every run, then the July-2026
// Optimizer's four groups of tier columns (hit tokens, hit rate, accumulated hit rate, blocks held; one column per
// tier in priority order). The tier fields of a row are known at its read, so each row waits only for its
// AccWriteBlocks, as in the untiered sink.
import {lmtError} from '../../errors.js'
import {targetOfTemp} from '../../util/atomic-write.js'
import {formatG} from './format-g.js'
import {
  type AccumulatedCounts,
  CSV_HEADER,
  CsvRowBuffer,
  HitRateCsv,
  type ReadRecord,
  writeCsvRowPrefix,
} from './hit-rate-csv.js'
import type {HitRateSink} from './hit-rate-sink.js'

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

export class TieredHitRateSink implements HitRateSink {
  private readonly files: HitRateCsv[] = []
  private readonly prefixes = new CsvRowBuffer()
  private readonly pendingFile: number[] = []
  private readonly pendingEnd: number[] = []
  private readonly pendingTail: string[] = []
  /** the tier fields of the next row handed to {@link row} */
  nextTail = ''

  /** `header(file)`: the tier column names of the file */
  constructor(private readonly header: (file: number) => string) {}

  open(file: number, path: string): void {
    try {
      this.files[file] = new HitRateCsv(path, `${CSV_HEADER},${this.header(file)}`)
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
    this.pendingTail.push(this.nextTail)
  }

  complete(accWrite: (file: number) => number): void {
    let start = 0
    for (let i = 0; i < this.pendingFile.length; i++) {
      const file = this.files[this.pendingFile[i]]
      const end = this.pendingEnd[i]
      file.bytes(this.prefixes.buf, start, end)
      file.write(`${accWrite(this.pendingFile[i])},${this.pendingTail[i]}\n`)
      start = end
    }
    this.prefixes.clear()
    this.pendingFile.length = 0
    this.pendingEnd.length = 0
    this.pendingTail.length = 0
  }

  close(commit: boolean): void {
    const files = this.files.filter((f) => f !== undefined)
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
