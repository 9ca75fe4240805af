// The fast lane of publisher-log lines: one pass over a line's bytes (in a LineBatch) that validates the JSON and
// reads only the fields the event digest looks at, into a small reused map. Keys of int64 integers stay 32-bit
// halves with the byte range of each literal (copied as the key text): no string, BigInt or parsed object per key.
// It accepts a subset of what the exact parser accepts and gives up (false) on anything else: escapes, repeated
// fields, floats, long integers outside `keys`, non-empty arrays or objects outside `keys`, "-0" among the keys.
// The exact path then decides.

import {skipWsBytes, stringEndBytes, valueEndBytes} from 'lmt'

const TWO32 = 4294967296
const TWO31 = 2147483648

/** A `keys` array of int64 integer literals: their values as halves and where each literal's bytes are. */
export class ScannedKeys {
  length = 0
  hi = new Uint32Array(64)
  lo = new Uint32Array(64)
  /** line bytes [start[i], end[i]) are key i's literal (canonical: as Python prints the integer) */
  start = new Int32Array(64)
  end = new Int32Array(64)
  /** the batch bytes the literals are in */
  bytes: Uint8Array = new Uint8Array(0)

  grow(): void {
    const n = this.hi.length * 2
    const widen = <T extends Uint32Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n)
      b.set(a)
      return b
    }
    this.hi = widen(this.hi, (k) => new Uint32Array(k))
    this.lo = widen(this.lo, (k) => new Uint32Array(k))
    this.start = widen(this.start, (k) => new Int32Array(k))
    this.end = widen(this.end, (k) => new Int32Array(k))
  }
}

/** The fields the digest reads (a repeated one sends the line to the exact path: the last would win there). */
const FIELDS = [
  'type',
  'source',
  'write_session_id',
  'trigger_time_us',
  'keys',
  'input_len',
  'input_length',
  'input_tokens',
  'tokens',
  'query_type',
  'block_mask',
  'sw_size',
  'location_spec_names',
]
const KEYS_FIELD = FIELDS.indexOf('keys')
const FIELD_BYTES = FIELDS.map((f) => Buffer.from(f))

function fieldOf(b: Uint8Array, start: number, end: number): number {
  const n = end - start
  next: for (let f = 0; f < FIELD_BYTES.length; f++) {
    const w = FIELD_BYTES[f]
    if (w.length !== n) continue
    for (let i = 0; i < n; i++) if (b[start + i] !== w[i]) continue next
    return f
  }
  return -1
}

/** A reused view of the batch bytes for string decoding. */
let view: Buffer = Buffer.alloc(0)

function textOf(b: Uint8Array, start: number, end: number): string {
  if (view.buffer !== b.buffer || view.byteOffset !== b.byteOffset || view.length !== b.length)
    view = Buffer.from(b.buffer, b.byteOffset, b.length)
  for (let i = start; i < end; i++) if (b[i] >= 0x80) return view.toString('utf8', start, end)
  return view.toString('latin1', start, end)
}

const EMPTY: readonly unknown[] = Object.freeze([])
const at = {end: 0, value: undefined as unknown}

/** A scalar value, `[]`, or a string without escapes at p into `at`; false for anything else. */
function scalarAt(b: Uint8Array, p: number): boolean {
  const c = b[p]
  if (c === 0x22) {
    const e = stringEndBytes(b, p, false)
    if (e < 0) return false
    at.value = textOf(b, p + 1, e - 1)
    at.end = e
    return true
  }
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    let q = c === 0x2d ? p + 1 : p
    const first = q
    let v = 0
    let d = b[q]
    if (!(d >= 0x30 && d <= 0x39) || (d === 0x30 && b[q + 1] >= 0x30 && b[q + 1] <= 0x39)) return false
    while (d >= 0x30 && d <= 0x39) {
      v = v * 10 + (d - 0x30)
      d = b[++q]
    }
    // ≤ 15 digits are exact as a double, and so is a 16-digit value up to 2^53 − 1 (as the exact parser reads it)
    const digits = q - first
    if (digits > 16 || (digits === 16 && v > Number.MAX_SAFE_INTEGER)) return false
    if (d === 0x2e || d === 0x65 || d === 0x45) return false
    at.value = v === 0 ? 0 : c === 0x2d ? -v : v // "-0" is the integer 0
    at.end = q
    return true
  }
  const e = valueEndBytes(b, p, 1)
  if (e < 0) return false
  if (c === 0x74) at.value = true
  else if (c === 0x66) at.value = false
  else if (c === 0x6e) at.value = null
  else if (c === 0x5b && skipWsBytes(b, p + 1) === e - 1) at.value = EMPTY
  else return false
  at.end = e
  return true
}

