import {doubleParts} from './pyfmt.js'

/**
 * C `%g` with precision 6, as C++ `std::ostream` prints doubles by default (glibc: exact value, ties to even).
 * JavaScript's toPrecision rounds ties away from zero and switches notation at other thresholds.
 */
export function formatG(x: number, precision = 6): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (precision === 6 && !Number.isInteger(x * 1024)) return formatG6(x)
  return formatGExact(x, precision)
}

/**
 * The hot path of the CSV writers. A decimal tie at the 7th significant digit needs an exact expansion of 7
 * digits ending in 5, i.e. x = m·2^e with m·5^-e < 10^7, so -e ≤ 10: x·1024 is an integer. For every other x
 * there is no tie, and toExponential (correctly rounded from the exact value) gives C's digits.
 */
function formatG6(x: number): string {
  // hit rates: in [1e-4, 1) %g prints 6 significant digits in fixed notation, which toFixed gives directly (also
  // correctly rounded; when rounding reaches the next power of ten the stripped text is the same)
  if (x >= 0.0001 && x < 1) return stripZeros(x.toFixed(x >= 0.1 ? 6 : x >= 0.01 ? 7 : x >= 0.001 ? 8 : 9))
  const s = x.toExponential(5) // [-]d.ddddde±X
  const e = s.indexOf('e')
  const X = Number(s.slice(e + 1))
  const negative = x < 0
  const digits = negative ? s[1] + s.slice(3, e) : s[0] + s.slice(2, e)
  let out: string
  if (X < -4 || X >= 6) {
    const mant = stripZeros(digits[0] + '.' + digits.slice(1))
    out = `${mant}e${X < 0 ? '-' : '+'}${X < 0 ? (X > -10 ? '0' : '') + -X : (X < 10 ? '0' : '') + X}`
  } else if (X >= 0) out = stripZeros(digits.slice(0, X + 1) + '.' + digits.slice(X + 1))
  else out = stripZeros('0.' + '0'.repeat(-X - 1) + digits)
  return negative ? '-' + out : out
}

/** C `%g` by the exact decimal expansion (any precision; ties to even). */
export function formatGExact(x: number, precision: number): string {
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
  let end = s.length
  while (s.charCodeAt(end - 1) === 48) end--
  if (s.charCodeAt(end - 1) === 46) end--
  return s.slice(0, end)
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
  const {m, e} = doubleParts(x)
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
