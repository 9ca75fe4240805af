// The order-independent part of a Qwen-Bailian / Mooncake row: parse, validate, hash the block ids and format the
// keys. Runs on worker threads through the framework's line mapper (see QwenBailianConverter).
import {type InputLine, JsonFloat, KeyList, pythonInt} from '../../../src/index.js'
import {type LineProblem, parseObjectLine} from './rows.js'

export interface HashIdRowConfig {
  blockSize: number
  /** ns per unit of an integer timestamp, and the double factor for a float one */
  intScale: bigint
  floatScale: number
}

export interface HashIdRow {
  ts: bigint
  inputLen: bigint
  /** the keys as int64 words and as their JSON text (so the main thread need not format them) */
  words: BigInt64Array
  json: Uint8Array
}

export type HashIdRowResult = HashIdRow | LineProblem

/** A row's timestamp in ns, or undefined when it is not a usable number. */
export function scaledTimestamp(value: unknown, intScale: bigint, floatScale: number): bigint | undefined {
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

/** Checks run in the original's order; the first failure decides the reason (spec convert.md §8.2). */
export function decodeHashIdRow(text: string, config: HashIdRowConfig): HashIdRowResult {
  const row = parseObjectLine(text)
  if (!(row instanceof Map)) return row
  if (!row.has('input_length')) return {skip: 'missing_input_length', message: 'missing input_length'}
  const inputLen = pythonInt(row.get('input_length'))
  if (inputLen === undefined) return {skip: 'invalid_input_length', message: 'input_length is not an integer'}
  if (inputLen <= 0n)
    return {skip: 'nonpositive_input_length', message: `input_length must be positive (got ${inputLen})`}
  const hashIds = row.has('hash_ids') ? row.get('hash_ids') : []
  if (!Array.isArray(hashIds)) return {skip: 'invalid_hash_ids', message: 'hash_ids is not an array'}
  const fullBlocks = inputLen / BigInt(config.blockSize)
  const n = fullBlocks < BigInt(hashIds.length) ? Number(fullBlocks) : hashIds.length
  for (let i = 0; i < n; i++) {
    const t = typeof hashIds[i]
    if (t !== 'number' && t !== 'bigint' && t !== 'boolean')
      return {skip: 'invalid_hash_ids', message: `hash_ids[${i}] is not an integer`}
  }
  const keys = KeyList.prefixHash(hashIds as Array<number | bigint | boolean>, n)
  const ts = scaledTimestamp(row.get('timestamp'), config.intScale, config.floatScale)
  if (ts === undefined) return {skip: 'invalid_timestamp', message: 'timestamp is not a finite number'}
  return {ts, inputLen, words: keys.words(), json: keys.toJsonBytes()}
}

export function createLineMapper(config: HashIdRowConfig): (line: InputLine) => HashIdRowResult {
  return (line) => decodeHashIdRow(line.text, config)
}
