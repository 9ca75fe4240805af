// How the Qwen-Bailian / Mooncake converters read their input: rows decoded off the main thread (hash-id-rows.ts,
// through the fast lane when the context has one) and handed over a batch at a time, with a cursor over each batch
// so that a converter reads a row's timestamp, input length and keys without decoding the batch's columns.
import {
  type InputContext,
  type InputLine,
  KeyList,
  KeySlabs,
  type LineBatch,
  mapInputBatches,
} from '../../../src/index.js'
import type {HashIdBatch, HashIdRowConfig} from './hash-id-rows.js'
import {mapperThreads, sharedModule} from './mapper-module.js'
import type {LineProblem} from './rows.js'

// the mapper runs on worker threads
const ROW_DECODER = sharedModule('hash-id-rows')
const NO_KEYS = KeyList.from([])

/** A cursor over the rows of one decoded batch: {@link next} moves it, the fields describe the row it is on. */
export class HashIdRows {
  /** the row's keys, timestamp (ns) and input length (valid when {@link problem} is undefined) */
  keys: KeyList = NO_KEYS
  ts = 0n
  inputLen: bigint | number = 0
  /** why the row's line cannot be used (it is to be skipped), or undefined */
  problem: LineProblem | undefined = undefined
  private i = -1
  private nextExact = 0
  private keyStart = 0
  private textStart = 0
  private readonly slabs: KeySlabs

  constructor(
    private readonly lines: LineBatch,
    private readonly batch: HashIdBatch,
  ) {
    this.slabs = new KeySlabs(batch.words, batch.text)
  }

  /** Moves to the next row; false after the last. */
  next(): boolean {
    const i = ++this.i
    if (i >= this.lines.count) return false
    const b = this.batch
    if (b.kind[i] === 0) {
      this.keys = this.slabs.list(this.keyStart, b.keyEnd[i], this.textStart, b.textEnd[i])
      this.ts = b.ts[i]
      this.inputLen = b.inputLen[i]
      this.problem = undefined
    } else {
      const r = b.exact[this.nextExact++]
      if ('skip' in r) this.problem = r
      else {
        this.keys = KeyList.fromParts(r.words, r.json)
        this.ts = r.ts
        this.inputLen = r.inputLen
        this.problem = undefined
      }
    }
    this.keyStart = b.keyEnd[i]
    this.textStart = b.textEnd[i]
    return true
  }

  /** The row's line (for ctx.skip and ctx.converted). */
  line(): InputLine {
    return this.lines.line(this.i)
  }
}

/** The input's rows, a decoded batch at a time, in input order. */
export async function* hashIdRowBatches(
  ctx: InputContext,
  config: HashIdRowConfig,
): AsyncGenerator<HashIdRows> {
  const spec = {module: ROW_DECODER, config, workers: mapperThreads()}
  for await (const {lines, result} of mapInputBatches<HashIdBatch>(ctx, spec))
    yield new HashIdRows(lines, result)
}
