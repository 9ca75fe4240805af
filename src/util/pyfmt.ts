// Python-compatible formatting shared by lct, replay and convert (docs/lct.md §9).
import {pythonFloatRepr} from '../jsonl/float-repr.js'
import {JsonFloat} from '../jsonl/json-float.js'

export {pythonFloatRepr as pyFloatRepr}

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

const ESC: Record<number, string> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
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
    const e = ESC[c]
    if (e !== undefined) out += e
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += '\\u' + c.toString(16).padStart(4, '0')
    else out += s[i]
  }
  return out + '"'
}

/** Code point order (Python's str order), not UTF-16 unit order: they differ only where a surrogate is involved. */
const byCodePoint = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x < 0xd800 && y < 0xd800) return x - y
    return byCodePointSlow(a, b)
  }
  return a.length - b.length
}

function byCodePointSlow(a: string, b: string): number {
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

/** Python `f"{x:.{d}f}"` / `"%.{d}f" % x`: exact decimal expansion, ties to even (never `toFixed`). */
export function pyFormatFixed(x: number, d: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  const negative = x < 0 || Object.is(x, -0)
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, Math.abs(x))
  const bits = view.getBigUint64(0)
  const expBits = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & ((1n << 52n) - 1n)
  const m = expBits === 0 ? frac : frac | (1n << 52n)
  const e = (expBits === 0 ? 1 : expBits) - 1075
  const n = m * 10n ** BigInt(d)
  let q: bigint
  if (e >= 0) q = n << BigInt(e)
  else {
    const div = 1n << BigInt(-e)
    q = n / div
    const r2 = (n % div) * 2n
    if (r2 > div || (r2 === div && q % 2n === 1n)) q += 1n
  }
  let digits = q.toString().padStart(d + 1, '0')
  if (d > 0) digits = digits.slice(0, -d) + '.' + digits.slice(-d)
  return (negative ? '-' : '') + digits
}

/** Python `round(x, n)` for finite floats. */
export function pyRound(x: number, n: number): number {
  return Number(pyFormatFixed(x, n))
}

/** Python `str.center(width, fill)`. */
export function pyCenter(s: string, width: number, fill = ' '): string {
  const marg = width - s.length
  if (marg <= 0) return s
  const left = Math.floor(marg / 2) + (marg & width & 1)
  return fill.repeat(left) + s + fill.repeat(marg - left)
}

/** Python `repr(bytes)`: `b'…'`. */
export function pyBytesRepr(bytes: Uint8Array): string {
  let out = "b'"
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\'
    else if (b === 0x27) out += "\\'"
    else if (b === 0x09) out += '\\t'
    else if (b === 0x0a) out += '\\n'
    else if (b === 0x0d) out += '\\r'
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b)
    else out += '\\x' + b.toString(16).padStart(2, '0')
  }
  return out + "'"
}

/** Python `repr(str)` for the simple cases used in messages (single quotes). */
export function pyStrRepr(s: string): string {
  return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'"
}
