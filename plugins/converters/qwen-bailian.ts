import {BaseConverter, type InputContext, type InputLine, JsonFloat, JsonSyntaxError, KeyList, parseJson, pythonInt} from '../../src/index.js'
import type {GetTrace, JsonObject, Trace, WriteTrace} from '../../src/index.js'

/** A row's timestamp in ns, or undefined when it is not a usable number. */
function scaledTimestamp(value: unknown, intScale: bigint, floatScale: number): bigint | undefined {
  if (value === undefined) return 0n
  if (typeof value === 'number') return BigInt(value) * intScale // the parser yields integer literals as numbers
  if (typeof value === 'bigint') return value * intScale
  if (typeof value === 'boolean') return value ? intScale : 0n
  if (value instanceof JsonFloat) {
    const product = value.value * floatScale
    return Number.isFinite(product) ? BigInt(Math.trunc(product)) : undefined
  }
  return undefined
}

/** Parses a line into an object, or reports why not. */
export function parseRow(line: InputLine, ctx: InputContext): JsonObject | undefined {
  let row: unknown
  try {
    row = parseJson(line.text)
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      ctx.skip(line, 'invalid_json', `invalid JSON: ${err.reason} at column ${err.column}`)
      return undefined
    }
    throw err
  }
  if (!(row instanceof Map)) {
    ctx.skip(line, 'not_an_object', 'the line is not a JSON object')
    return undefined
  }
  return row
}

/**
 * Qwen-Bailian rows (`timestamp` in seconds, `input_length`, one `hash_ids` entry per block): a get and a write per
 * row, keys from the chained prefix hash of the ids of the row's full blocks.
 */
export class QwenBailianConverter extends BaseConverter {
  static description = 'Qwen-Bailian usage traces (timestamp in s, one hash id per block)'

  /** ns per unit of an integer timestamp, and the double factor for float timestamps. */
  protected timestampIntScale = 1_000_000_000n
  protected timestampFloatScale = 1e9

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const blockSize = BigInt(this.getBlockSize(instanceId))
    if (blockSize <= 0n) throw new Error(`block_size must be positive for instance ${instanceId}`)
    for await (const line of ctx.lines()) {
      const row = parseRow(line, ctx)
      if (row === undefined) continue
      if (!row.has('input_length')) {
        ctx.skip(line, 'missing_input_length', 'missing input_length')
        continue
      }
      const inputLen = pythonInt(row.get('input_length'))
      if (inputLen === undefined) {
        ctx.skip(line, 'invalid_input_length', 'input_length is not an integer')
        continue
      }
      if (inputLen <= 0n) {
        ctx.skip(line, 'nonpositive_input_length', `input_length must be positive (got ${inputLen})`)
        continue
      }
      const hashIds = row.has('hash_ids') ? row.get('hash_ids') : []
      if (!Array.isArray(hashIds)) {
        ctx.skip(line, 'invalid_hash_ids', 'hash_ids is not an array')
        continue
      }
      const fullBlocks = inputLen / blockSize
      const n = fullBlocks < BigInt(hashIds.length) ? Number(fullBlocks) : hashIds.length
      let bad = -1
      for (let i = 0; i < n; i++) {
        const t = typeof hashIds[i]
        if (t !== 'number' && t !== 'bigint' && t !== 'boolean') {
          bad = i
          break
        }
      }
      if (bad >= 0) {
        ctx.skip(line, 'invalid_hash_ids', `hash_ids[${bad}] is not an integer`)
        continue
      }
      const keys = KeyList.prefixHash(hashIds as Array<number | bigint | boolean>, n)
      const ts = scaledTimestamp(row.get('timestamp'), this.timestampIntScale, this.timestampFloatScale)
      if (ts === undefined) {
        ctx.skip(line, 'invalid_timestamp', 'timestamp is not a finite number')
        continue
      }
      const get: GetTrace = this.createGetTrace(ts, keys, instanceId, {inputLen})
      yield get
      const write: WriteTrace = this.createWriteTrace(ts + 1n, get.keys, instanceId)
      yield write
      ctx.converted(line)
    }
  }
}
