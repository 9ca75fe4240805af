import {grown} from '../../util/grown.js'

const TWO32 = 4294967296
const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

/** slots of the table at least: room for 2^11 keys before it grows */
const FIRST_SLOTS = 1 << 12
/**
 * Trace bytes per distinct key expected when making room for a trace's table: a key takes ≥ 3 bytes written (`0, `)
 * and ~22 in a converted trace, and real traces repeat keys (prefixes, the writes after gets), so a quarter of the
 * most there could be. The room is only reserved: the table uses as many slots as its keys need and doubles within
 * the room, so a trace that repeats its keys touches no more memory than its distinct keys take.
 */
const BYTES_PER_KEY = 88
/** the largest room reserved in advance (2^23 slots, 64 MB); beyond it the table is made anew as it grows */
const MAX_PRESIZED_SLOTS = 1 << 23

/**
 * Interns 64-bit key values to dense integers in order of first appearance. Keys are compared by value modulo 2^64
 * (a key written unsigned, beyond 2^63 − 1, is the same key as its signed form), held as two 32-bit halves: no
 * BigInt, string or Map entry per key, and the row scanner can look a key up straight from its digits.
 *
 * The keys are kept in order of their ids (`byId`), and an open-addressing table maps a key's hash to its id. A
 * slot holds the key's low half beside the id (one cache line per probe): a probe that finds another key's low
 * half moves on without reading `byId`, so only a key that is there reads its high half from `byId`. With millions
 * of keys the table is far beyond the caches and a probe costs its misses: {@link idAfter} avoids most of them.
 */
export class KeyInterner {
  /** slot i is table[2i] = lo, table[2i + 1] = id + 1 (0 = empty) */
  private table: Uint32Array
  private slots: number
  private count = 0
  /** key id j is byId[2j] = hi, byId[2j + 1] = lo */
  private byId: Uint32Array

  /**
   * `expectedKeys`: the distinct keys expected. Room is reserved for them (within limits), but a new array's pages
   * are taken only when written: the table starts small and doubles inside that room (slots are written at random
   * places, so a table sized for keys that never come would take all its pages), and ids fill `byId` in order.
   */
  constructor(expectedKeys = 0) {
    let room = FIRST_SLOTS
    while (room < 2 * expectedKeys && room < MAX_PRESIZED_SLOTS) room *= 2
    this.slots = FIRST_SLOTS
    this.table = new Uint32Array(2 * room)
    this.byId = new Uint32Array(room)
  }

  /** An interner sized for a trace file of `bytes` bytes. */
  static forTraceBytes(bytes: number): KeyInterner {
    return new KeyInterner(bytes / BYTES_PER_KEY)
  }

  get size(): number {
    return this.count
  }

  /**
   * {@link idOf} for a key that follows the key of id `prev` in a list (-1 for a list's first key). A trace's lists
   * share prefixes, and keys first seen together get consecutive ids, so a known key is most often prev + 1: that
   * one is compared first, in the ids' own order (memory read in sequence), before a probe of the table at a random
   * place, which on a large trace costs a cache and TLB miss (docs/performance-notes.md). The same id either way.
   */
  idAfter(prev: number, hi: number, lo: number): number {
    const next = prev + 1
    if (next > 0 && next < this.count) {
      const k = this.byId
      if (k[2 * next + 1] === lo && k[2 * next] === hi) return next
    }
    return this.idOf(hi, lo)
  }

  /** The id of the key hi·2^32 + lo (unsigned halves), assigned on first sight. */
  idOf(hi: number, lo: number): number {
    let t = this.table
    let mask = this.slots - 1
    let i = hashHalves(hi, lo) & mask
    for (;;) {
      const at = 2 * i
      const s = t[at + 1]
      if (s === 0) break
      if (t[at] === lo && this.byId[2 * (s - 1)] === hi) return s - 1
      i = (i + 1) & mask
    }
    if (2 * (this.count + 1) > this.slots) {
      this.grow()
      t = this.table
      mask = this.slots - 1
      i = hashHalves(hi, lo) & mask
      while (t[2 * i + 1] !== 0) i = (i + 1) & mask
    }
    const id = this.count++
    t[2 * i] = lo
    t[2 * i + 1] = id + 1
    if (2 * id === this.byId.length) this.byId = grown(this.byId, 2 * this.byId.length)
    this.byId[2 * id] = hi
    this.byId[2 * id + 1] = lo
    return id
  }

  /** The key of id `id` read as an unsigned 64-bit integer, modulo m (m ≥ 1). */
  unsignedMod(id: number, m: number): number {
    return unsignedModOf(this.byId, id, m)
  }

  /** The values (halves, as {@link unsignedModOf} reads them) of the keys from id `from` on. */
  valuesFrom(from: number): Uint32Array {
    return this.byId.slice(2 * from, 2 * this.count)
  }

