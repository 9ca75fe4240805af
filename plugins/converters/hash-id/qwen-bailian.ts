import {BaseConverter, type FormatSample, type InputContext, type Trace} from 'lmt'
import {looksLikeQwenBailian} from './_lib/samples.js'
import {hashIdRowBatches} from './_lib/input.js'

/**
 * Qwen-Bailian rows (`timestamp` in seconds, `input_length`, one `hash_ids` entry per block): a get and a write per
 * row, keys from the chained prefix hash of the ids of the row's full blocks. Parsing and hashing run on worker
 * threads for large inputs; timestamps are allocated here, in input order.
 */
export class QwenBailianConverter extends BaseConverter {
  static description = 'Qwen-Bailian usage traces (timestamp in s, one hash id per block)'

  static looksLike(sample: FormatSample): boolean {
    return looksLikeQwenBailian(sample)
  }

  /** ns per unit of an integer timestamp, and the double factor for float timestamps. */
  protected timestampIntScale = 1_000_000_000n
  protected timestampFloatScale = 1e9

  /** A get and a write per row, in input order; a row's line is counted once its write has been taken. */
  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const blockSize = this.getBlockSize(instanceId)
    if (!(blockSize > 0)) throw new Error(`block_size must be positive for instance ${instanceId}`)
    const config = {blockSize, intScale: this.timestampIntScale, floatScale: this.timestampFloatScale}
    for await (const rows of hashIdRowBatches(ctx, config))
      while (rows.next()) {
        if (rows.problem) {
          ctx.skip(rows.line(), rows.problem.skip, rows.problem.message)
          continue
        }
        const get = this.createGetTrace(rows.ts, rows.keys, instanceId, {inputLen: rows.inputLen})
        yield get
        yield this.createWriteTrace(rows.ts + 1n, get.keys, instanceId)
        ctx.converted(rows.line())
      }
  }
}
