// The fast lane of hash-id rows: one pass over a line's bytes (in a LineBatch) that validates the JSON, reads
// `timestamp`, `input_length` and `hash_ids`, and leaves the ids as 64-bit halves — no string, no parsed object, no
// number or BigInt per id. It accepts a subset of what the exact path (decodeHashIdRow) accepts and gives up (false)
// on anything else: escapes in keys, repeated fields, NaN/Infinity, negative or long ids, odd numbers. The exact path
// then decides.

import {
  HalvesList,
  numberEndBytes,
  skipWsBytes,
  smallIntegerArrayBytes,
  smallIntegerBytes,
  stringEndBytes,
  valueEndBytes,
} from 'lmt'

/** What a successful scan found. */
export class ScannedHashIdRow {
  hasTimestamp = false
  /** integer timestamp literal (≤ 15 digits), or NaN when it was a float literal */
  tsInt = 0
  /** the float timestamp's value (when tsInt is NaN) */
  tsFloat = 0
  hasInputLength = false
  inputLength = 0
  hasHashIds = false
  /** the ids, modulo 2^64 */
  readonly ids = new HalvesList()

  reset(): void {
    this.hasTimestamp = false
    this.hasInputLength = false
    this.hasHashIds = false
    this.ids.length = 0
  }
}

const TIMESTAMP = 1
const INPUT_LENGTH = 2
const HASH_IDS = 3
/** the names of the fields, at their numbers */
const FIELD_NAMES = ['', 'timestamp', 'input_length', 'hash_ids'].map((name) => Buffer.from(name))

function bytesAre(b: Uint8Array, start: number, end: number, word: Uint8Array): boolean {
  if (end - start !== word.length) return false
  for (let i = 0; i < word.length; i++) if (b[start + i] !== word[i]) return false
  return true
}

/** The number of the field named by the bytes b[start, end), or 0 for any other name. */
function fieldOfBytes(b: Uint8Array, start: number, end: number): number {
  for (let f = TIMESTAMP; f <= HASH_IDS; f++) if (bytesAre(b, start, end, FIELD_NAMES[f])) return f
  return 0
}

/** 10^k for k ≤ 22: exact doubles, so digits / 10^k is the correctly rounded value when the digits fit 2^53. */
const POW10 = Array.from({length: 23}, (_, k) => 10 ** k)

/** A number literal at p as a timestamp (integer ≤ 15 digits, or float); end position or -1. */
function scanTimestampBytes(b: Uint8Array, p: number, out: ScannedHashIdRow): number {
  const end = numberEndBytes(b, p)
  if (end < 0) return -1
  let q = p
  const negative = b[q] === 0x2d
  if (negative) q++
  let mantissa = 0
  let digits = 0 // significant digits in the mantissa
  let fraction = 0
  let isFloat = false
  for (; q < end; q++) {
    const c = b[q]
    if (c === 0x2e) isFloat = true
    else if (c === 0x65 || c === 0x45) {
      isFloat = true
      break
    } else {
      mantissa = mantissa * 10 + (c - 0x30)
      if (mantissa > 0) digits++
      if (isFloat) fraction++
    }
  }
  if (!isFloat) {
    if (end - p - (negative ? 1 : 0) > 15) return -1
    out.tsInt = negative ? -mantissa || 0 : mantissa // "-0" is the integer 0
  } else {
    let value: number
    if (q === end && digits <= 15 && fraction <= 22) value = mantissa / POW10[fraction]
    else {
      const from = negative ? p + 1 : p
      // decoded, not spread into a call: a literal may be as long as a line
      value = Number(Buffer.from(b.buffer, b.byteOffset + from, end - from).toString('latin1'))
    }
    out.tsInt = NaN
    out.tsFloat = negative ? -value : value
  }
  out.hasTimestamp = true
  return end
}

const endAt = {end: 0}

/**
 * Scans the bytes b[start, end) of one line (followed by a sentinel byte, as in a LineBatch); true when it is a JSON
 * object in the usual shape and `out` holds its three fields (only non-negative ids of at most 15 digits take this
 * lane). False says nothing about the line's validity: use the exact path.
 */
export function scanHashIdRowBytes(
  b: Uint8Array,
  start: number,
  end: number,
  out: ScannedHashIdRow,
): boolean {
  out.reset()
  let p = skipWsBytes(b, start)
  if (b[p] !== 0x7b) return false
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x7d) p++
  else
    for (;;) {
      if (b[p] !== 0x22) return false
      const keyEnd = stringEndBytes(b, p, false)
      if (keyEnd < 0) return false
      const field = fieldOfBytes(b, p + 1, keyEnd - 1)
      p = skipWsBytes(b, keyEnd)
      if (b[p] !== 0x3a) return false
      p = skipWsBytes(b, p + 1)
      switch (field) {
        case TIMESTAMP:
          p = out.hasTimestamp ? -1 : scanTimestampBytes(b, p, out)
          break
        case INPUT_LENGTH: {
          const v = out.hasInputLength ? -1 : smallIntegerBytes(b, p, endAt)
          if (v < 1) return false
          out.inputLength = v
          out.hasInputLength = true
          p = endAt.end
          break
        }
        case HASH_IDS:
          if (out.hasHashIds || b[p] !== 0x5b) return false
          out.hasHashIds = true
          p = smallIntegerArrayBytes(b, p, out.ids)
          break
        default:
          p = valueEndBytes(b, p, 1)
      }
      if (p < 0) return false
      p = skipWsBytes(b, p)
      const c = b[p]
      if (c === 0x7d) {
        p++
        break
      }
      if (c !== 0x2c) return false
      p = skipWsBytes(b, p + 1)
    }
  return skipWsBytes(b, p) === end && out.hasInputLength
}
