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
} from '../../../src/converter.js'
import type {HashIdBatch, HashIdRowConfig} from './hash-id-rows.js'
import {mapperThreads, sharedModule} from './mapper-module.js'
import type {LineProblem} from './rows.js'

// the mapper runs on worker threads
const ROW_DECODER = sharedModule('hash-id-rows')
const NO_KEYS = KeyList.from([])
/** texts waiting to go back to the row decoders, at most */
const MAX_SPARES = 8

/** The int64 words of a key list's JSON text (`[k0, k1, …]`, decimal). */
function wordsOfJson(json: Uint8Array): BigInt64Array {
  const digits = Buffer.from(json.buffer, json.byteOffset + 1, json.byteLength - 2).toString('latin1')
  return BigInt64Array.from(digits.split(', '), (k) => BigInt(k))
}

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
    /** hands the batch's text back to the row decoders to be reused (once nothing reads it any more) */
    readonly recycleText: () => void = () => {},
  ) {}

  /** the row's keys (made when asked for: a row whose lines were encoded ahead never needs them) */
  get keys(): KeyList {
    if (this.exactKeys !== undefined) return this.exactKeys
    if (this.problem !== undefined) return NO_KEYS
    const b = this.batch
    const i = this.index
    this.slabs ??= new KeySlabs(b.words, b.text)
    if (b.words.length > 0 || b.keyEnd[i] === this.keyStart)
      return this.slabs.list(this.keyStart, b.keyEnd[i], b.textStart[i], b.textEnd[i])
    // a batch decoded with its lines carries no words (they are rarely needed): read back from the keys' text
    const json = b.text.subarray(b.textStart[i], b.textEnd[i])
    return (this.exactKeys = KeyList.fromParts(wordsOfJson(json), json))
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
  // texts the consumer is done with go back to the row decoders with the next batch (with lines: a few MB each)
  const spares: ArrayBuffer[] = []
  const spec = {
    module: ROW_DECODER,
    config,
    workers: mapperThreads(),
    // the cursor reads a batch's lines (ctx.skip, ctx.converted) only until the next batch is asked for
    linesDoneAtNext: true,
    takeSpares: () => spares.splice(0),
  }
  for await (const {lines, result} of mapInputBatches<HashIdBatch>(ctx, spec)) {
    const text = result.text.buffer as ArrayBuffer
    yield new HashIdRows(lines, result, () => {
      if (spares.length < MAX_SPARES) spares.push(text)
    })
  }
}
