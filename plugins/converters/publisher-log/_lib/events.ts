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

/** Where a line's keys are: words [w, w + n) of the batch (w ≥ 0), or only their JSON text (w = -1: not all int64). */
export interface KeysRef {
  w: number
  n: number
  t0: number
  t1: number
}

/** A pass-through value: a scalar as it is, anything else as its JSON text in the batch's text slab. */
export type PassThrough = string | number | bigint | boolean | null | {t0: number; t1: number}

/** A line that is skipped (warned), or dropped; `reg` is the instance it registered before that (if any). */
interface Problem {
  k: 'skip' | 'drop'
  code: string
  message: string
  reg?: string
}

export interface GetEvent {
  k: 'get'
  inst: string
  ts: bigint
  keys: KeysRef
  inputLen: bigint
  /** input_len came from len(keys) × block size (the converter warns once per instance) */
  fromKeys: boolean
  qt?: PassThrough
  bm?: PassThrough
  sw?: PassThrough
  ls?: PassThrough
}

export interface StartEvent {
  k: 'start'
  inst: string
  ts: bigint
  keys: KeysRef
  session: string
}

export interface FinishEvent {
  k: 'finish'
  inst: string
  session: string
  /** undefined: trigger_time_us is invalid (`timeProblem` says why; checked only once the session is found) */
  ts?: bigint
  timeProblem?: string
}

export type PublisherEvent = Problem | GetEvent | StartEvent | FinishEvent

export interface PublisherEventBatch {
  /** the events, one per line */
  events: PublisherEvent[]
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

const TIME_PROBLEM = 'trigger_time_us is not an integer or a finite number'
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Output space of one batch (key words and JSON texts) with the event fields' encodings. */
class Slabs extends BatchSlabs {
  private readonly encoder = new TextEncoder()

  addText(s: string): {t0: number; t1: number} {
    this.reserveText(3 * s.length)
    const t0 = this.textLength
    this.textLength += this.encoder.encodeInto(s, this.text.subarray(t0)).written
    return {t0, t1: this.textLength}
  }

  /** The keys as words and text when every one is an int64 integer, else as JSON text only. */
  addKeys(keys: unknown[]): KeysRef {
    const n = keys.length
    let ints = true
    for (let i = 0; i < n && ints; i++) {
      const v = keys[i]
      ints =
        (typeof v === 'number' && Number.isInteger(v)) ||
        (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX)
    }
    if (!ints) return {w: -1, n, ...this.addText(serializeJson(keys as JsonValue))}
    const w = this.reserve(n)
    const words = new BigInt64Array(this.words.buffer, 0, this.words.length >> 1)
    for (let i = 0; i < n; i++) words[w + i] = BigInt(keys[i] as number | bigint)
    this.wordCount += n
    const t0 = this.textLength
    this.textLength = KeyList.writeJson(this.words, w, n, this.text, t0)
    return {w, n, t0, t1: this.textLength}
  }

  passThrough(event: JsonObject, field: string): PassThrough | undefined {
    if (!event.has(field)) return undefined
    const v = event.get(field)
    if (v === null || typeof v !== 'object') return v as PassThrough
    return this.addText(serializeJson(v))
  }
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

/** One line's event, with its checks in the original's order. */
function digest(
  text: string,
  config: PublisherEventConfig,
  sizes: Map<string, number>,
  slabs: Slabs,
): PublisherEvent {
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
    return ts === undefined
      ? {k: 'finish', inst, session: session.key, timeProblem: TIME_PROBLEM}
      : {k: 'finish', inst, session: session.key, ts}
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
    return {k: 'start', inst, ts, keys: slabs.addKeys(keys), session: session.key}
  }
  const len = inputLenOf(event, keys, sizes.get(inst) ?? config.defaultBlockSize, inst)
  if ('k' in len) return len
  const get: GetEvent = {
    k: 'get',
    inst,
    ts,
    keys: slabs.addKeys(keys),
    inputLen: len.inputLen,
    fromKeys: len.fromKeys,
  }
  const qt = slabs.passThrough(event, 'query_type')
  if (qt !== undefined) get.qt = qt
  const bm = slabs.passThrough(event, 'block_mask')
  if (bm !== undefined) get.bm = bm
  const sw = slabs.passThrough(event, 'sw_size')
  if (sw !== undefined) get.sw = sw
  const ls = slabs.passThrough(event, 'location_spec_names')
  if (ls !== undefined) get.ls = ls
  return get
}

/** The digest of a batch of lines (see input.ts): one event per line, the keys in the batch's slabs. */
export function createLineBatchMapper(
  config: PublisherEventConfig,
): (lines: LineBatch) => {result: PublisherEventBatch; transfer: ArrayBuffer[]} {
  const sizes = new Map(config.blockSizes)
  const slabs = new Slabs() // reused: each batch's part is copied out
  return (lines) => {
    slabs.reset()
    const events = new Array<PublisherEvent>(lines.count)
    for (let i = 0; i < lines.count; i++) events[i] = digest(lines.text(i), config, sizes, slabs)
    const words = slabs.words.slice(0, 2 * slabs.wordCount)
    const text = slabs.text.slice(0, slabs.textLength)
    return {result: {events, words, text}, transfer: [words.buffer, text.buffer]}
  }
}
