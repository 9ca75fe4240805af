import {WRAP_KEY, VALUE_KEY} from './constants.js'
import {codecForValue} from './codecs.js'
import {PyTuple} from './values.js'
import {JsonFloat} from '../json/json-float.js'

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

/**
 * A JSON-safe rendering of decoded values (docs/lct.md §8): bytes as {"$bytes_hex"}, big ints as {"$int"}, NaN/±∞ as
 * {"$float"}, and — when `codecs` — value classes and wire wrappers as {"$<tag>": <payload lmt would write>}.
 */
export function readable(v: unknown, codecs = false): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v
  if (typeof v === 'number')
    return Number.isFinite(v) ? v : {$float: Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'}
  if (typeof v === 'bigint') return {$int: v.toString()}
  if (v instanceof Uint8Array) return {$bytes_hex: hex(v)}
  if (Array.isArray(v)) return v.map((x) => readable(x, codecs))
  if (v instanceof Map) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of v) out[String(k)] = readable(x, codecs)
    return out
  }
  if (typeof v === 'object') {
    if (codecs) {
      if (v instanceof PyTuple) return {$tuple: v.items.map((x) => readable(x, codecs))}
      const codec = codecForValue(v)
      if (codec) return {[`$${codec.tag}`]: readable(codec.encode(v), codecs)}
      const m = v as Record<string, unknown>
      if (typeof m[WRAP_KEY] === 'string' && VALUE_KEY in m && Object.keys(m).length === 2)
        return {[`$${m[WRAP_KEY] as string}`]: readable(m[VALUE_KEY], codecs)}
    }
    if (v instanceof JsonFloat) return readable(v.value)
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) out[k] = readable((v as Record<string, unknown>)[k], codecs)
    return out
  }
  return String(v)
}
