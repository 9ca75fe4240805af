// The lru's recency order over its shards (docs/simulate.md §10.9): each shard a ring of slots in recency order,
// and the shard whose tail is oldest. The entries are a tiered instance's (block × tier); each keeps its slot's place
// and its shard in its record, so that an access writes one slot and an eviction reads its shard's ring in order.

import {partialSortBy} from '../../util/libstdcxx-sort.js'

/** An lru entry's record (2 Int32 fields from 2 × e in its instance's records): its slot's serial, its shard. */
export const SLOT = 0
export const SHARD = 1

/** a slot's entry once the entry has left it (accessed again, so a newer slot holds it; or removed) */
const STALE = -1
/** a time above every tier time: an empty shard's */
const EMPTY = Infinity
/** a new ring's slots */
const FIRST_SLOTS = 8

/** Whatever holds the entries' records (an instance's, grown as it makes blocks: read anew at each use). */
export interface LruRecords {
  readonly rec: Int32Array
}

/**
 * The shard whose tail is oldest (ties: the lowest index), kept in a tournament tree over the shards' tail times.
 * A shard whose tail may have changed is marked and its leaf recomputed before the next query.
 */
class OldestTail {
  private readonly leaves: number
  private readonly time: Float64Array
  private readonly shard: Int32Array
  private readonly marked: Uint8Array
  private readonly pending: number[] = []

  constructor(private readonly rings: LruRings) {
    let leaves = 1
    while (leaves < rings.shards) leaves *= 2
    this.leaves = leaves
    this.time = new Float64Array(2 * leaves).fill(EMPTY)
    this.shard = new Int32Array(2 * leaves)
    for (let i = 0; i < leaves; i++) this.shard[leaves + i] = i
    for (let i = leaves - 1; i >= 1; i--) this.shard[i] = this.shard[2 * i]
    this.marked = new Uint8Array(rings.shards)
  }

  /** the shard's tail may have changed (or its tail's time) */
  mark(s: number): void {
    if (this.marked[s] === 1) return
    this.marked[s] = 1
    this.pending.push(s)
  }

  /**
   * Recomputes shard s's leaf and its path to the root. The winner climbing the path is held in hand, so each
   * level reads only the sibling's: a tie goes to the left child (the lower shards).
   */
  update(s: number): void {
    const time = this.time
    const shard = this.shard
    let i = this.leaves + s
    let t = this.rings.tailTime(s)
    let w = s
    time[i] = t
    for (; i > 1; i >>= 1) {
      const sibling = i ^ 1
      const u = time[sibling]
      if ((i & 1) === 0 ? u < t : u <= t) {
        t = u
        w = shard[sibling]
      }
      time[i >> 1] = t
      shard[i >> 1] = w
    }
  }

  /** the shard with the oldest tail, or -1 when every shard is empty */
  oldest(): number {
    const pending = this.pending
    if (pending.length > 0) {
      for (let k = 0; k < pending.length; k++) {
        this.marked[pending[k]] = 0
        this.update(pending[k])
      }
      // (a call into the runtime even when the length is 0 already)
      pending.length = 0
    }
    return this.time[1] === EMPTY ? -1 : this.shard[1]
  }
}

/**
 * The lru's shards (the Optimizer's recency lists, front = most recent). Shard k is a ring of slots, each an entry
 * and its time (the tick of its write into the tier or of its last access through it), from its tail (oldest) to its
 * front: an entry registered or accessed takes a new slot at the front, and its old slot is marked stale; the tail is
 * the oldest slot not stale, and the slots an eviction takes from it are read in order. A slot's place is its serial
 * (counted on from the shard's first, wrapping as an Int32) modulo its ring's size, so a ring that grows keeps its
 * entries' serials; a full ring whose stale slots are as many as its live ones is compacted instead, so a ring holds
 * at most about four times its live entries. The rings lie side by side in one array, two Int32 per slot (eight
 * slots to a cache line); once the group's ticks outgrow an Int32, the times move to doubles beside it.
 */
