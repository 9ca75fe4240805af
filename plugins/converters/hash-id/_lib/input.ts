// How the Qwen-Bailian / Mooncake converters read their input: rows decoded off the main thread (rows.ts,
// through the fast lane when the context has one) and handed over a batch at a time, with a cursor over each batch
// so that a converter reads a row's timestamp, input length and keys without decoding the batch's columns.
import {
  type InputContext,
  type InputLine,
  KeyList,
  KeySlabs,
  type LineBatch,
  type LineProblem,
  mapInputBatches,
} from 'lmt'
import {availableParallelism} from 'node:os'
import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {HashIdBatch, HashIdRowConfig} from './rows.js'

// the mapper runs on worker threads
const ROW_DECODER = new URL(`./rows${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href
/** every core but the main thread's, 1 to 3 */
const MAPPER_THREADS = Math.max(1, Math.min(availableParallelism() - 1, 3))
const NO_KEYS = KeyList.from([])

/** A cursor over the rows of one decoded batch: {@link next} moves it, the fields describe the row it is on. */
export class HashIdRows {
  /** the row's timestamp (ns) and input length (valid when {@link problem} is undefined) */
  ts = 0n
  inputLen: bigint | number = 0
  /** why the row's line cannot be used (it is to be skipped), or undefined */
  problem: LineProblem | undefined = undefined
  /** the row's index in the batch */
  index = -1
  private nextExact = 0
  private keyStart = 0
  private exactKeys: KeyList | undefined = undefined
  private slabs: KeySlabs | undefined = undefined

  constructor(
    private readonly lines: LineBatch,
    readonly batch: HashIdBatch,
  ) {}

  /** the row's keys */
  get keys(): KeyList {
    if (this.exactKeys !== undefined) return this.exactKeys
    if (this.problem !== undefined) return NO_KEYS
    const b = this.batch
    const i = this.index
    this.slabs ??= new KeySlabs(b.words, b.text)
    return this.slabs.list(this.keyStart, b.keyEnd[i], b.textStart[i], b.textEnd[i])
  }

  /** Moves to the next row; false after the last. */
  next(): boolean {
    const i = this.index + 1
    if (i >= this.lines.count) return false
    const b = this.batch
    if (i > 0) this.keyStart = b.keyEnd[i - 1]
    this.index = i
    this.exactKeys = undefined
    this.problem = undefined
    if (b.kind[i] === 0) {
      this.ts = b.ts[i]
      this.inputLen = b.inputLen[i]
    } else {
      const r = b.exact[this.nextExact++]
      if ('skip' in r) this.problem = r
      else {
        this.exactKeys = KeyList.fromParts(r.words, r.json)
        this.ts = r.ts
        this.inputLen = r.inputLen
      }
    }
    return true
  }

  /** The row's line (for ctx.skip and ctx.converted). */
  line(): InputLine {
    return this.lines.line(this.index)
  }
}

/** The input's rows, a decoded batch at a time, in input order. */
export async function* hashIdRowBatches(
  ctx: InputContext,
  config: HashIdRowConfig,
): AsyncGenerator<HashIdRows> {
  // the cursor reads a batch's lines (ctx.skip, ctx.converted) only until the next batch is asked for
  const spec = {module: ROW_DECODER, config, workers: MAPPER_THREADS, linesDoneAtNext: true}
  for await (const {lines, result} of mapInputBatches<HashIdBatch>(ctx, spec))
    yield new HashIdRows(lines, result)
}
