/**
 * Decimal text of 64-bit integers given as two unsigned 32-bit halves, in small-integer arithmetic.
 * `String(bigint)` is slow and `String(double)` above 2^31 takes the slow shortest-double path; splitting into
 * base-10^7 limbs keeps every step in V8's small-integer range.
 */

const DIGIT_PAIRS = new Uint8Array(200)
for (let i = 0; i < 100; i++) {
  DIGIT_PAIRS[2 * i] = 48 + Math.floor(i / 10)
  DIGIT_PAIRS[2 * i + 1] = 48 + (i % 10)
}

/** Writes `v` (0 ≤ v < 10^7) as exactly 7 digits at `pos`; returns the new position. */
function put7(out: Uint8Array, pos: number, v: number): number {
  // v < 10^7 < 2^31: integer division by `| 0` stays in small integers
  const a = (v / 100000) | 0 // 0..99
  const r = v - a * 100000
  const b = (r / 1000) | 0 // 0..99
  const r2 = r - b * 1000
  const c = (r2 / 10) | 0 // 0..99
  out[pos] = DIGIT_PAIRS[2 * a]
  out[pos + 1] = DIGIT_PAIRS[2 * a + 1]
  out[pos + 2] = DIGIT_PAIRS[2 * b]
  out[pos + 3] = DIGIT_PAIRS[2 * b + 1]
  out[pos + 4] = DIGIT_PAIRS[2 * c]
  out[pos + 5] = DIGIT_PAIRS[2 * c + 1]
  out[pos + 6] = 48 + (r2 - c * 10)
  return pos + 7
}

/** Writes `v` (0 ≤ v < 10^7) without leading zeros; returns the new position. */
function putVar(out: Uint8Array, pos: number, v: number): number {
  if (v < 10) {
    out[pos] = 48 + v
    return pos + 1
  }
  let digits = 2
  if (v >= 1000000) digits = 7
  else if (v >= 100000) digits = 6
  else if (v >= 10000) digits = 5
  else if (v >= 1000) digits = 4
  else if (v >= 100) digits = 3
  let p = pos + digits
  while (v >= 100) {
    const q = (v / 100) | 0
    const d = v - q * 100
    out[--p] = DIGIT_PAIRS[2 * d + 1]
    out[--p] = DIGIT_PAIRS[2 * d]
    v = q
  }
  if (v >= 10) {
    out[--p] = DIGIT_PAIRS[2 * v + 1]
    out[--p] = DIGIT_PAIRS[2 * v]
  } else out[--p] = 48 + v
  return pos + digits
}

/** Four ASCII digits of i (0 ≤ i < 10^4, zero-padded) packed little-endian, for one 4-byte store. */
const DIGITS4 = new Uint32Array(10000)
/** How many digits i has (1–4). */
const WIDTH4 = new Uint8Array(10000)
for (let i = 0; i < 10000; i++) {
  const s = String(i).padStart(4, '0')
  DIGITS4[i] = s.charCodeAt(0) | (s.charCodeAt(1) << 8) | (s.charCodeAt(2) << 16) | (s.charCodeAt(3) << 24)
  WIDTH4[i] = i >= 1000 ? 4 : i >= 100 ? 3 : i >= 10 ? 2 : 1
}

/** Room a fast write may touch after pos: 20 characters and the spare bytes of a 4-byte store. */
const FAST_ROOM = 24

// one DataView for the buffer written last: the hot callers write many numbers into one buffer
let viewTarget: Uint8Array | undefined
let view: DataView = new DataView(new ArrayBuffer(0))
function viewOf(out: Uint8Array): DataView {
  if (out !== viewTarget) {
    view = new DataView(out.buffer, out.byteOffset, out.byteLength)
    viewTarget = out
  }
  return view
}

/** v (< 10^4) without leading zeros; the store may touch up to 3 bytes after the digits (overwritten later). */
function put4Lead(dv: DataView, pos: number, v: number): number {
  const n = WIDTH4[v]
  dv.setUint32(pos, DIGITS4[v] >>> (8 * (4 - n)), true)
  return pos + n
}

/** v (an int32 < 10^8) as exactly 8 digits. */
function put8(dv: DataView, pos: number, v: number): number {
  const a = (v / 10000) | 0 // int32 by a constant: a multiply and a shift
  dv.setUint32(pos, DIGITS4[a], true)
  dv.setUint32(pos + 4, DIGITS4[v - a * 10000], true)
  return pos + 8
}

/** v (an int32 < 10^8) without leading zeros. */
function put8Lead(dv: DataView, pos: number, v: number): number {
  if (v < 10000) return put4Lead(dv, pos, v)
  const a = (v / 10000) | 0
  pos = put4Lead(dv, pos, a)
  dv.setUint32(pos, DIGITS4[v - a * 10000], true)
  return pos + 4
}

/**
 * The digits of the unsigned 64-bit value hi·2^32 + lo at `pos` through `dv` (room for {@link FAST_ROOM} bytes is
 * the caller's business); returns the new position. Digits go four at a time (one table load, one store); the
 * bytes after the returned position, up to 3, may be overwritten.
 */
