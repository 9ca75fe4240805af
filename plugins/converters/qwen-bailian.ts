import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'
import {availableParallelism} from 'node:os'
import {BaseConverter, type InputContext, KeyList} from '../../src/index.js'
import type {GetTrace, Trace, WriteTrace} from '../../src/index.js'
import type {HashIdRowConfig, HashIdRowResult} from './_shared/hash-id-rows.js'

// the row decoder runs on worker threads; it must be the same kind of file as this one (.js built, .ts in dev)
const ROW_DECODER = new URL(
  `./_shared/hash-id-rows${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
).href

/**
 * Qwen-Bailian rows (`timestamp` in seconds, `input_length`, one `hash_ids` entry per block): a get and a write per
 * row, keys from the chained prefix hash of the ids of the row's full blocks. Parsing and hashing run on worker
 * threads for large inputs; timestamps are allocated here, in input order.
 */
export class QwenBailianConverter extends BaseConverter {
  static description = 'Qwen-Bailian usage traces (timestamp in s, one hash id per block)'

  /** ns per unit of an integer timestamp, and the double factor for float timestamps. */
  protected timestampIntScale = 1_000_000_000n
  protected timestampFloatScale = 1e9

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const blockSize = this.getBlockSize(instanceId)
    if (!(blockSize > 0)) throw new Error(`block_size must be positive for instance ${instanceId}`)
    const config: HashIdRowConfig = {
      blockSize,
      intScale: this.timestampIntScale,
      floatScale: this.timestampFloatScale,
    }
    const workers = Math.max(1, Math.min(availableParallelism() - 1, 3))
    for await (const {line, result} of ctx.mapLines<HashIdRowResult>({
      module: ROW_DECODER,
      config,
      workers,
    })) {
      if ('skip' in result) {
        ctx.skip(line, result.skip, result.message)
        continue
      }
      const keys = KeyList.fromParts(result.words, result.json)
      const get: GetTrace = this.createGetTrace(result.ts, keys, instanceId, {inputLen: result.inputLen})
      yield get
      const write: WriteTrace = this.createWriteTrace(result.ts + 1n, get.keys, instanceId)
      yield write
      ctx.converted(line)
    }
  }
}
