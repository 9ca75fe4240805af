// Python-compatible formatting shared by lct, replay and convert (docs/lct.md §9); Python's json.dumps is
// formats/json/py-json.ts.
export {pythonFloatRepr as pyFloatRepr} from './float-repr.js'

/** A finite double as m × 2^e (m a whole number): its significand and exponent. */
export function doubleParts(x: number): {m: bigint; e: number} {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const bits = view.getBigUint64(0)
  const expBits = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & ((1n << 52n) - 1n)
  return {m: expBits === 0 ? frac : frac | (1n << 52n), e: (expBits === 0 ? 1 : expBits) - 1075}
}

/** Python `f"{x:.{d}f}"` / `"%.{d}f" % x`: exact decimal expansion, ties to even (never `toFixed`). */
export function pyFormatFixed(x: number, d: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  const negative = x < 0 || Object.is(x, -0)
  const {m, e} = doubleParts(Math.abs(x))
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
