// What the built-in converters' inputs look like on their first line (ConverterClass.looksLike).
import type {FormatSample} from '../../../src/index.js'

type Row = Record<string, unknown>

export function isRow(v: unknown): v is Row {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** the fields of the newer Qwen-Bailian rows, which Mooncake rows do not have */
const QWEN_FIELDS = ['chat_id', 'parent_chat_id', 'turn', 'type']
/** a timestamp written with a fraction or an exponent: seconds (Qwen-Bailian); Mooncake's are integer ms */
const FRACTIONAL_TIMESTAMP = /"timestamp"\s*:\s*-?\d+(?:\.\d*|[eE])/

/** A Qwen-Bailian or Mooncake row: a timestamp, input_length and the block hash ids. */
function hashIdRow(s: FormatSample): Row | undefined {
  const r = s.record
  return isRow(r) && Array.isArray(r.hash_ids) && 'input_length' in r && 'timestamp' in r ? r : undefined
}

/** Qwen-Bailian: the chat fields, or a timestamp in (fractional) seconds. */
export function looksLikeQwenBailian(s: FormatSample): boolean {
  const r = hashIdRow(s)
  return r !== undefined && (QWEN_FIELDS.some((f) => f in r) || FRACTIONAL_TIMESTAMP.test(s.line))
}

/** Mooncake: the same row without the chat fields, its timestamp an integer (milliseconds). */
export function looksLikeMooncake(s: FormatSample): boolean {
  const r = hashIdRow(s)
  return r !== undefined && !QWEN_FIELDS.some((f) => f in r) && !FRACTIONAL_TIMESTAMP.test(s.line)
}

const PUBLISHER_EVENTS = new Set([
  'GetCacheLocation',
  'StartWriteCache',
  'FinishWriteCache',
  'StartWriteCacheWithMinReplica',
])

/** An event-publisher log line: a known event type and its trigger time. */
export function looksLikePublisherLog(s: FormatSample): boolean {
  const r = s.record
  return isRow(r) && PUBLISHER_EVENTS.has(r.type as string) && 'trigger_time_us' in r
}

const TIME_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/

/** A text record: a "%Y-%m-%d %H:%M:%S" time and some text or messages beside it, no keys. */
export function looksLikeTextRecord(s: FormatSample): boolean {
  const r = s.record
  if (!isRow(r) || 'keys' in r || 'hash_ids' in r) return false
  const values = Object.values(r)
  const times = values.filter((v) => typeof v === 'string' && TIME_TEXT.test(v)).length
  const content = values.filter(
    (v) => (typeof v === 'string' && !TIME_TEXT.test(v)) || isRow(v) || Array.isArray(v),
  )
  return times >= 1 && content.length >= 1
}
