import {lmtError} from '../../errors.js'
import {JsonFloat} from '../../formats/json/json-float.js'
import {JsonSyntaxError, parseJson} from '../../formats/json/parse.js'
import {linePreview} from '../../convert/input-accounting.js'
import type {KeyInterner} from './key-interner.js'

export {KeyInterner} from './key-interner.js'

export type RowType = 'get' | 'write' | 'request'

export interface TraceRow {
  type: RowType
  instance: string
  ts: bigint
  /** interned key ids (read-only: the byte scanner keeps the last array it made to copy for a repeat) */
  keys: readonly number[]
  inputLen: number
  /** list of flags, or an offset (clamped to the key count) */
  mask: boolean[] | number
  queryType: string
  lineNo: number
  /** `ttl_us` of a write or request row, read only for tiered configurations (see {@link parseRow}) */
  ttlUs?: bigint
}

/** A rule of docs/simulate.md §3.2 broken by a row. */
export class RowError extends Error {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message)
  }
}

const INT64_MAX = 2n ** 63n - 1n

function preview(v: unknown): string {
  const text =
    typeof v === 'bigint'
      ? v.toString()
      : v instanceof JsonFloat
        ? String(v.value)
        : (JSON.stringify(v, (_k, x) =>
            typeof x === 'bigint' ? x.toString() : x instanceof Map ? Object.fromEntries(x) : x,
          ) ?? String(v))
  return linePreview(text)
}

/** Parses and validates one row (rules V1–V9; V10–V12 need the configuration and are checked by the runner). */
export function parseRow(text: string, lineNo: number, keys: KeyInterner, withTtl = false): TraceRow {
  const row = parseObject(text)
  const parsed = parseFields(row, lineNo, keys)
  if (withTtl && parsed.type !== 'get' && row.has('ttl_us')) {
    const ttl = row.get('ttl_us')
    if ((typeof ttl !== 'number' || !Number.isInteger(ttl)) && typeof ttl !== 'bigint')
      throw new RowError('V3', `ttl_us must be an integer literal (ttl_us=${preview(ttl)})`)
    parsed.ttlUs = BigInt(ttl)
  }
  return parsed
}

function parseFields(row: Map<string, unknown>, lineNo: number, keys: KeyInterner): TraceRow {
  const type = row.get('type')
  if (
    type === undefined &&
    (row.has('query_type') || row.has('block_mask')) &&
    (row.has('total_keys') || row.has('output_len') || row.has('output_length'))
  )
    throw new RowError(
      'V2',
      'legacy dialog-style trace without type is not supported; convert it with "lmt convert"',
    )
  if (type !== 'get' && type !== 'write' && type !== 'request')
    throw new RowError('V3', `type must be "get", "write" or "request" (type=${preview(type)})`)
  const instance = row.get('instance_id')
  if (typeof instance !== 'string' || instance === '')
    throw new RowError('V3', `instance_id must be a non-empty string (instance_id=${preview(instance)})`)
  const ts = rowTimestamp(row)
  const ids = internKeys(row, keys)
  if (type === 'write')
    return {type, instance, ts, keys: ids, inputLen: 0, mask: [], queryType: 'prefix_match', lineNo}
  const {inputLen, mask, queryType} = readFields(row, ids.length)
  return {type, instance, ts, keys: ids, inputLen, mask, queryType, lineNo}
}

/** The row's JSON object (V1). */
function parseObject(text: string): Map<string, unknown> {
  let row: unknown
  try {
    row = parseJson(text)
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new RowError('V1', `invalid JSON: ${err.message}`)
    throw err
  }
  if (!(row instanceof Map)) throw new RowError('V1', 'the row is not a JSON object')
  return row as Map<string, unknown>
}

/** `timestamp_ns`: an integer literal in [0, 2^63 - 1] (V4, V5). */
function rowTimestamp(row: Map<string, unknown>): bigint {
  if (!row.has('timestamp_ns')) {
    if (row.has('timestamp_us'))
      throw new RowError('V4', 'timestamp_ns is missing (timestamp_us is not accepted; convert the trace)')
    throw new RowError('V4', 'timestamp_ns is missing')
  }
  const tsRaw = row.get('timestamp_ns')
  if (typeof tsRaw !== 'number' && typeof tsRaw !== 'bigint')
    throw new RowError('V4', `timestamp_ns must be an integer literal (timestamp_ns=${preview(tsRaw)})`)
  const ts = BigInt(tsRaw)
  if (ts < 0n) throw new RowError('V5', `timestamp_ns must not be negative (timestamp_ns=${ts})`)
  if (ts > INT64_MAX) throw new RowError('V4', `timestamp_ns is beyond 2^63 - 1 (timestamp_ns=${ts})`)
  return ts
}

/** `keys`, interned (V3, V8). */
function internKeys(row: Map<string, unknown>, keys: KeyInterner): number[] {
  const rawKeys = row.get('keys')
  if (!Array.isArray(rawKeys)) throw new RowError('V3', `keys must be an array (keys=${preview(rawKeys)})`)
  const ids: number[] = new Array(rawKeys.length)
  for (let i = 0; i < rawKeys.length; i++) {
    const id = keys.id(rawKeys[i])
    if (id === undefined)
      throw new RowError(
        'V8',
        `keys[${i}] must be an integer literal in [-2^63, 2^64 - 1] (keys[${i}]=${preview(rawKeys[i])})`,
      )
    ids[i] = id
  }
  return ids
}

/** The fields of a get or request row: `input_len` (V6, V3), `block_mask` (V9), `query_type` (V3). */
function readFields(
  row: Map<string, unknown>,
  keyCount: number,
): {inputLen: number; mask: boolean[] | number; queryType: string} {
  const il = row.get('input_len')
  if (il === undefined) throw new RowError('V6', 'input_len is missing')
  if (typeof il !== 'number' || il < 1)
    throw new RowError(
      'V3',
      `input_len must be an integer literal in [1, 2^53 - 1] (input_len=${preview(il)})`,
    )
  const mask = row.has('block_mask') ? blockMask(row.get('block_mask'), keyCount) : []
  let queryType = 'prefix_match'
  if (row.has('query_type')) {
    const q = row.get('query_type')
    if (typeof q !== 'string')
      throw new RowError('V3', `query_type must be a string (query_type=${preview(q)})`)
    queryType = q
  }
  return {inputLen: il, mask, queryType}
}

/** `block_mask`: a list of booleans, or a count of masked leading blocks (at most the keys) (V9). */
function blockMask(bm: unknown, keyCount: number): boolean[] | number {
  if (Array.isArray(bm)) {
    if (!bm.every((x) => typeof x === 'boolean'))
      throw new RowError(
        'V9',
        `block_mask must be a list of booleans or a non-negative integer (block_mask=${preview(bm)})`,
      )
    return bm as boolean[]
  }
  if ((typeof bm === 'number' && bm >= 0) || (typeof bm === 'bigint' && bm >= 0n && bm <= INT64_MAX))
    return Math.min(Number(bm), keyCount)
  throw new RowError(
    'V9',
    `block_mask must be a list of booleans or a non-negative integer (block_mask=${preview(bm)})`,
  )
}

export function traceRowError(file: string, lineNo: number, err: RowError) {
  return lmtError('SIM_TRACE_ROW', file, lineNo, err.message, err.rule, {
    suggestions: ['fix or remove the row, or pass --skip-invalid to count and skip invalid rows'],
  })
}
