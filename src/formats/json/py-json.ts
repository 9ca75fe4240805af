// Python's json.dumps with its options (sort_keys, ensure_ascii, indent), for the files lmt writes as Python does.
import {pythonFloatRepr} from '../../util/float-repr.js'
import {JsonFloat} from './json-float.js'
import {SHORT_ESCAPES, unicodeEscape} from './json-escape.js'

export type PyJsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonFloat
  | PyJsonValue[]
  | {[key: string]: PyJsonValue}
  | Map<string, PyJsonValue>

export interface PyJsonOptions {
  sortKeys?: boolean
  ensureAscii?: boolean
  indent?: number
}

/** characters json.dumps escapes: quote, backslash, controls, and (ensure_ascii) everything beyond ASCII */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const NEEDS_ESCAPE_ASCII = /["\\\x00-\x1f\x7f-\uffff]/
// eslint-disable-next-line no-control-regex -- as above
const NEEDS_ESCAPE = /["\\\x00-\x1f]/

function pyString(s: string, ensureAscii: boolean): string {
  // most strings (ids, names) need no escape: one regex test instead of a loop building the copy
  if (!(ensureAscii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return '"' + s + '"'
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const e = SHORT_ESCAPES[c]
    if (e !== undefined) out += e
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += unicodeEscape(c)
    else out += s[i]
  }
  return out + '"'
}

/** Code point order (Python's str order), not UTF-16 unit order: they differ only where a surrogate is involved. */
function byCodePoint(a: string, b: string): number {
  const ca = [...a]
  const cb = [...b]
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i].codePointAt(0) as number
    const y = cb[i].codePointAt(0) as number
    if (x !== y) return x - y
  }
  return ca.length - cb.length
}

/** Python `json.dumps(value, sort_keys=…, ensure_ascii=…, indent=…)` with `allow_nan=True`. */
export function pyJsonDumps(value: PyJsonValue, options: PyJsonOptions = {}): string {
  const {sortKeys = false, ensureAscii = true, indent} = options
  const walk = (v: PyJsonValue, level: number): string => {
    if (v === null) return 'null'
    if (typeof v === 'boolean') return v ? 'true' : 'false'
    if (typeof v === 'bigint') return v.toString()
    if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : pythonFloatRepr(v)
    if (typeof v === 'string') return pyString(v, ensureAscii)
    if (v instanceof JsonFloat) return pythonFloatRepr(v.value)
    const open = (items: string[], l: string, r: string): string => {
      if (items.length === 0) return l + r
      if (indent === undefined) return l + items.join(', ') + r
      const pad = '\n' + ' '.repeat(indent * (level + 1))
      return l + pad + items.join(',' + pad) + '\n' + ' '.repeat(indent * level) + r
    }
    if (Array.isArray(v))
      return open(
        v.map((x) => walk(x, level + 1)),
        '[',
        ']',
      )
    const entries: Array<[string, PyJsonValue]> = v instanceof Map ? [...v.entries()] : Object.entries(v)
    if (sortKeys) entries.sort((a, b) => byCodePoint(a[0], b[0]))
    return open(
      entries.map(([k, x]) => pyString(k, ensureAscii) + ': ' + walk(x, level + 1)),
      '{',
      '}',
    )
  }
  return walk(value, 0)
}
