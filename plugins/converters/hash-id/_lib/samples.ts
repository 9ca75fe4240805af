// What the hash-id converters' inputs look like on their first line (ConverterClass.looksLike).
import type {FormatSample} from 'lmt'

type Row = Record<string, unknown>

function isRow(v: unknown): v is Row {
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
