/**
 * C `%g` with precision 6, as C++ `std::ostream` prints doubles by default (glibc: exact value, ties to even).
 * JavaScript's toPrecision rounds ties away from zero and switches notation at other thresholds.
 */
export function formatG(x: number, precision = 6): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  const negative = x < 0
  const {digits, exp10} = fastDigits(Math.abs(x), precision) ?? exactDigits(Math.abs(x))
  // round the exact decimal digits to `precision` significant digits, ties to even
  let kept = digits.slice(0, precision)
  const rest = digits.slice(precision)
  let X = exp10
  if (rest.length > 0) {
    const first = rest.charCodeAt(0) - 48
    const tail = /[1-9]/.test(rest.slice(1))
    const up = first > 5 || (first === 5 && (tail || (kept.charCodeAt(kept.length - 1) - 48) % 2 === 1))
    if (up) {
      const bumped = (BigInt(kept) + 1n).toString()
      if (bumped.length > kept.length) {
        X += 1
        kept = bumped.slice(0, precision)
      } else kept = bumped
    }
  }
  kept = kept.padEnd(precision, '0')
  let out: string
  if (X < -4 || X >= precision) {
    const mant = stripZeros(kept[0] + '.' + kept.slice(1))
    out = `${mant}e${X < 0 ? '-' : '+'}${String(Math.abs(X)).padStart(2, '0')}`
  } else if (X >= 0) out = stripZeros(kept.slice(0, X + 1) + '.' + kept.slice(X + 1))
  else out = stripZeros('0.' + '0'.repeat(-X - 1) + kept)
  return (negative ? '-' : '') + out
}

function stripZeros(s: string): string {
  if (!s.includes('.')) return s
  s = s.replace(/0+$/, '')
  return s.endsWith('.') ? s.slice(0, -1) : s
}

/**
 * 20 correctly rounded significant digits decide the rounding to `precision` digits unless the digits after the
 * cut look like a tie (…5000… or …4999…); then the exact expansion is needed.
 */
function fastDigits(x: number, precision: number): {digits: string; exp10: number} | undefined {
  const s = x.toExponential(19) // d.ddddddddddddddddddde±x
  const e = s.indexOf('e')
  const digits = s[0] + s.slice(2, e)
  const after = digits.slice(precision)
  if (/^50*$/.test(after.slice(0, 14)) || /^49{13}/.test(after)) return undefined
  return {digits: digits.replace(/0+$/, '') || '0', exp10: Number(s.slice(e + 1))}
}

/** The exact decimal digits of a positive finite double and the exponent of its first digit. */
function exactDigits(x: number): {digits: string; exp10: number} {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const bits = view.getBigUint64(0)
  const expBits = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & ((1n << 52n) - 1n)
  const m = expBits === 0 ? frac : frac | (1n << 52n)
  const e = (expBits === 0 ? 1 : expBits) - 1075
  let intText: string
  let fracLen: number
  if (e >= 0) {
    intText = (m << BigInt(e)).toString()
    fracLen = 0
  } else {
    intText = (m * 5n ** BigInt(-e)).toString() // m × 2^e = m × 5^-e / 10^-e
    fracLen = -e
  }
  // value = intText × 10^-fracLen; strip leading zeros of the significant digits
  const trimmed = intText.replace(/^0+/, '')
  const exp10 = trimmed.length - 1 - fracLen
  return {digits: trimmed.replace(/0+$/, '') || '0', exp10}
}
