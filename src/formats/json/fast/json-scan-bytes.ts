// Validating scanners over the UTF-8 bytes of JSON text, for fast lanes that read lines as bytes (LineBatch): each
// returns the end position of a well-formed item or -1 when unsure (NaN/Infinity, leading zeros, control characters,
// deep nesting). They accept a subset of what parseJson accepts, so a caller that gets -1 falls back to the exact
// parser, which decides. The bytes scanned must be followed by a byte that ends every item (LineBatch puts a 0 after
// each line), so no read needs a bounds check.
import {grown} from '../../../util/grown.js'

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)
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

const MAX_DEPTH = 64
const TWO32 = 4294967296

/** JSON whitespace (a byte value is its char code here) */
export const isWsByte = isWs

export function skipWsBytes(b: Uint8Array, p: number): number {
  while (isWsByte(b[p])) p++
  return p
}

/** End of a well-formed JSON number at p (no NaN/Infinity, no leading zeros), or -1. */
export function numberEndBytes(b: Uint8Array, p: number): number {
  if (b[p] === 0x2d) p++
  let c = b[p]
  if (c === 0x30) {
    p++
    if (isDigit(b[p])) return -1
  } else if (c >= 0x31 && c <= 0x39) {
    do p++
    while (isDigit(b[p]))
  } else return -1
  if (b[p] === 0x2e) {
    if (!isDigit(b[++p])) return -1
    do p++
    while (isDigit(b[p]))
  }
  c = b[p]
  if (c === 0x65 || c === 0x45) {
    c = b[++p]
    if (c === 0x2b || c === 0x2d) p++
    if (!isDigit(b[p])) return -1
    do p++
    while (isDigit(b[p]))
  }
  return p
}

/**
 * End of a string whose opening quote is at p (escapes validated, no control characters), or -1. Bytes of 0x80 and
 * above are taken as they are: the line they come from is valid UTF-8.
 */
export function stringEndBytes(b: Uint8Array, p: number, allowEscapes: boolean): number {
  p++
  for (;;) {
    const c = b[p]
    if (c === 0x22) return p + 1
    if (c < 0x20) return -1
    if (c === 0x5c) {
      if (!allowEscapes) return -1
      const e = b[p + 1]
      if (e === 0x75) {
        if (!(isHexDigit(b[p + 2]) && isHexDigit(b[p + 3]) && isHexDigit(b[p + 4]) && isHexDigit(b[p + 5])))
          return -1
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

function literalAt(b: Uint8Array, p: number, word: readonly number[]): boolean {
  for (let i = 0; i < word.length; i++) if (b[p + i] !== word[i]) return false
  return true
}

const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
const NULL = [0x6e, 0x75, 0x6c, 0x6c]

/** End of any JSON value at p (validated, not built), or -1 when unsure. */
export function valueEndBytes(b: Uint8Array, p: number, depth: number): number {
  const c = b[p]
  if (c === 0x22) return stringEndBytes(b, p, true)
  if (c === 0x2d || isDigit(c)) return numberEndBytes(b, p)
  if (c === 0x74) return literalAt(b, p, TRUE) ? p + 4 : -1
  if (c === 0x66) return literalAt(b, p, FALSE) ? p + 5 : -1
  if (c === 0x6e) return literalAt(b, p, NULL) ? p + 4 : -1
  if (depth >= MAX_DEPTH) return -1
  if (c === 0x5b) {
    p = skipWsBytes(b, p + 1)
    if (b[p] === 0x5d) return p + 1
    for (;;) {
      p = valueEndBytes(b, p, depth + 1)
      if (p < 0) return -1
      p = skipWsBytes(b, p)
      const d = b[p]
      if (d === 0x5d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWsBytes(b, p + 1)
    }
  }
  if (c === 0x7b) {
    p = skipWsBytes(b, p + 1)
    if (b[p] === 0x7d) return p + 1
    for (;;) {
      if (b[p] !== 0x22) return -1
      p = stringEndBytes(b, p, true)
      if (p < 0) return -1
      p = skipWsBytes(b, p)
      if (b[p] !== 0x3a) return -1
      p = valueEndBytes(b, skipWsBytes(b, p + 1), depth + 1)
      if (p < 0) return -1
      p = skipWsBytes(b, p)
      const d = b[p]
      if (d === 0x7d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWsBytes(b, p + 1)
    }
  }
  return -1
}

/**
 * A non-negative integer literal of at most 15 digits at p (exact in a double): its value, with the end position
 * left in `at.end`; -1 when the bytes there are anything else (a sign, a fraction, more digits, leading zeros).
 */
export function smallIntegerBytes(b: Uint8Array, p: number, at: {end: number}): number {
  let c = b[p]
  if (!isDigit(c) || (c === 0x30 && isDigit(b[p + 1]))) return -1
  let v = 0
  const start = p
  do {
    v = v * 10 + (c - 0x30)
    c = b[++p]
  } while (isDigit(c))
  if (p - start > 15 || c === 0x2e || c === 0x65 || c === 0x45) return -1
  at.end = p
  return v
}

/**
 * An array of non-negative integer literals of at most 15 digits at p (its `[`), into `out` (cleared first).
 * The end position, or -1 for anything else (the exact path then reads the array and decides).
 */
export function smallIntegerArrayBytes(b: Uint8Array, p: number, out: HalvesList): number {
  out.length = 0
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x5d) return p + 1
  let n = 0
  let hi = out.hi
  let lo = out.lo
  for (;;) {
    let c = b[p]
    if (!(c >= 0x30 && c <= 0x39)) return -1
    const start = p
    let v = c - 0x30
    c = b[++p]
    if (v === 0 && c >= 0x30 && c <= 0x39) return -1 // a leading zero
    while (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30)
      c = b[++p]
    }
    if (p - start > 15 || c === 0x2e || c === 0x65 || c === 0x45) return -1
    if (n === hi.length) {
      out.length = n
      out.grow()
      hi = out.hi
      lo = out.lo
    }
    if (v < TWO32) {
      lo[n] = v
      hi[n] = 0
    } else {
      const low = v >>> 0 // v mod 2^32
      lo[n] = low
      hi[n] = (v - low) / TWO32
    }
    n++
    while (c === 0x20) c = b[++p]
    if (c === 0x2c) {
      c = b[++p]
      while (c === 0x20) c = b[++p]
      if (isWsByte(c)) p = skipWsBytes(b, p)
      continue
    }
    if (isWsByte(c)) {
      p = skipWsBytes(b, p)
      c = b[p]
      if (c === 0x2c) {
        p = skipWsBytes(b, p + 1)
        continue
      }
    }
    if (c !== 0x5d) return -1
    out.length = n
    return p + 1
  }
}
