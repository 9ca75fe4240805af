// The order-independent part of a KVCM event-publisher line: parse it, validate its fields in the original's order
// and reduce it to what the pairing needs (PublisherLogConverter keeps the order-dependent part: sessions, pending
// gets, timestamps). A batch's keys of int64 integers are kept as words and their JSON text in two slabs, so no
// BigInt or string is made per key.
import {
  BatchSlabs,
  type JsonObject,
  type JsonValue,
  KeyList,
  type LineBatch,
  parseObjectLine,
  pythonHashKey,
  pythonInt,
  pythonTruthy,
  serializeJson,
} from 'lmt'

export interface PublisherEventConfig {
  defaultInstanceId: string
  blockSizes: Array<[string, number]>
  defaultBlockSize: number
}

/** A pass-through value: a scalar as it is, anything else as its JSON text. */
export type PassThrough = string | number | bigint | boolean | null | {json: string}
/** A get's query_type, block_mask, sw_size and location_spec_names (undefined: absent). */
export type PassTuple = Array<PassThrough | undefined>

/** A line that is skipped (warned), or dropped; `reg` is the instance it registered before that (if any). */
export interface Problem {
  k: 'skip' | 'drop'
  code: string
  message: string
  reg?: string
}

/** What a line is (a batch's `kinds`). */
export const PROBLEM = 0
export const GET = 1
/** a get whose input_len came from len(keys) × block size (the converter warns once per instance) */
export const GET_FROM_KEYS = 2
export const START = 3
export const FINISH = 4
/** a finish whose trigger_time_us is invalid (checked only once its session is found) */
export const FINISH_BAD_TIME = 5

/**
 * A batch's events as columns, one row per line: typed arrays that move to the main thread (transferred, not
 * cloned), with small tables for the strings and pass-through values they point to. An object per line cost the
 * main thread its cloning and its garbage.
 */
export interface PublisherEventBatch {
  kinds: Uint8Array
  /** get, start, finish: its instance, an index into `strings` */
  inst: Int32Array
  /** start, finish: its session key, an index into `strings` */
  session: Int32Array
  /** get, start, finish: trigger_time_us in ns (one beyond int64 is in `wide`) */
  ts: BigInt64Array
  /** get: input_len (one beyond int64 is in `wide`) */
  inputLen: BigInt64Array
  /**
   * get, start: where its keys are, 4 per line: words [w, w + n) of `words` (as int64) with their JSON text
   * text[t0, t1), or only the text when not all are int64 (w = -1)
   */
  keys: Int32Array
  /** get: its pass-through values, an index into `passes` */
  pass: Int32Array
  strings: string[]
  passes: PassTuple[]
  /** the problem of each PROBLEM line, by line */
  problems: Map<number, Problem>
  /** ts and input_len values beyond int64, by line: [ts, inputLen] */
  wide: Map<number, [bigint | undefined, bigint | undefined]>
  words: Uint32Array
  text: Uint8Array
}

/**
 * `trigger_time_us` → ns: Python's int() of it (integers exact, finite floats truncated toward zero, integer strings
 * accepted), absent as 0.
 */
export function triggerTimeNs(value: unknown): bigint | undefined {
  const n = value === undefined ? 0n : pythonInt(value)
  return n === undefined ? undefined : n * 1000n
}

let nanSessions = 0

/**
 * Session ids that mean "no session" in the original (Python falsy scalars and empty containers); a NaN session is
 * a key of its own (no two NaN objects are the same dict key).
 */
export function sessionKey(value: unknown): {none: true} | {invalid: true} | {key: string} {
  if (value === undefined || !pythonTruthy(value)) return {none: true}
  const h = pythonHashKey(value)
  if (h === undefined) return {invalid: true}
  return {key: h.startsWith('nan:') ? `nan:${nanSessions++}` : h}
}

export const TIME_PROBLEM = 'trigger_time_us is not an integer or a finite number'
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const inInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX

/** A pass-through value as part of a table key (strings quoted, JSON escaped: no raw separator can occur). */
function passKey(v: PassThrough | undefined): string {
  if (v === undefined) return 'u'
  if (typeof v === 'string') return 's' + JSON.stringify(v)
  if (v !== null && typeof v === 'object') return 'j' + v.json
  return Object.is(v, -0) ? 'n-0' : typeof v + String(v)
}

/** One batch's events as they are digested: the columns, the tables and the key slabs. */
class BatchBuilder extends BatchSlabs {
  private readonly encoder = new TextEncoder()
  private readonly stringIds = new Map<string, number>()
  private readonly passIds = new Map<string, number>()
  out!: PublisherEventBatch

