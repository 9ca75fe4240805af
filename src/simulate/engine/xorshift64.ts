// The Optimizer's random_lru generator (docs/simulate.md §4.7.2): xorshift64 with shifts 13, 7, 17 on an unsigned 64-bit
// state, and its `NEXT() mod n`. XorShift64 is the BigInt reference; XorShift64Halves computes the same sequence on
// two 32-bit halves, which random_lru's sampling (a thousand draws per eviction by default) needs to be fast.

const M64 = (1n << 64n) - 1n
export const DEFAULT_SEED = 0x12345678abcdef01n

/** xorshift64 (13, 7, 17), the original's generator. */
export class XorShift64 {
  constructor(private x: bigint) {}

  /** the state (the last value returned) */
  get state(): bigint {
    return this.x
  }

  next(): bigint {
    let x = this.x
    x ^= (x << 13n) & M64
    x ^= x >> 7n
    x ^= (x << 17n) & M64
    this.x = x
    return x
  }
}

/** up to this n, every intermediate of fillMod's remainder stays an integer below 2⁵¹ (exact in a double) */
const EXACT_MOD_LIMIT = 2 ** 25

/** The same generator on two 32-bit halves; `fillMod` gives `Number(next() % BigInt(n))` exactly. */
export class XorShift64Halves {
  /** the state's high and low 32 bits (as int32) */
  hi: number
  lo: number

  constructor(seed: bigint) {
    this.hi = Number((seed >> 32n) & 0xffffffffn) | 0
    this.lo = Number(seed & 0xffffffffn) | 0
  }

  /** the state as an unsigned 64-bit value (the last value drawn) */
  get state(): bigint {
    return (BigInt(this.hi >>> 0) << 32n) | BigInt(this.lo >>> 0)
  }

  /**
   * Fills out[0, count) with NEXT() mod n for count successive draws (1 ≤ n < 2³¹). The hot loop of random_lru:
   * the state lives in int32 locals, and each remainder takes two multiply-by-reciprocal steps instead of a
   * floating-point modulo, x mod n = ((hi mod n) · (2³² mod n) + lo) mod n.
   */
  fillMod(out: Int32Array, count: number, n: number): void {
    if (n > EXACT_MOD_LIMIT) {
      this.fillModBig(out, count, n)
      return
    }
    let hi = this.hi
    let lo = this.lo
    const c = 4294967296 % n
    const inv = 1 / n
    for (let j = 0; j < count; j++) {
      // x ^= x << 13; x ^= x >> 7 (logical); x ^= x << 17, on the halves
      hi ^= (hi << 13) | (lo >>> 19)
      lo ^= lo << 13
      lo ^= (lo >>> 7) | (hi << 25)
      hi ^= hi >>> 7
      hi ^= (hi << 17) | (lo >>> 15)
      lo ^= lo << 17
      // q = floor(v · (1/n)) is off by at most one for v < 2⁵¹, so one correction step gives v mod n
      const h = hi >>> 0
      let m = h - Math.floor(h * inv) * n
      if (m < 0) m += n
      else if (m >= n) m -= n
      const v = m * c + (lo >>> 0)
      let r = v - Math.floor(v * inv) * n
      if (r < 0) r += n
      else if (r >= n) r -= n
      out[j] = r
    }
    this.hi = hi
    this.lo = lo
  }

  /** fillMod for n above 2²⁶, through BigInt */
  private fillModBig(out: Int32Array, count: number, n: number): void {
    const reference = new XorShift64(this.state)
    const bn = BigInt(n)
    for (let j = 0; j < count; j++) out[j] = Number(reference.next() % bn)
    const x = reference.state
    this.hi = Number(x >> 32n) | 0
    this.lo = Number(x & 0xffffffffn) | 0
  }
}