export class LruRings {
  /** the rings, an entry (or STALE) and its time per slot: shard k's slot of serial s at {@link at} */
  private slots: Int32Array
  /** the slots' times once they outgrow the slots' (see {@link widen}), at half a slot's place; the slots' go unread */
  private wide: Float64Array | undefined
  /** where shard k's ring begins in {@link slots} (in slots) */
  private readonly base: Int32Array
  /** shard k's ring size less one (a power of two less one) */
  private readonly mask: Int32Array
  /** the slots taken in {@link slots}: the rings, and those left behind by rings that grew */
  private top: number
  /** the serial the shard's next front slot gets */
  private readonly head: Int32Array
  /** the serial of the shard's tail (its oldest live slot; the head when it has none) */
  private readonly tail: Int32Array
  /** the shard's live slots (its entries) */
  private readonly live: Int32Array
  private readonly oldest: OldestTail | undefined
  /** an eviction's candidates: entries, their times and shards (reused, grown to the most asked) */
  private candidates = new Int32Array(0)
  private times = new Float64Array(0)
  private shardsOf = new Int32Array(0)
  /** the candidates' order after a partial sort: their indices (reused) */
  private order = new Int32Array(0)
  /** candidate a is older than candidate b */
  private readonly older = (a: number, b: number): boolean => this.times[a] < this.times[b]
  /** the candidates taken after a partial sort, in order (reused) */
  private sorted = new Int32Array(0)
  /** the entries the last {@link evict} took, in order (the candidates, or the sorted ones) */
  taken = new Int32Array(0)

  constructor(
    private readonly records: LruRecords,
    readonly shards: number,
  ) {
    this.slots = new Int32Array(2 * 2 * FIRST_SLOTS * shards)
    this.base = Int32Array.from({length: shards}, (_, k) => k * FIRST_SLOTS)
    this.mask = new Int32Array(shards).fill(FIRST_SLOTS - 1)
    this.top = shards * FIRST_SLOTS
    this.head = new Int32Array(shards)
    this.tail = new Int32Array(shards)
    this.live = new Int32Array(shards)
    this.oldest = shards > 1 ? new OldestTail(this) : undefined
  }

  /** where shard k's slot of serial s is in {@link slots} */
  private at(k: number, s: number): number {
    return 2 * (this.base[k] + (s & this.mask[k]))
  }

  /** the time of the slot at i (see {@link at}) */
  private timeAt(i: number): number {
    return this.wide === undefined ? this.slots[i + 1] : this.wide[i >> 1]
  }

  private setTimeAt(i: number, t: number): void {
    if (this.wide === undefined) this.slots[i + 1] = t
    else this.wide[i >> 1] = t
  }

  /** the group's ticks outgrow an Int32: the times move to doubles */
  widen(): void {
    if (this.wide !== undefined) return
    this.wide = new Float64Array(this.slots.length / 2)
    for (let i = 0; i < this.slots.length; i += 2) this.wide[i >> 1] = this.slots[i + 1]
  }

  /** the entry's shard */
  shardOf(e: number): number {
    return this.shards === 1 ? 0 : this.records.rec[2 * e + SHARD]
  }

  /** the time of shard k's tail (EMPTY when it has none) */
  tailTime(k: number): number {
    return this.live[k] === 0 ? EMPTY : this.timeAt(this.at(k, this.tail[k]))
  }

  /** entry e (held by no slot) takes a new slot at the front of shard k, at time t */
  push(k: number, e: number, t: number): void {
    if (((this.head[k] - this.tail[k]) | 0) > this.mask[k]) this.makeRoom(k)
    const h = this.head[k]
    const i = this.at(k, h)
    this.slots[i] = e
    this.setTimeAt(i, t)
    this.records.rec[2 * e + SLOT] = h
    this.head[k] = (h + 1) | 0
    if (this.live[k]++ === 0) this.oldest?.mark(k)
  }

  /** entry e (held) is accessed at time t: it moves to its shard's front */
  touch(e: number, t: number): void {
    const k = this.shardOf(e)
    const s = this.records.rec[2 * e + SLOT]
    if (s === ((this.head[k] - 1) | 0)) {
      // at the front already: only its time changes (and the tail's, when it is the tail)
      this.setTimeAt(this.at(k, s), t)
      if (s === this.tail[k]) this.oldest?.mark(k)
      return
    }
    this.remove(e)
    this.push(k, e, t)
  }

  /** entry e (held) leaves its shard */
  remove(e: number): void {
    const k = this.shardOf(e)
    const s = this.records.rec[2 * e + SLOT]
    this.slots[this.at(k, s)] = STALE
    this.live[k]--
    if (s === this.tail[k]) {
      this.skipStale(k)
      this.oldest?.mark(k)
    }
  }

  /**
   * The Optimizer's EvictBlocks(count) (`wanted` candidates asked, in up to `rounds` rounds): the entries to evict
   * leave their shards for {@link taken}, in order; returns how many.
   */
  evict(count: number, wanted: number, rounds: number): number {
    const m = this.gather(wanted, rounds, Math.ceil(wanted / rounds))
    if (m <= count) {
      this.taken = this.candidates
      return m
    }
    if (this.order.length < m) this.order = new Int32Array(this.candidates.length)
    const order = this.order
    for (let k = 0; k < m; k++) order[k] = k
    partialSortBy(order, count, this.older, 0, m)
    // the others go back onto their shards' tails, in the sorted array's order
    for (let k = count; k < m; k++)
      this.pushBack(this.shardsOf[order[k]], this.candidates[order[k]], this.times[order[k]])
    if (this.sorted.length < count) this.sorted = new Int32Array(this.candidates.length)
    for (let k = 0; k < count; k++) this.sorted[k] = this.candidates[order[k]]
    this.taken = this.sorted
    return count
  }