  /** Starts a batch of `n` lines (the slabs' buffers are kept). */
  begin(n: number): void {
    this.reset()
    this.stringIds.clear()
    this.passIds.clear()
    this.out = {
      kinds: new Uint8Array(n),
      inst: new Int32Array(n),
      session: new Int32Array(n),
      ts: new BigInt64Array(n),
      inputLen: new BigInt64Array(n),
      keys: new Int32Array(4 * n),
      pass: new Int32Array(n),
      strings: [],
      passes: [],
      problems: new Map(),
      wide: new Map(),
      words: this.words,
      text: this.text,
    }
  }

  /** The batch, its slabs copied out (the builder's are reused), and the buffers to transfer. */
  end(): {result: PublisherEventBatch; transfer: ArrayBuffer[]} {
    const b = this.out
    b.words = this.words.slice(0, 2 * this.wordCount)
    b.text = this.text.slice(0, this.textLength)
    const columns = [b.kinds, b.inst, b.session, b.ts, b.inputLen, b.keys, b.pass, b.words, b.text]
    return {result: b, transfer: columns.map((c) => c.buffer as ArrayBuffer)}
  }

  problem(i: number, p: Problem): void {
    this.out.kinds[i] = PROBLEM
    this.out.problems.set(i, p)
  }

  /** Line i is of `kind`, of instance `inst`, at `ts`. */
  event(i: number, kind: number, inst: string, ts: bigint | undefined): void {
    const b = this.out
    b.kinds[i] = kind
    b.inst[i] = this.stringId(inst)
    if (ts !== undefined) this.int64(i, b.ts, ts, 0)
  }

  session(i: number, key: string): void {
    this.out.session[i] = this.stringId(key)
  }

  inputLen(i: number, n: bigint): void {
    this.int64(i, this.out.inputLen, n, 1)
  }

  /** The keys as words and text when every one is an int64 integer, else as JSON text only. */
  keys(i: number, keys: unknown[]): void {
    const n = keys.length
    let ints = true
    for (let k = 0; k < n && ints; k++) {
      const v = keys[k]
      ints = (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'bigint' && inInt64(v))
    }
    let w = -1
    const t0 = this.textLength
    if (!ints) {
      const s = serializeJson(keys as JsonValue)
      this.reserveText(3 * s.length)
      this.textLength += this.encoder.encodeInto(s, this.text.subarray(t0)).written
    } else {
      w = this.reserve(n)
      const words = new BigInt64Array(this.words.buffer, 0, this.words.length >> 1)
      for (let k = 0; k < n; k++) words[w + k] = BigInt(keys[k] as number | bigint)
      this.wordCount += n
      this.textLength = KeyList.writeJson(this.words, w, n, this.text, t0)
    }
    const at = this.out.keys.subarray(4 * i, 4 * i + 4)
    at[0] = w
    at[1] = n
    at[2] = t0
    at[3] = this.textLength
  }

  /** A get's pass-through values, the same tuple once per batch. */
  passes(i: number, event: JsonObject): void {
    const tuple = PASS_FIELDS.map((f) => passThrough(event, f)) as PassTuple
    const key = tuple.map(passKey).join('\u0000')
    let id = this.passIds.get(key)
    if (id === undefined) this.passIds.set(key, (id = this.out.passes.push(tuple) - 1))
    this.out.pass[i] = id
  }

  private stringId(s: string): number {
    let id = this.stringIds.get(s)
    if (id === undefined) this.stringIds.set(s, (id = this.out.strings.push(s) - 1))
    return id
  }

  /** `v` into the column, or into `wide` (at `slot`) when it is beyond int64. */
  private int64(i: number, column: BigInt64Array, v: bigint, slot: 0 | 1): void {
    if (inInt64(v)) column[i] = v
    else {
      const wide = this.out.wide.get(i) ?? [undefined, undefined]
      wide[slot] = v
      this.out.wide.set(i, wide)
    }
  }
}

const PASS_FIELDS = ['query_type', 'block_mask', 'sw_size', 'location_spec_names']

function passThrough(event: JsonObject, field: string): PassThrough | undefined {
  if (!event.has(field)) return undefined
  const v = event.get(field)
  if (v === null || typeof v !== 'object') return v as PassThrough
  return {json: serializeJson(v)}
}

function source(event: JsonObject, defaultInstanceId: string): string | Problem {
  if (!event.has('source')) return defaultInstanceId
  const s = event.get('source')
  return typeof s === 'string' ? s : {k: 'skip', code: 'invalid_source', message: 'source is not a string'}
}

function keysOf(event: JsonObject): unknown[] | undefined {
  const keys = event.has('keys') ? event.get('keys') : []
  return Array.isArray(keys) ? keys : undefined
}