/**
 * One int64 literal at p (sign, at most 19 digits, no "-0") as key n of `out`; its end, or -1. The value is built
 * from two exact doubles (the digits but the last 9, and the last 9) so no step exceeds 2^53.
 */
function int64At(b: Uint8Array, p: number, out: ScannedKeys, n: number): number {
  const negative = b[p] === 0x2d
  const first = negative ? p + 1 : p
  let q = first
  let d = b[q]
  if (!(d >= 0x30 && d <= 0x39)) return -1
  if (d === 0x30 && (negative || (b[q + 1] >= 0x30 && b[q + 1] <= 0x39))) return -1
  // the end first, then one pass over the digits: keys are mostly 19 digits long, read as two parts
  while (d >= 0x30 && d <= 0x39) d = b[++q]
  const digits = q - first
  if (digits > 19 || d === 0x2e || d === 0x65 || d === 0x45) return -1
  let hi: number
  let lo: number
  if (digits <= 15) {
    let v = 0
    for (let i = first; i < q; i++) v = v * 10 + (b[i] - 0x30)
    lo = v >>> 0
    hi = (v - lo) / TWO32
  } else {
    let a = 0
    let r = 0
    const split = q - 9
    for (let i = first; i < split; i++) a = a * 10 + (b[i] - 0x30)
    for (let i = split; i < q; i++) r = r * 10 + (b[i] - 0x30)
    // a·10^9 + r = aH·10^9·2^16 + (aL·10^9 + r), each part below 2^53. The remainders by powers of two are taken
    // with `>>> 0` (exact for integers below 2^53: ToUint32 is modulo 2^32), not `%`, which V8 computes as a call
    // to fmod on doubles (the scan ~20 % faster)
    const aL = (a >>> 0) & 0xffff
    const x = ((a - aL) / 65536) * 1e9
    const xl = (x >>> 0) & 0xffff
    const t = xl * 65536 + aL * 1e9 + r
    lo = t >>> 0
    hi = (x - xl) / 65536 + (t - lo) / TWO32
    if (hi >= TWO32) return -1
  }
  if (negative) {
    if (hi > TWO31 || (hi === TWO31 && lo !== 0)) return -1
    lo = (TWO32 - lo) >>> 0 // 2^32 − 0 wraps to 0
    hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0
  } else if (hi >= TWO31) return -1
  if (n === out.hi.length) out.grow()
  out.hi[n] = hi
  out.lo[n] = lo
  out.start[n] = p
  out.end[n] = q
  return q
}

/** An array of int64 literals at p (its `[`) into `out`; the end, or -1. */
function keysAt(b: Uint8Array, p: number, out: ScannedKeys): number {
  out.length = 0
  out.bytes = b
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x5d) return p + 1
  let n = 0
  for (;;) {
    p = int64At(b, p, out, n)
    if (p < 0) return -1
    n++
    p = skipWsBytes(b, p)
    const c = b[p]
    if (c === 0x5d) {
      out.length = n
      return p + 1
    }
    if (c !== 0x2c) return -1
    p = skipWsBytes(b, p + 1)
  }
}

/** The read fields of a scanned line (reused from line to line: read it before the next scan). */
export class ScannedEvent {
  readonly fields = new Map<string, unknown>()
  readonly keys = new ScannedKeys()
}

/**
 * Scans the bytes b[start, end) of one line (followed by a sentinel byte, as in a LineBatch); true when it is a JSON
 * object in the usual shape and `out.fields` holds the fields the digest reads (`keys` as `out.keys`). False says
 * nothing about the line: use the exact path.
 */
export function scanPublisherLine(b: Uint8Array, start: number, end: number, out: ScannedEvent): boolean {
  const fields = out.fields
  fields.clear()
  let p = skipWsBytes(b, start)
  if (b[p] !== 0x7b) return false
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x7d) p++
  else
    for (;;) {
      if (b[p] !== 0x22) return false
      const keyEnd = stringEndBytes(b, p, false)
      if (keyEnd < 0) return false
      const field = fieldOf(b, p + 1, keyEnd - 1)
      p = skipWsBytes(b, keyEnd)
      if (b[p] !== 0x3a) return false
      p = skipWsBytes(b, p + 1)
      if (field < 0) p = valueEndBytes(b, p, 1)
      else {
        const name = FIELDS[field]
        if (fields.has(name)) return false
        if (field === KEYS_FIELD) {
          if (b[p] !== 0x5b) return false
          p = keysAt(b, p, out.keys)
          fields.set(name, out.keys)
        } else if (scalarAt(b, p)) {
          p = at.end
          fields.set(name, at.value)
        } else return false
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
  return skipWsBytes(b, p) === end
}