  /** entry e, taken by {@link gather}, is put back behind shard k's tail at its time t: it becomes the tail */
  pushBack(k: number, e: number, t: number): void {
    if (((this.head[k] - this.tail[k]) | 0) > this.mask[k]) this.makeRoom(k)
    const s = (this.tail[k] - 1) | 0
    const i = this.at(k, s)
    this.slots[i] = e
    this.setTimeAt(i, t)
    this.records.rec[2 * e + SLOT] = s
    this.tail[k] = s
    this.live[k]++
    this.oldest?.mark(k)
  }

  /**
   * An eviction's candidates (the Optimizer's EvictBlocks, its rounds): up to `rounds` rounds, each taking up to
   * `perRound` entries from the tail of the shard whose tail is oldest, until `wanted` are taken. They are left in
   * {@link candidates}, their times and shards beside them; returns how many.
   */
  private gather(wanted: number, rounds: number, perRound: number): number {
    if (this.candidates.length < wanted) {
      this.candidates = new Int32Array(wanted)
      this.times = new Float64Array(wanted)
      this.shardsOf = new Int32Array(wanted)
    }
    const candidates = this.candidates
    const times = this.times
    const shardsOf = this.shardsOf
    let m = 0
    for (let r = 0; r < rounds && m < wanted; r++) {
      const k = this.oldest === undefined ? (this.live[0] === 0 ? -1 : 0) : this.oldest.oldest()
      if (k < 0) break
      for (let j = 0; j < perRound && this.live[k] > 0 && m < wanted; j++) {
        const i = this.at(k, this.tail[k])
        candidates[m] = this.slots[i]
        times[m] = this.timeAt(i)
        shardsOf[m] = k
        m++
        this.tail[k] = (this.tail[k] + 1) | 0
        this.live[k]--
        this.skipStale(k)
      }
      this.oldest?.update(k)
    }
    return m
  }

  /** moves shard k's tail past its stale slots */
  private skipStale(k: number): void {
    if (this.live[k] === 0) {
      this.tail[k] = this.head[k]
      return
    }
    let s = this.tail[k]
    while (this.slots[this.at(k, s)] === STALE) s = (s + 1) | 0
    this.tail[k] = s
  }

  /** shard k's ring is full: compacted when half of it or more is stale, else doubled */
  private makeRoom(k: number): void {
    const slots = this.slots
    const head = this.head[k]
    if (this.mask[k] + 1 - this.live[k] >= this.live[k]) {
      // the live slots close up towards the tail, in order (a slot is written only once its own was read)
      const rec = this.records.rec
      let w = this.tail[k]
      for (let s = w; s !== head; s = (s + 1) | 0) {
        const i = this.at(k, s)
        const e = slots[i]
        if (e === STALE) continue
        if (s !== w) {
          const j = this.at(k, w)
          slots[j] = e
          this.setTimeAt(j, this.timeAt(i))
          rec[2 * e + SLOT] = w
        }
        w = (w + 1) | 0
      }
      this.head[k] = w
      return
    }
    const size = 2 * (this.mask[k] + 1)
    if (2 * (this.top + size) <= slots.length) {
      this.move(k, size, slots, this.wide)
      return
    }
    // no room at the end: every ring is laid out anew, side by side, with as much room again behind them
    const wide = this.wide
    let total = size
    for (let j = 0; j < this.shards; j++) if (j !== k) total += this.mask[j] + 1
    this.slots = new Int32Array(2 * 2 * total)
    if (wide !== undefined) this.wide = new Float64Array(2 * total)
    this.top = 0
    for (let j = 0; j < this.shards; j++) this.move(j, j === k ? size : this.mask[j] + 1, slots, wide)
  }

  /** moves shard k's ring (in `from`, its times in `fromWide` when wide) to a ring of `size` slots at the top */
  private move(k: number, size: number, from: Int32Array, fromWide: Float64Array | undefined): void {
    const head = this.head[k]
    const was = this.base[k]
    const mask = this.mask[k]
    this.base[k] = this.top
    this.mask[k] = size - 1
    this.top += size
    for (let s = this.tail[k]; s !== head; s = (s + 1) | 0) {
      const i = 2 * (was + (s & mask))
      const j = this.at(k, s)
      this.slots[j] = from[i]
      this.setTimeAt(j, fromWide === undefined ? from[i + 1] : fromWide[i >> 1])
    }
  }
}