  /**
   * Takes keys given the next ids by another interner (their values from its {@link valuesFrom}): this one then
   * mirrors that one's values by id, for {@link unsignedMod}; it looks up no key (its table holds none of them).
   */
  adoptValues(values: Uint32Array): void {
    const need = 2 * this.count + values.length
    if (need > this.byId.length) this.byId = grown(this.byId, Math.max(need, 2 * this.byId.length))
    this.byId.set(values, 2 * this.count)
    this.count += values.length / 2
  }

  /** The keys' values in id order, as {@link unsignedModOf} reads them, on shared memory (for worker threads). */
  sharedValues(): Uint32Array {
    const values = new Uint32Array(new SharedArrayBuffer(Math.max(1, 2 * this.count) * 4))
    values.set(this.byId.subarray(0, 2 * this.count))
    return values
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

  /**
   * The table twice as large, every key placed again by its hash (in the order of their ids): within its room when
   * there is room (the slots in use cleared, those beyond never written yet), else in a new array.
   */
  private grow(): void {
    const n = this.slots * 2
    const inRoom = 2 * n <= this.table.length
    const t = inRoom ? this.table.fill(0, 0, 2 * this.slots) : new Uint32Array(2 * n)
    const mask = n - 1
    const k = this.byId
    for (let id = 0; id < this.count; id++) {
      const hi = k[2 * id]
      const lo = k[2 * id + 1]
      let i = hashHalves(hi, lo) & mask
      while (t[2 * i + 1] !== 0) i = (i + 1) & mask
      t[2 * i] = lo
      t[2 * i + 1] = id + 1
    }
    this.table = t
    this.slots = n
  }
}

/**
 * Each key's shard under each shard count of a play's sharded LRUs (its value read as an unsigned 64-bit integer,
 * modulo the count), by key id. The shards are computed where the keys are interned, on the parse thread when there
 * is one (which hands them back with its rows, {@link KeyShards.of}), so that the play reads one small number per
 * block written, written there moments before, instead of the key's value.
 */
export class KeyShards {
  /** key id j's shard under counts[i] is at j × counts.length + i */
  private shards: Uint16Array | Uint32Array
  private count = 0

  constructor(readonly counts: readonly number[]) {
    this.shards = KeyShards.array(counts, 1024 * counts.length)
  }

  /** The shards of the keys `keys` holds from id `from` on, in id order (for {@link adopt}). */
  static of(keys: KeyInterner, from: number, counts: readonly number[]): Uint16Array | Uint32Array {
    const out = KeyShards.array(counts, (keys.size - from) * counts.length)
    let k = 0
    for (let id = from; id < keys.size; id++) for (const m of counts) out[k++] = keys.unsignedMod(id, m)
    return out
  }

  /** an array of n shards: 16-bit while every count allows */
  private static array(counts: readonly number[], n: number): Uint16Array | Uint32Array {
    return counts.every((m) => m <= 65_536) ? new Uint16Array(n) : new Uint32Array(n)
  }

  /** Takes the shards of the next keys (from {@link of}). */
  adopt(shards: Uint16Array | Uint32Array): void {
    const at = this.count * this.counts.length
    const need = at + shards.length
    if (need > this.shards.length) this.shards = grown(this.shards, Math.max(need, 2 * this.shards.length))
    this.shards.set(shards, at)
    this.count += shards.length / this.counts.length
  }

  /** Takes the shards of the keys `keys` (this thread's interner) holds beyond those taken already. */
  takeFrom(keys: KeyInterner): void {
    if (keys.size > this.count) this.adopt(KeyShards.of(keys, this.count, this.counts))
  }

  /** The shard of key `key` under count `m` (one of the counts). */
  shardOf(key: number, m: number): number {
    const c = this.counts.length
    const i = c === 1 && this.counts[0] === m ? 0 : this.counts.indexOf(m)
    if (i < 0 || key >= this.count) throw new Error(`no shard kept for key ${key} under a count of ${m}`)
    return this.shards[key * c + i]
  }
}

function hashHalves(hi: number, lo: number): number {
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi ^ 0x7f4a7c15, 0xc2b2ae35)
  h ^= h >>> 16
  return Math.imul(h, 0x27d4eb2d) ^ (h >>> 13)
}

/** The key of id `id` in `values` (id j's halves at 2j, 2j + 1) read as an unsigned 64-bit integer, modulo m (m ≥ 1). */
export function unsignedModOf(values: Uint32Array, id: number, m: number): number {
  const lo = values[2 * id + 1]
  // a power of two divides 2^32: the low half alone decides (the sharded LRU's default count is one)
  if (m <= 2 ** 30 && (m & (m - 1)) === 0) return lo & (m - 1)
  const hi = values[2 * id]
  if (m <= 2 ** 15) {
    // the value's 16-bit digits folded in from the top (Horner): every step stays below 2^31, so it is integer
    // arithmetic (a remainder of doubles, as below, takes several times as long)
    const r = hi % m
    return (((((r << 16) | (lo >>> 16)) % m) << 16) | (lo & 0xffff)) % m
  }
  // exact in doubles while (m - 1)² stays below 2^53
  if (m <= 2 ** 26) return ((hi % m) * (TWO32 % m) + (lo % m)) % m
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(m))
}