const skip = (code: string, message: string, reg?: string): Problem => ({k: 'skip', code, message, reg})

/** input_len and where it came from, or the reason the get is skipped (docs/convert.md §8.4). */
function inputLenOf(
  event: JsonObject,
  keys: {length: number},
  blockSize: number,
  reg: string,
): {inputLen: bigint; fromKeys: boolean} | Problem {
  for (const field of ['input_len', 'input_length', 'input_tokens']) {
    if (!event.has(field)) continue
    const n = pythonInt(event.get(field))
    if (n === undefined) return skip('invalid_input_length', `${field} is not an integer`, reg)
    if (n <= 0n) return skip('nonpositive_input_length', `${field} must be positive (got ${n})`, reg)
    return {inputLen: n, fromKeys: false}
  }
  const tokens = event.get('tokens')
  if (pythonTruthy(tokens)) {
    if (Array.isArray(tokens)) return {inputLen: BigInt(tokens.length), fromKeys: false}
    if (typeof tokens === 'string') return {inputLen: BigInt([...tokens].length), fromKeys: false}
    if (tokens instanceof Map) return {inputLen: BigInt(tokens.size), fromKeys: false}
    return skip('invalid_tokens', 'tokens is not a list', reg)
  }
  if (keys.length > 0) return {inputLen: BigInt(keys.length) * BigInt(blockSize), fromKeys: true}
  return skip(
    'missing_input_length',
    'GetCacheLocation has no input_len, input_length, input_tokens, tokens or keys',
    reg,
  )
}

/** Line i's event into the batch, or its problem, with its checks in the original's order. */
function digest(
  i: number,
  text: string,
  config: PublisherEventConfig,
  sizes: Map<string, number>,
  b: BatchBuilder,
): Problem | undefined {
  const event = parseObjectLine(text)
  if (!(event instanceof Map)) return {k: 'skip', code: event.skip, message: event.message}
  const type = event.get('type')
  if (type === 'StartWriteCacheWithMinReplica') return {k: 'drop', code: 'min_replica_event', message: ''}
  if (type !== 'GetCacheLocation' && type !== 'StartWriteCache' && type !== 'FinishWriteCache')
    return {k: 'drop', code: 'unknown_event_type', message: ''}
  const inst = source(event, config.defaultInstanceId)
  if (typeof inst !== 'string') return inst
  if (type === 'FinishWriteCache') {
    const session = sessionKey(event.get('write_session_id'))
    if ('none' in session) return {k: 'drop', code: 'finish_without_session', message: ''}
    if ('invalid' in session)
      return skip('invalid_write_session_id', 'write_session_id is not a string or number')
    const ts = triggerTimeNs(event.get('trigger_time_us'))
    b.event(i, ts === undefined ? FINISH_BAD_TIME : FINISH, inst, ts)
    b.session(i, session.key)
    return undefined
  }
  // gets and starts register their instance before any further check
  const ts = triggerTimeNs(event.get('trigger_time_us'))
  if (ts === undefined) return skip('invalid_trigger_time', TIME_PROBLEM, inst)
  const keys = keysOf(event)
  if (keys === undefined) return skip('invalid_keys', 'keys is not an array', inst)
  if (type === 'StartWriteCache') {
    const session = sessionKey(event.get('write_session_id'))
    if ('none' in session) return {k: 'drop', code: 'start_without_session', message: '', reg: inst}
    if ('invalid' in session)
      return skip('invalid_write_session_id', 'write_session_id is not a string or number', inst)
    b.event(i, START, inst, ts)
    b.keys(i, keys)
    b.session(i, session.key)
    return undefined
  }
  const len = inputLenOf(event, keys, sizes.get(inst) ?? config.defaultBlockSize, inst)
  if ('k' in len) return len
  b.event(i, len.fromKeys ? GET_FROM_KEYS : GET, inst, ts)
  b.keys(i, keys)
  b.inputLen(i, len.inputLen)
  b.passes(i, event)
  return undefined
}

/** The digest of a batch of lines (see input.ts): one row of columns per line, the keys in the batch's slabs. */
export function createLineBatchMapper(
  config: PublisherEventConfig,
): (lines: LineBatch) => {result: PublisherEventBatch; transfer: ArrayBuffer[]} {
  const sizes = new Map(config.blockSizes)
  const b = new BatchBuilder() // reused: each batch's part is copied out
  return (lines) => {
    b.begin(lines.count)
    for (let i = 0; i < lines.count; i++) {
      const problem = digest(i, lines.text(i), config, sizes, b)
      if (problem !== undefined) b.problem(i, problem)
    }
    return b.end()
  }
}
