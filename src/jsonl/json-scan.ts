// Validating scanners over JSON text for the fast lanes of line parsers: each returns the end position of a
// well-formed item or -1 when unsure (NaN/Infinity, leading zeros, control characters, deep nesting). They accept
// a subset of what parseJson accepts, so a caller that gets -1 falls back to the exact parser, which decides.
import {grown} from '../util/grown.js'

const MAX_DEPTH = 64

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

export function skipWs(s: string, p: number): number {
  while (isWs(s.charCodeAt(p))) p++
  return p
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

export function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)
}

/** End of a well-formed JSON number at p (no NaN/Infinity, no leading zeros), or -1. */
export function numberEnd(s: string, p: number): number {
  if (s.charCodeAt(p) === 0x2d) p++
  let c = s.charCodeAt(p)
  if (c === 0x30) {
    p++
    if (isDigit(s.charCodeAt(p))) return -1
  } else if (c >= 0x31 && c <= 0x39) {
    do p++
    while (isDigit(s.charCodeAt(p)))
  } else return -1
  if (s.charCodeAt(p) === 0x2e) {
    if (!isDigit(s.charCodeAt(++p))) return -1
    do p++
    while (isDigit(s.charCodeAt(p)))
  }
  c = s.charCodeAt(p)
  if (c === 0x65 || c === 0x45) {
    c = s.charCodeAt(++p)
    if (c === 0x2b || c === 0x2d) p++
    if (!isDigit(s.charCodeAt(p))) return -1
    do p++
    while (isDigit(s.charCodeAt(p)))
  }
  return p
}

/** End of a string whose opening quote is at p (escapes validated, no control characters), or -1. */
export function stringEnd(s: string, p: number, allowEscapes: boolean): number {
  p++
  for (;;) {
    const c = s.charCodeAt(p)
    if (c === 0x22) return p + 1
    if (c < 0x20 || Number.isNaN(c)) return -1
    if (c === 0x5c) {
      if (!allowEscapes) return -1
      const e = s.charCodeAt(p + 1)
      if (e === 0x75) {
        for (let i = 2; i < 6; i++) {
          const h = s.charCodeAt(p + i)
          if (!isHexDigit(h)) return -1
        }
        p += 6
        continue
      }
      if (
        e !== 0x22 &&
        e !== 0x5c &&
        e !== 0x2f &&
        e !== 0x62 &&
        e !== 0x66 &&
        e !== 0x6e &&
        e !== 0x72 &&
        e !== 0x74
      )
        return -1
      p += 2
      continue
    }
    p++
  }
}

