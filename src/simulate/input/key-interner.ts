const TWO32 = 4294967296
const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

/** slots of the table at least: room for 2^11 keys before it grows */
const FIRST_SLOTS = 1 << 12
/**
 * Trace bytes per distinct key expected when sizing the table for a trace: a key takes ≥ 3 bytes written (`0, `)
 * and ~22 in a converted trace, and real traces repeat keys (prefixes, the writes after gets), so a quarter of the
 * most there could be. A table sized so skips the doublings (each a rehash of every key, at random addresses).
 */
const BYTES_PER_KEY = 88
/** the largest table made in advance (2^23 slots, 96 MB); beyond it the table grows as keys come */
const MAX_PRESIZED_SLOTS = 1 << 23

/**
 * Interns 64-bit key values to dense integers in order of first appearance. Keys are compared by value modulo 2^64
 * (a key written unsigned, beyond 2^63 − 1, is the same key as its signed form), held as two 32-bit halves in an
 * open-addressing table of typed arrays: no BigInt, string or Map entry per key, and the row scanner can look a key
 * up straight from its digits. A slot is three adjacent words (hi, lo, id + 1) so that a probe touches one cache
 * line, not three: with millions of keys the table is far beyond the caches and a lookup costs its misses.
 */
export class KeyInterner {
  /** slot i is table[3i] = hi, table[3i + 1] = lo, table[3i + 2] = id + 1 (0 = empty) */
  private table: Uint32Array
  private slots: number
  private count = 0

  /** `expectedKeys`: the distinct keys expected (the table is made with room for them, within limits) */
  constructor(expectedKeys = 0) {
    let slots = FIRST_SLOTS
    while (slots < 2 * expectedKeys && slots < MAX_PRESIZED_SLOTS) slots *= 2
    this.slots = slots
    this.table = new Uint32Array(3 * slots)
  }

  /** An interner sized for a trace file of `bytes` bytes. */
  static forTraceBytes(bytes: number): KeyInterner {
    return new KeyInterner(bytes / BYTES_PER_KEY)
  }

  get size(): number {
    return this.count
  }

  /** The id of the key hi·2^32 + lo (unsigned halves), assigned on first sight. */
  idOf(hi: number, lo: number): number {
    let t = this.table
    let mask = this.slots - 1
    let i = hashHalves(hi, lo) & mask
    for (;;) {
      const at = 3 * i
      const s = t[at + 2]
      if (s === 0) break
      if (t[at + 1] === lo && t[at] === hi) return s - 1
      i = (i + 1) & mask
    }
    if (2 * (this.count + 1) > this.slots) {
      this.grow()
      t = this.table
      mask = this.slots - 1
      i = hashHalves(hi, lo) & mask
      while (t[3 * i + 2] !== 0) i = (i + 1) & mask
    }
    const at = 3 * i
    t[at] = hi
    t[at + 1] = lo
    t[at + 2] = ++this.count
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
    const old = this.table
    const n = this.slots * 2
    const t = new Uint32Array(3 * n)
    const mask = n - 1
    for (let at = 0; at < old.length; at += 3) {
      const s = old[at + 2]
      if (s === 0) continue
      const hi = old[at]
      const lo = old[at + 1]
      let i = hashHalves(hi, lo) & mask
      while (t[3 * i + 2] !== 0) i = (i + 1) & mask
      t[3 * i] = hi
      t[3 * i + 1] = lo
      t[3 * i + 2] = s
    }
    this.table = t
    this.slots = n
  }
}

function hashHalves(hi: number, lo: number): number {
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi ^ 0x7f4a7c15, 0xc2b2ae35)
  h ^= h >>> 16
  return Math.imul(h, 0x27d4eb2d) ^ (h >>> 13)
}
