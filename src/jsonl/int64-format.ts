/**
 * Decimal text of a 64-bit integer given as two unsigned 32-bit halves, in plain `number` arithmetic.
 * `String(bigint)` manages ~20 M/s on a small machine; this is several times faster and the bytes are the same.
 */
export function formatUint64(hi: number, lo: number): string {
  if (hi === 0) return String(lo)
  if (hi < 0x200000) return String(hi * 4294967296 + lo) // below 2^53: exact as a double
  // split into 24-bit limbs a + b·2^24 + c·2^48 and re-base to 10^7 digits
  const a = lo & 0xffffff
  const b = ((lo >>> 24) | ((hi & 0xffff) << 8)) >>> 0
  const c = hi >>> 16
  let low = a + b * 6777216 + c * 6710656
  let mid = b + c * 8147497
  let high = c * 2
  mid += Math.floor(low / 1e7)
  low %= 1e7
  high += Math.floor(mid / 1e7)
  mid %= 1e7
  const lowText = String(low).padStart(7, '0')
  if (high === 0) return String(mid) + lowText
  return String(high) + String(mid).padStart(7, '0') + lowText
}

/** Signed (two's complement) variant of {@link formatUint64}. */
export function formatInt64(hi: number, lo: number): string {
  if (hi & 0x80000000) {
    const nlo = (~lo + 1) >>> 0
    const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0
    return '-' + formatUint64(nhi, nlo)
  }
  return formatUint64(hi >>> 0, lo >>> 0)
}
