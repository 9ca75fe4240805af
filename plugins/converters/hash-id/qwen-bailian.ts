import {availableParallelism} from 'node:os'
import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'
import {
  BaseConverter,
  type FormatSample,
  type InputContext,
  KeyList,
  KeySlabs,
  mapInputBatches,
  type Trace,
} from 'lmt'
import type {HashIdBatch, HashIdRowConfig} from './_lib/rows.js'

// the row decoder runs on worker threads
const ROW_DECODER = new URL(`./_lib/rows${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href
/** every core but the main thread's, 1 to 3 */
const MAPPER_THREADS = Math.max(1, Math.min(availableParallelism() - 1, 3))

/** the fields of the newer Qwen-Bailian rows, which Mooncake rows do not have */
const QWEN_FIELDS = ['chat_id', 'parent_chat_id', 'turn', 'type']
/** a timestamp written with a fraction or an exponent: seconds (Qwen-Bailian); Mooncake's are integer ms */
const FRACTIONAL_TIMESTAMP = /"timestamp"\s*:\s*-?\d+(?:\.\d*|[eE])/

/**
 * Which of the two formats a first line is a row of (ConverterClass.looksLike): a timestamp, input_length and the
 * block hash ids, with the chat fields or a timestamp in (fractional) seconds for Qwen-Bailian, without both for
 * Mooncake (integer milliseconds); undefined for any other line.
 */
export function hashIdFormat(s: FormatSample): 'qwen_bailian' | 'mooncake' | undefined {
  const r = s.record as Record<string, unknown> | null
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return undefined
  if (!Array.isArray(r.hash_ids) || !('input_length' in r) || !('timestamp' in r)) return undefined
  return QWEN_FIELDS.some((f) => f in r) || FRACTIONAL_TIMESTAMP.test(s.line) ? 'qwen_bailian' : 'mooncake'
}

/**
 * Qwen-Bailian rows (`timestamp` in seconds, `input_length`, one `hash_ids` entry per block): a get and a write per
 * row, keys from the chained prefix hash of the ids of the row's full blocks. Parsing and hashing run on worker
 * threads for large inputs (`_lib/rows.ts`, a batch of rows at a time); timestamps are allocated here, in input order.
 */
export class QwenBailianConverter extends BaseConverter {
  static description = 'Qwen-Bailian usage traces (timestamp in s, one hash id per block)'

  static looksLike(sample: FormatSample): boolean {
    return hashIdFormat(sample) === 'qwen_bailian'
  }

  /**
   * Its traces come in the input's order (a row's get, then its write 1 ns later), and the published traces are in
   * time order: a window of 2 MiB of records (~3,000 traces) absorbs local disorder, and more makes the sorter spill
   * (the same bytes, more slowly). The usual 8 MiB kept four times the records alive: 1.2× the peak memory and
   * 1.05× the CPU on 100k rows.
   */
  readonly sortWindowBytes = 2 << 20

  /** ns per unit of an integer timestamp, and the double factor for float timestamps. */
  protected timestampIntScale = 1_000_000_000n
  protected timestampFloatScale = 1e9

  /** A get and a write per row, in input order; a row's line is counted once its write has been taken. */
  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const blockSize = this.getBlockSize(instanceId)
    if (!(blockSize > 0)) throw new Error(`block_size must be positive for instance ${instanceId}`)
    const config: HashIdRowConfig = {
      blockSize,
      intScale: this.timestampIntScale,
      floatScale: this.timestampFloatScale,
    }
    // a batch's lines are read (ctx.skip, ctx.converted) only until the next batch is asked for
    const spec = {module: ROW_DECODER, config, workers: MAPPER_THREADS, linesDoneAtNext: true}
    for await (const {lines, result: b} of mapInputBatches<HashIdBatch>(ctx, spec)) {
      const slabs = new KeySlabs(b.words, b.text)
      let exact = 0 // the next entry of b.exact
      for (let i = 0; i < lines.count; i++) {
        let ts = b.ts[i]
        let inputLen: bigint | number = b.inputLen[i]
        let keys: KeyList
        if (b.kind[i] === 0)
          keys = slabs.list(i > 0 ? b.keyEnd[i - 1] : 0, b.keyEnd[i], b.textStart[i], b.textEnd[i])
        else {
          const r = b.exact[exact++]
          if ('skip' in r) {
            ctx.skip(lines.line(i), r.skip, r.message)
            continue
          }
          ;({ts, inputLen} = r)
          keys = KeyList.fromParts(r.words, r.json)
        }
        const get = this.createGetTrace(ts, keys, instanceId, {inputLen})
        yield get
        yield this.createWriteTrace(ts + 1n, get.keys, instanceId)
        ctx.converted(lines.line(i))
      }
    }
  }
}