/** End of any JSON value at p (validated, not built), or -1 when unsure. */
export function valueEnd(s: string, p: number, depth: number): number {
  const c = s.charCodeAt(p)
  if (c === 0x22) return stringEnd(s, p, true)
  if (c === 0x2d || isDigit(c)) return numberEnd(s, p)
  if (c === 0x74) return s.startsWith('true', p) ? p + 4 : -1
  if (c === 0x66) return s.startsWith('false', p) ? p + 5 : -1
  if (c === 0x6e) return s.startsWith('null', p) ? p + 4 : -1
  if (depth >= MAX_DEPTH) return -1
  if (c === 0x5b) {
    p = skipWs(s, p + 1)
    if (s.charCodeAt(p) === 0x5d) return p + 1
    for (;;) {
      p = valueEnd(s, p, depth + 1)
      if (p < 0) return -1
      p = skipWs(s, p)
      const d = s.charCodeAt(p)
      if (d === 0x5d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWs(s, p + 1)
    }
  }
  if (c === 0x7b) {
    p = skipWs(s, p + 1)
    if (s.charCodeAt(p) === 0x7d) return p + 1
    for (;;) {
      if (s.charCodeAt(p) !== 0x22) return -1
      p = stringEnd(s, p, true)
      if (p < 0) return -1
      p = skipWs(s, p)
      if (s.charCodeAt(p) !== 0x3a) return -1
      p = valueEnd(s, skipWs(s, p + 1), depth + 1)
      if (p < 0) return -1
      p = skipWs(s, p)
      const d = s.charCodeAt(p)
      if (d === 0x7d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWs(s, p + 1)
    }
  }
  return -1
}

const TWO32 = 4294967296

/** What {@link integerHalves} read: the value modulo 2^64 as unsigned 32-bit halves, and its written form. */
export class IntegerHalves {
  hi = 0
  lo = 0
  negative = false
  /** position and count of the digits (after the sign) */
  digitsAt = 0
  digits = 0
}

/**
 * An integer literal at p (optional minus, digits without leading zeros, no fraction or exponent), taken modulo
 * 2^64 (two's complement for negatives) into `out` without a BigInt: 15 digits exact in a double, then one carry
 * per run of up to 6 more. Returns the end position, or -1 when the text there is not such a literal.
 */
export function integerHalves(s: string, p: number, out: IntegerHalves): number {
  let c = s.charCodeAt(p)
  const negative = c === 0x2d
  if (negative) c = s.charCodeAt(++p)
  if (!isDigit(c) || (c === 0x30 && isDigit(s.charCodeAt(p + 1)))) return -1
  const start = p
  let v = 0
  do {
    v = v * 10 + (c - 0x30)
    c = s.charCodeAt(++p)
  } while (isDigit(c) && p - start < 15)
  let lo = v >>> 0
  let hi = (v - lo) / TWO32
  while (isDigit(c)) {
    // value = value·10^k + r for the next k ≤ 6 digits r, modulo 2^64, in doubles below 2^53
    let r = 0
    let m = 1
    do {
      r = r * 10 + (c - 0x30)
      m *= 10
      c = s.charCodeAt(++p)
    } while (isDigit(c) && m < 1e6)
    const l = lo * m + r
    const carry = Math.floor(l / TWO32)
    lo = l - carry * TWO32
    hi = (hi * m + carry) >>> 0 // hi < 2^32 and m ≤ 10^6: exact below 2^53, then modulo 2^32
  }
  if (c === 0x2e || c === 0x65 || c === 0x45) return -1
  if (negative && (hi !== 0 || lo !== 0)) {
    lo = (TWO32 - lo) >>> 0
    hi = (TWO32 - hi - (lo === 0 ? 0 : 1)) >>> 0
  }
  out.hi = hi
  out.lo = lo
  out.negative = negative
  out.digitsAt = start
  out.digits = p - start
  return p
}

/** A growing list of 64-bit values as unsigned 32-bit halves (what the scanners collect before using them). */
export class HalvesList {
  hi = new Uint32Array(256)
  lo = new Uint32Array(256)
  length = 0

  push(hi: number, lo: number): void {
    if (this.length === this.hi.length) this.grow()
    this.hi[this.length] = hi
    this.lo[this.length] = lo
    this.length++
  }

  /** Doubles the capacity, keeping the first `length` values. */
  grow(): void {
    const size = this.hi.length * 2
    this.hi = grown(this.hi, size, this.length)
    this.lo = grown(this.lo, size, this.length)
  }
}

const scratchInteger = new IntegerHalves()

/**
 * The common array of {@link integerArray}: non-negative literals of at most 15 digits (exact as doubles)
 * separated by `,` and spaces, from p (its first element). Returns the end position, or -2 when anything else is
 * met: the general path then reads the array (and decides whether it is valid); `out` is left as garbage.
 */
function smallIntegers(s: string, p: number, out: HalvesList): number {
  let n = 0
  let hi = out.hi
  let lo = out.lo
  for (;;) {
    let c = s.charCodeAt(p)
    if (!(c >= 0x30 && c <= 0x39)) return -2
    const start = p
    let v = c - 0x30
    c = s.charCodeAt(++p)
    if (v === 0 && c >= 0x30 && c <= 0x39) return -2 // a leading zero: the general path refuses it
    while (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30)
      c = s.charCodeAt(++p)
    }
    if (p - start > 15 || c === 0x2e || c === 0x65 || c === 0x45) return -2
    if (n === hi.length) {
      out.length = n
      out.grow()
      hi = out.hi
      lo = out.lo
    }
    const low = v >>> 0 // v mod 2^32
    lo[n] = low
    hi[n] = (v - low) / TWO32
    n++
    while (c === 0x20) c = s.charCodeAt(++p)
    if (c === 0x2c) {
      c = s.charCodeAt(++p)
      while (c === 0x20) c = s.charCodeAt(++p)
      continue
    }
    if (c !== 0x5d) return -2
    out.length = n
    return p + 1
  }
}

/**
 * An array of integer literals at p (its `[`), each taken modulo 2^64 into `out` (cleared first); `accept`, when
 * given, vets each literal as written (sign, digits) and may refuse it. The end position, or -1.
 */
export function integerArray(
  s: string,
  p: number,
  out: HalvesList,
  accept?: (int: IntegerHalves, s: string) => boolean,
): number {
  const int = scratchInteger
  out.length = 0
  p = skipWs(s, p + 1)
  if (s.charCodeAt(p) === 0x5d) return p + 1
  if (accept === undefined) {
    // ids, token ids: small non-negative integers, one tight loop (a tenth of the general path's cost)
    const end = smallIntegers(s, p, out)
    if (end !== -2) return end
    out.length = 0
  }
  for (;;) {
    p = integerHalves(s, p, int)
    if (p < 0 || (accept !== undefined && !accept(int, s))) return -1
    out.push(int.hi, int.lo)
    p = skipWs(s, p)
    const c = s.charCodeAt(p)
    if (c === 0x5d) return p + 1
    if (c !== 0x2c) return -1
    p = skipWs(s, p + 1)
  }
}

/**
 * A non-negative integer literal of at most 15 digits at p (exact in a double): its value, with the end position
 * left in `at.end`; -1 when the text there is anything else (a sign, a fraction, more digits, leading zeros).
 */
export function smallInteger(s: string, p: number, at: {end: number}): number {
  let c = s.charCodeAt(p)
  if (!isDigit(c) || (c === 0x30 && isDigit(s.charCodeAt(p + 1)))) return -1
  let v = 0
  const start = p
  do {
    v = v * 10 + (c - 0x30)
    c = s.charCodeAt(++p)
  } while (isDigit(c))
  if (p - start > 15 || c === 0x2e || c === 0x65 || c === 0x45) return -1
  at.end = p
  return v
}
