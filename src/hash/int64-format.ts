/**
 * Decimal text of 64-bit integers given as two unsigned 32-bit halves, in small-integer arithmetic.
 * `String(bigint)` is slow and `String(double)` above 2^31 takes the slow shortest-double path; splitting into
 * base-10^8 limbs keeps every step in V8's small-integer range.
 */

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

const scratch = new Uint8Array(FAST_ROOM)
const scratchView = new DataView(scratch.buffer)

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const LO = LITTLE_ENDIAN ? 0 : 1
const HI = LITTLE_ENDIAN ? 1 : 0

/**
 * Writes `[k0, k1, …]` (Python layout) for the `n` signed 64-bit words `words[2·at …]` (halves in platform order)
 * at `pos`; returns the end. The keys' hot loop: one view for the whole list.
 */
export function putInt64List(
  words: Uint32Array,
  at: number,
  n: number,
  out: Uint8Array,
  pos: number,
): number {
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
    if (pos + FAST_ROOM <= out.length) pos = putUint64Digits(dv, pos, hi, lo)
    else {
      // near the end of `out`, where the 4-byte stores would not fit: through a scratch buffer
      const end = putUint64Digits(scratchView, 0, hi, lo)
      out.set(scratch.subarray(0, end), pos)
      pos += end
    }
  }
  out[pos++] = 0x5d
  return pos
}
