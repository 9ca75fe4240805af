import {BaseConverter, type InputContext, KeyList, KeySlabs} from '../../src/index.js'
import type {FormatSample, GetTrace, Trace, WriteTrace} from '../../src/index.js'
import {looksLikeQwenBailian} from './_shared/format-samples.js'
import type {HashIdBatch, HashIdRowConfig} from './_shared/hash-id-rows.js'
import {mapperThreads, sharedModule} from './_shared/mapper-module.js'

// the mapper runs on worker threads
const ROW_DECODER = sharedModule('hash-id-rows')

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

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const blockSize = this.getBlockSize(instanceId)
    if (!(blockSize > 0)) throw new Error(`block_size must be positive for instance ${instanceId}`)
    const config: HashIdRowConfig = {
      blockSize,
      intScale: this.timestampIntScale,
      floatScale: this.timestampFloatScale,
    }
    const workers = mapperThreads()
    for await (const {lines, result} of ctx.mapLineBatches<HashIdBatch>({
      module: ROW_DECODER,
      config,
      workers,
    })) {
      const {kind, ts, inputLen, keyEnd, textEnd, exact} = result
      const slabs = new KeySlabs(result.words, result.text)
      let nextExact = 0
      let keyStart = 0
      let textStart = 0
      for (let i = 0; i < lines.count; i++) {
        let keys: KeyList
        let t: bigint
        let len: bigint | number
        if (kind[i] === 0) {
          keys = slabs.list(keyStart, keyEnd[i], textStart, textEnd[i])
          t = ts[i]
          len = inputLen[i]
        } else {
          const r = exact[nextExact++]
          if ('skip' in r) {
            ctx.skip(lines.line(i), r.skip, r.message)
            continue
          }
          keys = KeyList.fromParts(r.words, r.json)
          t = r.ts
          len = r.inputLen
        }
        keyStart = keyEnd[i]
        textStart = textEnd[i]
        const get: GetTrace = this.createGetTrace(t, keys, instanceId, {inputLen: len})
        yield get
        const write: WriteTrace = this.createWriteTrace(t + 1n, get.keys, instanceId)
        yield write
        ctx.converted(lines.line(i))
      }
    }
  }
}
