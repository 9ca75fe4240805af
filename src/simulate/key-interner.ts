const TWO32 = 4294967296
const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

/**
 * Interns 64-bit key values to dense integers in order of first appearance. Keys are compared by value modulo 2^64
 * (a key written unsigned, beyond 2^63 − 1, is the same key as its signed form), held as two 32-bit halves in an
 * open-addressing table of typed arrays: no BigInt, string or Map entry per key, and the row scanner can look a key
 * up straight from its digits.
 */
export class KeyInterner {
  private hi = new Uint32Array(1 << 12)
  private lo = new Uint32Array(1 << 12)
  /** id + 1 per slot; 0 = empty */
  private slot = new Int32Array(1 << 12)
  private count = 0

  get size(): number {
    return this.count
  }

  /** The id of the key hi·2^32 + lo (unsigned halves), assigned on first sight. */
  idOf(hi: number, lo: number): number {
    let mask = this.slot.length - 1
    let i = hashHalves(hi, lo) & mask
    for (;;) {
      const s = this.slot[i]
      if (s === 0) break
      if (this.lo[i] === lo && this.hi[i] === hi) return s - 1
      i = (i + 1) & mask
    }
    if (2 * (this.count + 1) > this.slot.length) {
      this.grow()
      mask = this.slot.length - 1
      i = hashHalves(hi, lo) & mask
      while (this.slot[i] !== 0) i = (i + 1) & mask
    }
    this.hi[i] = hi
    this.lo[i] = lo
    this.slot[i] = ++this.count
    return this.count - 1
  }

  /** The id of a parsed JSON value; undefined when it is not an integer in [−2^63, 2^64 − 1]. */
  id(v: unknown): number | undefined {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) return undefined // the parser yields bigint beyond 2^53
      return this.idOf(Math.floor(v / TWO32) >>> 0, v >>> 0)
    }
    if (typeof v !== 'bigint' || v < INT64_MIN || v > UINT64_MAX) return undefined
    const u = BigInt.asUintN(64, v)
    return this.idOf(Number(u >> 32n), Number(u & 0xffffffffn))
  }

  private grow(): void {
    const {hi, lo, slot} = this
    const n = slot.length * 2
    const hi2 = new Uint32Array(n)
    const lo2 = new Uint32Array(n)
    const slot2 = new Int32Array(n)
    const mask = n - 1
    for (let j = 0; j < slot.length; j++) {
      if (slot[j] === 0) continue
      let i = hashHalves(hi[j], lo[j]) & mask
      while (slot2[i] !== 0) i = (i + 1) & mask
      hi2[i] = hi[j]
      lo2[i] = lo[j]
      slot2[i] = slot[j]
    }
    this.hi = hi2
    this.lo = lo2
    this.slot = slot2
  }
}

function hashHalves(hi: number, lo: number): number {
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi ^ 0x7f4a7c15, 0xc2b2ae35)
  h ^= h >>> 16
  return Math.imul(h, 0x27d4eb2d) ^ (h >>> 13)
}