function putUint64Digits(dv: DataView, pos: number, hi: number, lo: number): number {
  // base-10^8 limbs from 16-bit pieces of hi, each step exact below 2^53:
  // 2^32 = 42·10^8 + 94967296, 2^48 = 2814749·10^8 + 76710656
  const h1 = hi >>> 16
  const h0 = hi & 0xffff
  let low = lo + h0 * 94967296 + h1 * 76710656 // < 1.2·10^13
  let mid = h0 * 42 + h1 * 2814749
  // quotients by 10^8 through a multiplication by 10^-8 (cheaper than a division), exact for x < 2^44: the double
  // c = 10^-8 is a little above 10^-8, so x·c rounds to k at x = k·10^8 and never below it; below k·10^8 the
  // nearest integer x = k·10^8 − 1 gives k − 10^-8, far further from k than the product's error (< 10^-11)
  let carry = Math.floor(low * 1e-8)
  low -= carry * 1e8
  mid += carry
  carry = Math.floor(mid * 1e-8) // the top limb, < 1845
  mid -= carry * 1e8
  const l = low | 0
  const m = mid | 0
  if (carry > 0) return put8(dv, put8(dv, put4Lead(dv, pos, carry | 0), m), l)
  if (m > 0) return put8(dv, put8Lead(dv, pos, m), l)
  return put8Lead(dv, pos, l)
}

/**
 * Writes the unsigned 64-bit value hi·2^32 + lo in decimal at `pos`; returns the new position (the bytes after it,
 * up to 3, may be overwritten).
 */
export function putUint64(out: Uint8Array, pos: number, hi: number, lo: number): number {
  if (pos + FAST_ROOM > out.length) return putUint64Bytes(out, pos, hi, lo)
  return putUint64Digits(viewOf(out), pos, hi, lo)
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const LO = LITTLE_ENDIAN ? 0 : 1
const HI = LITTLE_ENDIAN ? 1 : 0

/**
 * Writes `[k0, k1, …]` (Python layout) for the `n` signed 64-bit words `words[2·at …]` (halves in platform order)
 * at `pos`; returns the end. The keys' hot loop: one room check and one view for the whole list.
 */
export function putInt64List(
  words: Uint32Array,
  at: number,
  n: number,
  out: Uint8Array,
  pos: number,
): number {
  const fast = pos + n * FAST_ROOM + 2 <= out.length // else byte by byte, near the end of `out`
  const dv = viewOf(out)
  out[pos++] = 0x5b
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      out[pos] = 0x2c
      out[pos + 1] = 0x20
      pos += 2
    }
    let lo = words[2 * (at + i) + LO]
    let hi = words[2 * (at + i) + HI]
    if (hi & 0x80000000) {
      lo = (~lo + 1) >>> 0
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0
      out[pos++] = 0x2d
    }
    pos = fast ? putUint64Digits(dv, pos, hi, lo) : putUint64Bytes(out, pos, hi, lo)
  }
  out[pos++] = 0x5d
  return pos
}

/** {@link putUint64} one byte at a time: near the end of `out`, where 4-byte stores would not fit. */
function putUint64Bytes(out: Uint8Array, pos: number, hi: number, lo: number): number {
  // 24-bit limbs a + b·2^24 + c·2^48, re-based to 10^7 digits (2^24 = 1·10^7 + 6777216, 2^48 = 2·10^14 + 8147497·10^7 + 6710656)
  const a = lo & 0xffffff
  const b = ((lo >>> 24) | ((hi & 0xffff) << 8)) >>> 0
  const c = hi >>> 16
  let low = a + b * 6777216 + c * 6710656
  let mid = b + c * 8147497
  let high = c * 2
  let carry = Math.floor(low / 1e7)
  low -= carry * 1e7
  mid += carry
  carry = Math.floor(mid / 1e7)
  mid -= carry * 1e7
  high += carry
  if (high > 0) return put7(out, put7(out, putVar(out, pos, high), mid), low)
  if (mid > 0) return put7(out, putVar(out, pos, mid), low)
  return putVar(out, pos, low)
}

/** Writes the signed (two's complement) 64-bit value hi·2^32 + lo in decimal; returns the new position. */
export function putInt64(out: Uint8Array, pos: number, hi: number, lo: number): number {
  if (hi & 0x80000000) {
    const nlo = (~lo + 1) >>> 0
    const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0
    out[pos] = 0x2d
    return putUint64(out, pos + 1, nhi, nlo)
  }
  return putUint64(out, pos, hi >>> 0, lo >>> 0)
}

const scratch = Buffer.allocUnsafe(32)

/** Decimal text of the signed 64-bit value hi·2^32 + lo. */
export function formatInt64(hi: number, lo: number): string {
  return scratch.toString('latin1', 0, putInt64(scratch, 0, hi, lo))
}

/** Decimal text of the unsigned 64-bit value hi·2^32 + lo. */
export function formatUint64(hi: number, lo: number): string {
  return scratch.toString('latin1', 0, putUint64(scratch, 0, hi, lo))
}
