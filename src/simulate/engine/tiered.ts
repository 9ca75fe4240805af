// The July-2026 Optimizer's cache model (docs/simulate.md §10): storage tiers inside a group, each tier with its own
// eviction policy per instance; write modes, promotion, access propagation, selective copies, cascade demotion, TTL
// expiry and the sharded LRU. An instance's prefix tree and its walks are the untiered engine's (engine.ts): the
// instance is the policy of a SimInstance, told of every block written and every block hit. What a block is in the
// tiers lives in typed arrays beside the tree, indexed by block id (a slot of the tree) and by entry id
// (block id × tiers + tier): no object per block or per block and tier, so the garbage collector has no heap of
// them to trace (docs/simulate.md §8.3).

import {grown} from '../../util/grown.js'
import {partialSortBy} from '../../util/libstdcxx-sort.js'
import {type CacheTree, NONE} from './cache-tree.js'
import {type Policy, type ReadResult, SimInstance} from './engine.js'
import {XorShift64} from './xorshift64.js'
import type {EdgeStrategy, WriteMode} from '../config/tiers.js'

export type {EdgeStrategy, WriteMode}

const INT64_MAX = 2n ** 63n - 1n

/**
 * The tiered model orders blocks by time as ticks, not as timestamps: a group plays its rows in time order, and each
 * new timestamp gets the next tick (equal timestamps share one), so ticks compare as the timestamps do and fit in
 * typed arrays (a BigInt per block and tier would be a heap object the collector traces, and each comparison a call).
 * NEVER is the tick of INT64_MAX, the reference's time of a block with none (a timestamp of INT64_MAX gets it).
 */
const NEVER = Number.MAX_SAFE_INTEGER

/**
 * An entry's record in {@link TieredInstance.rec}: its neighbours in its policy's list and, when the policy orders
 * entries by time, its time (a tick) and its lru shard, side by side (the record's fields at these offsets).
 */
const PREV = 0
const NEXT = 1
const TIME = 2
const SHARD = 3
/** the largest tick a record's time holds (Int32); past it the group's instances keep their times as doubles */
const TICK_MAX = 0x7fffffff

/** an entry's flags: the tier holds the block (its location) */
const PRESENT = 1
/** the tier's policy holds the entry (an lru's lists, a random_lru's array, a ttl's list, a leaf_aware_lru's set) */
const HELD = 2
/** leaf_aware_lru: the entry is in the evictable list (a held block of a parent node is out of it) */
const LISTED = 4

/** A doubly linked list of entries, front = most recent, linked through the instance's entry links. */
class EntryList {
  head = NONE
  tail = NONE

  constructor(private readonly s: TieredInstance) {}

  /** (reads no other record: a head has no previous, and the old head's link is only written) */
  pushFront(e: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const h = this.head
    rec[st * e + PREV] = NONE
    rec[st * e + NEXT] = h
    if (h !== NONE) rec[st * h + PREV] = e
    else this.tail = e
    this.head = e
  }

  unlink(e: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const p = rec[st * e + PREV]
    const n = rec[st * e + NEXT]
    if (p !== NONE) rec[st * p + NEXT] = n
    else this.head = n
    if (n !== NONE) rec[st * n + PREV] = p
    else this.tail = p
    rec[st * e + PREV] = rec[st * e + NEXT] = NONE
  }

  toFront(e: number): void {
    if (this.head === e) return
    this.unlink(e)
    this.pushFront(e)
  }

  /** inserts e before `at` (NONE: at the back) */
  insertBefore(e: number, at: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const p = at === NONE ? this.tail : rec[st * at + PREV]
    rec[st * e + NEXT] = at
    rec[st * e + PREV] = p
    if (p !== NONE) rec[st * p + NEXT] = e
    else this.head = e
    if (at !== NONE) rec[st * at + PREV] = e
    else this.tail = e
  }
}

/** One instance's policy for one tier, over block ids. */
interface TierPolicy {
  readonly size: number
  /** false: the manager never asks it for capacity (ttl without fallback_on_pressure) */
  readonly evictsForCapacity: boolean
  /** the tier now holds block b, since tick `tick` */
  register(b: number, tick: number): void
  /** a hit at tick `tick` (timestamp `ts`) */
  access(b: number, tick: number, ts: bigint): void
  /** removes up to n blocks from the tier (their location included), appended to `out`; how many */
  evict(n: number, out: number[]): number
  /** forgets a block whose location is gone already */
  forget(b: number): void
}

/** a time above every tier time: an empty shard's */
const EMPTY = Infinity

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

  constructor(
    /** the shards' tails (NONE: empty) */
    private readonly tails: Int32Array,
    private readonly s: TieredInstance,
  ) {
    let leaves = 1
    while (leaves < tails.length) leaves *= 2
    this.leaves = leaves
    this.time = new Float64Array(2 * leaves).fill(EMPTY)
    this.shard = new Int32Array(2 * leaves)
    for (let i = 0; i < leaves; i++) this.shard[leaves + i] = i
    for (let i = leaves - 1; i >= 1; i--) this.shard[i] = this.shard[2 * i]
    this.marked = new Uint8Array(tails.length)
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
    const tail = this.tails[s]
    const time = this.time
    const shard = this.shard
    let i = this.leaves + s
    let t = tail === NONE ? EMPTY : this.s.timeOf(tail)
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
 * `lru`: `shards` recency lists (front = most recent), linked through the instance's entry links, their ends in
 * typed arrays; an eviction takes candidates from the oldest tails (exact with one shard).
 */
class ShardedLru implements TierPolicy {
  size = 0
  readonly evictsForCapacity = true
  private readonly heads: Int32Array
  private readonly tails: Int32Array
  private readonly shardCount: number
  private readonly rounds: number
  private readonly amplification: number
  private readonly oldest: OldestTail
  /** an eviction's candidates (reused, grown to the most asked) */
  private candidates = new Int32Array(0)
  /** entry a is older than entry b (the candidates' order) */
  private readonly older = (a: number, b: number): boolean => this.s.timeOf(a) < this.s.timeOf(b)

  constructor(
    private readonly s: TieredInstance,
    private readonly tier: number,
    sampleTimes: number,
    amplification: number,
  ) {
    this.shardCount = s.shardCount
    this.rounds = sampleTimes <= 0 ? 1 : sampleTimes
    this.amplification = amplification > 1 ? amplification : 1
    this.heads = new Int32Array(this.shardCount).fill(NONE)
    this.tails = new Int32Array(this.shardCount).fill(NONE)
    this.oldest = new OldestTail(this.tails, s)
  }

  /**
   * The entry's shard; marked (its leaf in the tournament recomputed before the next query) when `e` is or will
   * be its tail: only then can the tail, or the tail's time, change.
   */
  private shardOf(e: number, tailChanges: boolean): number {
    if (this.shardCount === 1) return 0
    const k = this.s.rec[4 * e + SHARD]
    const tail = this.tails[k]
    if (tailChanges || tail === e || tail === NONE) this.oldest.mark(k)
    return k
  }

  /**
   * puts e at the front of shard k, reading no other record (a head has no previous, and the old head's link is
   * only written: its cache line need not arrive before the play goes on)
   */
  private pushFront(k: number, e: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const h = this.heads[k]
    rec[st * e + PREV] = NONE
    rec[st * e + NEXT] = h
    if (h !== NONE) rec[st * h + PREV] = e
    else this.tails[k] = e
    this.heads[k] = e
  }

  /** puts e at the back of shard k */
  private pushBack(k: number, e: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const t = this.tails[k]
    rec[st * e + PREV] = t
    rec[st * e + NEXT] = NONE
    if (t !== NONE) rec[st * t + NEXT] = e
    else this.heads[k] = e
    this.tails[k] = e
  }

  private unlink(k: number, e: number): void {
    const rec = this.s.rec
    const st = this.s.stride
    const p = rec[st * e + PREV]
    const n = rec[st * e + NEXT]
    if (p !== NONE) rec[st * p + NEXT] = n
    else this.heads[k] = n
    if (n !== NONE) rec[st * n + PREV] = p
    else this.tails[k] = p
    rec[st * e + PREV] = rec[st * e + NEXT] = NONE
  }

  /** the shard whose tail is oldest (-1: none) */
  private oldestShard(): number {
    if (this.shardCount === 1) return this.tails[0] === NONE ? -1 : 0
    return this.oldest.oldest()
  }

  register(b: number): void {
    const e = this.s.entry(b, this.tier)
    this.s.flags[e] |= HELD
    const k = this.shardOf(e, false)
    this.pushFront(k, e)
    this.size++
  }

  access(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) === 0) return
    const k = this.shardOf(e, false)
    if (this.heads[k] === e) return
    this.unlink(k, e)
    this.pushFront(k, e)
  }

  forget(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) === 0) return
    this.unlink(this.shardOf(e, false), e)
    this.s.flags[e] &= ~HELD
    this.size--
  }

  evict(count: number, out: number[]): number {
    if (count <= 0 || this.size === 0) return 0
    const wanted = Math.max(Math.trunc(this.amplification * count), count)
    if (this.shardCount === 1 && wanted === count) {
      // exact: the candidates are the list's oldest, taken as they come
      let n = 0
      for (; n < count && this.tails[0] !== NONE; n++) {
        const e = this.tails[0]
        this.unlink(0, e)
        this.release(e, out)
      }
      return n
    }
    const rounds = Math.min(this.rounds, this.shardCount)
    const perRound = Math.ceil(wanted / rounds)
    if (this.candidates.length < wanted) this.candidates = new Int32Array(wanted)
    const candidates = this.candidates
    let m = 0
    for (let r = 0; r < rounds && m < wanted; r++) {
      const best = this.oldestShard()
      if (best < 0) break
      for (let k = 0; k < perRound && this.tails[best] !== NONE && m < wanted; k++) {
        const e = this.tails[best]
        this.unlink(best, e)
        candidates[m++] = e
      }
      if (this.shardCount > 1) this.oldest.update(best)
    }
    if (m > count) partialSortBy(candidates, count, this.older, 0, m)
    for (let k = count; k < m; k++) this.pushBack(this.shardOf(candidates[k], true), candidates[k])
    const n = Math.min(m, count)
    for (let k = 0; k < n; k++) this.release(candidates[k], out)
    return n
  }

  /** entry e, out of its list, leaves the tier: its block is appended to `out` */
  private release(e: number, out: number[]): void {
    const b = this.s.blockOf(e)
    this.s.flags[e] &= ~HELD
    this.size--
    this.s.dropLocation(b, this.tier)
    out.push(b)
  }
}

/** `leaf_aware_lru` (the July generation's): only blocks of data leaves are evictable. */
class LeafAwareLru implements TierPolicy {
  size = 0
  readonly evictsForCapacity = true
  private readonly list: EntryList

  constructor(
    private readonly s: TieredInstance,
    private readonly tier: number,
  ) {
    this.list = new EntryList(s)
  }

  register(b: number): void {
    const e = this.s.entry(b, this.tier)
    this.s.flags[e] |= HELD
    this.size++
    if (this.s.tree.nChildCount[this.s.tree.bNode[b]] === 0) {
      this.s.flags[e] |= LISTED
      this.list.pushFront(e)
    }
  }

  access(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & LISTED) !== 0) this.list.toFront(e)
  }

  forget(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) === 0) return
    this.s.flags[e] &= ~HELD
    this.size--
    this.unlist(e)
  }

  private unlist(e: number): void {
    if ((this.s.flags[e] & LISTED) === 0) return
    this.list.unlink(e)
    this.s.flags[e] &= ~LISTED
  }

  /** no block of any child node is held by any tier */
  private isDataLeaf(node: number): boolean {
    const t = this.s.tree
    for (let c = t.nFirstChild[node]; c !== NONE; c = t.nNextSib[c]) if (t.nLive[c] > 0) return false
    return true
  }

  evict(count: number, out: number[]): number {
    const t = this.s.tree
    let n = 0
    const processed = new Set<number>()
    while (n < count && this.list.tail !== NONE) {
      const e = this.list.tail
      const b = this.s.blockOf(e)
      this.unlist(e)
      if (!this.isDataLeaf(t.bNode[b])) continue // stays held, out of the list
      this.s.flags[e] &= ~HELD
      this.size--
      this.s.dropLocation(b, this.tier)
      out.push(b)
      n++
      const parent = t.nParent[t.bNode[b]]
      if (parent !== NONE && !processed.has(parent) && this.isDataLeaf(parent)) {
        let any = false
        for (let pb = t.nFirst[parent]; pb !== NONE; pb = t.bNextInNode[pb]) {
          if ((this.s.flags[this.s.entry(pb, this.tier)] & (HELD | LISTED)) !== HELD) continue
          this.insertSorted(pb)
          any = true
        }
        if (any) processed.add(parent)
      }
    }
    return n
  }

  /** the July generation's sorted insert: its walks use "newer than", on a list kept newest first */
  private insertSorted(b: number): void {
    const e = this.s.entry(b, this.tier)
    this.s.flags[e] |= LISTED
    const list = this.list
    if (list.head === NONE) return list.insertBefore(e, NONE)
    const s = this.s
    const time = (x: number) => s.timeOf(x)
    const x = time(e)
    const h = time(list.head)
    const l = time(list.tail)
    // the walk's direction depends on the distances in time, not in ticks
    const ns = (t: number) => this.s.group.timeOfTick(t)
    const forward = x >= h ? true : x <= l ? false : ns(h) - ns(x) < ns(x) - ns(l)
    let at: number
    if (forward) {
      at = list.head
      while (at !== NONE && x > time(at)) at = s.rec[4 * at + NEXT]
    } else {
      at = list.tail
      while (at !== NONE && time(at) > x) at = s.rec[4 * at + PREV]
      at = at === NONE ? list.head : s.rec[4 * at + NEXT] // after `at`
    }
    list.insertBefore(e, at)
  }
}

/** `random_lru`: the oldest of random draws (with replacement), in libstdc++'s partial_sort order. */
class RandomLru implements TierPolicy {
  readonly evictsForCapacity = true
  private readonly blocks: number[] = []
  /** the blocks' times (ticks) */
  private readonly stamps: number[] = []
  private readonly rng: XorShift64
  private readonly samples: number

  constructor(
    private readonly s: TieredInstance,
    private readonly tier: number,
    batch: number,
    sampleRate: number,
    seed: bigint,
  ) {
    const rate = sampleRate > 0 ? sampleRate : 0.1
    this.samples = Math.trunc(batch / rate)
    this.rng = new XorShift64(seed)
  }

  get size(): number {
    return this.blocks.length
  }

  register(b: number, tick: number): void {
    const e = this.s.entry(b, this.tier)
    this.s.flags[e] |= HELD
    this.s.pos[e] = this.blocks.length
    this.blocks.push(b)
    this.stamps.push(tick)
  }

  access(b: number, tick: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) !== 0) this.stamps[this.s.pos[e]] = tick
  }

  forget(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) === 0) return
    const at = this.s.pos[e]
    const moved = this.blocks[this.blocks.length - 1]
    this.blocks[at] = moved
    this.stamps[at] = this.stamps[this.stamps.length - 1]
    this.s.pos[this.s.entry(moved, this.tier)] = at
    this.blocks.pop()
    this.stamps.pop()
    this.s.flags[e] &= ~HELD
  }

  evict(count: number, out: number[]): number {
    const n = this.blocks.length
    if (n === 0 || count <= 0) return 0
    const total = Math.min(count, n)
    const drawn = Math.min(Math.max(this.samples, 0), n)
    const draws: number[] = []
    const m = BigInt(n)
    for (let d = 0; d < drawn; d++) draws.push(Number(this.rng.next() % m))
    const k = Math.min(total, drawn)
    partialSortBy(draws, k, (a, b) => this.stamps[a] < this.stamps[b])
    const chosen = draws.slice(0, k).map((d) => this.blocks[d])
    let taken = 0
    for (const b of chosen) {
      if (taken >= total) break
      if ((this.s.flags[this.s.entry(b, this.tier)] & HELD) === 0) continue // drawn twice
      this.forget(b)
      this.s.dropLocation(b, this.tier)
      out.push(b)
      taken++
    }
    return taken
  }
}

/** a time's high 32 bits and low 32 bits, each exact in a double: compared as a pair, they order as the time */
const high = (t: bigint): number => Number(t >> 32n)
const low = (t: bigint): number => Number(BigInt.asUintN(32, t))
const TWO32 = 2 ** 32
/** the high half of INT64_MAX, the time of the tick NEVER (its low half is TWO32 - 1) */
const NEVER_HIGH = high(INT64_MAX)

/** a full ring whose first element is at `head`, unrolled into one twice as long from 0 */
function unrolled(a: Float64Array, head: number): Float64Array {
  const n = new Float64Array(2 * a.length)
  n.set(a.subarray(head))
  n.set(a.subarray(0, head), a.length - head)
  return n
}

/**
 * The ttl policy's record of a block (docs/simulate.md §10.9): all the ttl policies of an instance keep of a block,
 * side by side in one array, so that judging an expiry event, then taking the block out of its tier's list, reads
 * one place, and so does a hit's move to the front and new event. Its due time (anchor + TTL, a pair of doubles, see
 * {@link high}; DUE_HIGH is Infinity when it never expires), the slot's serial (bumped when the slot is freed, so
 * that an event of an earlier block of the slot is told apart), per tier the entry's expiry events pushed since it
 * entered the tier (0: none) at VERSION + tier; then (from {@link TieredInstance.lastAt}) the block's last access (a
 * tick, -1: none), its TTL (a pair; 0, 0: never expires), and per tier the entry's links in that tier's recency list
 * (block ids) and its registration's number (a rebuilt heap is pushed in registration order).
 */
const DUE_HIGH = 0
const DUE_LOW = 1
const SERIAL = 2
const VERSION = 3
/** after the versions: the last access, the TTL, then per tier (LINK fields each) the links and the number */
const TTL_HIGH = 1
const TTL_LOW = 2
const LINKS = 3
const LINK = 3
const L_PREV = 0
const L_NEXT = 1
const L_POS = 2

/** an expiry event's fields, side by side in the heap's array */
const EVENT = 5
const EV_HIGH = 0
const EV_LOW = 1
const EV_BLOCK = 2
const EV_SERIAL = 3
const EV_VERSION = 4
/** a queued event's fields: its block, serial and version (its due time is its run's) */
const QEVENT = 3
/** a run of queued events due at one time: the time (a pair) and how many */
const RUN = 3
const RUN_COUNT = 2

/**
 * `ttl`: a recency list and expiry events; capacity eviction harvests, then (with fallback) takes the oldest. An
 * event is due at its block's anchor + TTL. A harvest removes exactly the events due before now; in what order does
 * not matter (each is judged by its block's state alone, and the blocks taken are a set). So events pushed in time
 * order (the usual case: anchors are play times, and a TTL is most often the default) wait in a queue, where each
 * leaves at O(1), its fields side by side and the events pushed in a row with one due time (a row's blocks) sharing
 * one run of that time; only an event earlier than the queue's last (a demoted block's older anchor, a shorter row
 * TTL) goes, whole, to a binary heap.
 */
class TtlPolicy implements TierPolicy {
  size = 0
  /** the held blocks, most recent first (linked through their records) */
  private head = NONE
  private tail = NONE
  /** registrations so far (an entry's `pos` is its number: a rebuilt heap is pushed in registration order) */
  private registered = 0
  /**
   * the events in time order: a ring of events (QEVENT fields each) from `queueHead`, and a ring of the runs of them
   * due at one time (RUN fields each) from `runHead`, the last one's time (`queueHigh`, `queueLow`) at `runLast`
   */
  private queue: Float64Array = new Float64Array(1024 * QEVENT)
  private queueHead = 0
  private queueSize = 0
  private runs: Float64Array = new Float64Array(256 * RUN)
  private runHead = 0
  private runSize = 0
  private runLast = 0
  private queueHigh = 0
  private queueLow = 0
  /** the heap of the events pushed out of time order (EVENT fields each) */
  private heap: Float64Array = new Float64Array(1024 * EVENT)
  private heapSize = 0
  /** the latest tick the policy has seen */
  private nowTick = 0
  /** the last event's anchor (a tick) and TTL, and its due time (the events of one row share them) */
  private lastAnchor = -1
  private lastTtlHigh = 0
  private lastTtlLow = 0
  private lastHigh = 0
  private lastLow = 0
  /** the tier */
  private readonly tier: number
  /** where this tier's version, and its links, sit in a block's record */
  private readonly versionAt: number
  private readonly linkAt: number

  constructor(
    private readonly s: TieredInstance,
    tier: number,
    readonly evictsForCapacity: boolean,
    private readonly refreshOnRead: boolean,
  ) {
    this.tier = tier
    this.versionAt = VERSION + tier
    this.linkAt = s.lastAt + LINKS + LINK * tier
  }

  register(b: number): void {
    const s = this.s
    s.flags[s.entry(b, this.tier)] |= HELD
    const rec = s.ttlRecord
    const r = b * s.recordSize
    rec[r + this.linkAt + L_POS] = this.registered++
    this.size++
    this.pushFront(b)
    const last = rec[r + s.lastAt]
    if (last > this.nowTick) this.nowTick = last
    this.pushEvent(b, last)
  }

  access(b: number, tick: number): void {
    this.advance(tick)
    if ((this.s.flags[this.s.entry(b, this.tier)] & HELD) === 0) return
    if (this.head !== b) {
      this.unlink(b)
      this.pushFront(b)
    }
    if (this.refreshOnRead) this.pushEvent(b, tick)
  }

  /** puts held block b at the front of the list */
  private pushFront(b: number): void {
    const rec = this.s.ttlRecord
    const size = this.s.recordSize
    const at = this.linkAt
    const h = this.head
    rec[b * size + at + L_PREV] = NONE
    rec[b * size + at + L_NEXT] = h
    if (h !== NONE) rec[h * size + at + L_PREV] = b
    else this.tail = b
    this.head = b
  }

  private unlink(b: number): void {
    const rec = this.s.ttlRecord
    const size = this.s.recordSize
    const at = this.linkAt
    const p = rec[b * size + at + L_PREV]
    const n = rec[b * size + at + L_NEXT]
    if (p !== NONE) rec[p * size + at + L_NEXT] = n
    else this.head = n
    if (n !== NONE) rec[n * size + at + L_PREV] = p
    else this.tail = p
  }

  /** the TTL of block b runs from the time of tick `anchor` now (in every tier: its due time is the block's) */
  private pushEvent(b: number, anchor: number): void {
    const rec = this.s.ttlRecord
    const r = b * this.s.recordSize
    const th = rec[r + this.s.lastAt + TTL_HIGH]
    const tl = rec[r + this.s.lastAt + TTL_LOW]
    if (th === 0 && tl === 0) {
      rec[r + DUE_HIGH] = Infinity
      return
    }
    if (anchor !== this.lastAnchor || th !== this.lastTtlHigh || tl !== this.lastTtlLow) {
      this.lastAnchor = anchor
      this.lastTtlHigh = th
      this.lastTtlLow = tl
      // the pair's sum, carried: exact (the high halves stay far below 2^53)
      const g = this.s.group
      let l = g.lowOf(anchor) + tl
      let h = g.highOf(anchor) + th
      if (l >= TWO32) {
        l -= TWO32
        h++
      }
      this.lastHigh = h
      this.lastLow = l
    }
    rec[r + DUE_HIGH] = this.lastHigh
    rec[r + DUE_LOW] = this.lastLow
    this.push(b, rec[r + SERIAL], ++rec[r + this.versionAt], this.lastHigh, this.lastLow)
    if (this.heapSize + this.queueSize > 4 * this.size && this.size > 0) this.rebuild()
  }

  /** an event of block b (of the slot's `serial`) due at (h, l) */
  private push(b: number, serial: number, version: number, h: number, l: number): void {
    if (this.runSize === 0 || h > this.queueHigh || (h === this.queueHigh && l >= this.queueLow)) {
      let runs = this.runs
      if (this.runSize > 0 && h === this.queueHigh && l === this.queueLow) runs[this.runLast + RUN_COUNT]++
      else {
        if (this.runSize * RUN === runs.length) {
          this.runs = runs = unrolled(runs, this.runHead * RUN)
          this.runHead = 0
        }
        const at = ((this.runHead + this.runSize++) & (runs.length / RUN - 1)) * RUN
        runs[at + EV_HIGH] = this.queueHigh = h
        runs[at + EV_LOW] = this.queueLow = l
        runs[at + RUN_COUNT] = 1
        this.runLast = at
      }
      let a = this.queue
      if (this.queueSize * QEVENT === a.length) {
        this.queue = a = unrolled(a, this.queueHead * QEVENT)
        this.queueHead = 0
      }
      const at = ((this.queueHead + this.queueSize++) & (a.length / QEVENT - 1)) * QEVENT
      a[at] = b
      a[at + 1] = serial
      a[at + 2] = version
      return
    }
    let a = this.heap
    if (this.heapSize * EVENT === a.length) this.heap = a = grown(a, 2 * a.length)
    // sift up: the parents due later move down
    let i = this.heapSize++
    while (i > 0) {
      const p = ((i - 1) >> 1) * EVENT
      if (!(h < a[p] || (h === a[p] && l < a[p + 1]))) break
      a.copyWithin(i * EVENT, p, p + EVENT)
      i = (i - 1) >> 1
    }
    const at = i * EVENT
    a[at + EV_HIGH] = h
    a[at + EV_LOW] = l
    a[at + EV_BLOCK] = b
    a[at + EV_SERIAL] = serial
    a[at + EV_VERSION] = version
  }

  /** removes the first event of the heap */
  private pop(): void {
    const n = --this.heapSize
    if (n === 0) return
    const a = this.heap
    const last = n * EVENT
    const h = a[last]
    const l = a[last + 1]
    let i = 0
    for (;;) {
      const c = 2 * i + 1
      if (c >= n) break
      let m = c * EVENT
      if (c + 1 < n) {
        const o = m + EVENT
        if (a[o] < a[m] || (a[o] === a[m] && a[o + 1] < a[m + 1])) m = o
      }
      if (!(a[m] < h || (a[m] === h && a[m + 1] < l))) break
      a.copyWithin(i * EVENT, m, m + EVENT)
      i = m / EVENT
    }
    a.copyWithin(i * EVENT, last, last + EVENT)
  }

  /** one event per held block that can expire, at its due time */
  private rebuild(): void {
    const s = this.s
    const rec = s.ttlRecord
    const size = s.recordSize
    const ttlAt = s.lastAt
    this.heapSize = this.queueSize = this.queueHead = this.runSize = this.runHead = 0
    const held: number[] = []
    for (let b = this.head; b !== NONE; b = rec[b * size + this.linkAt + L_NEXT]) held.push(b)
    held.sort((x, y) => rec[x * size + this.linkAt + L_POS] - rec[y * size + this.linkAt + L_POS])
    for (const b of held) {
      const r = b * size
      const version = rec[r + this.versionAt]
      if ((rec[r + ttlAt + TTL_HIGH] !== 0 || rec[r + ttlAt + TTL_LOW] !== 0) && version > 0)
        this.push(b, rec[r + SERIAL], version, rec[r + DUE_HIGH], rec[r + DUE_LOW])
    }
  }

  /** the time is now that of tick `tick` */
  advance(tick: number): void {
    if (tick > this.nowTick) this.nowTick = tick
  }

  /** removes every held block expired now, appended to `out`; how many */
  harvest(out: number[]): number {
    const before = out.length
    const g = this.s.group
    const h = g.highOf(this.nowTick)
    const l = g.lowOf(this.nowTick)
    // the queue's runs due, in order, then the heap's events due
    const runs = this.runs
    const runMask = runs.length / RUN - 1
    const q = this.queue
    const mask = q.length / QEVENT - 1
    while (this.runSize > 0) {
      const at = this.runHead * RUN
      if (!(runs[at] < h || (runs[at] === h && runs[at + 1] < l))) break
      const n = runs[at + RUN_COUNT]
      this.runHead = (this.runHead + 1) & runMask
      this.runSize--
      for (let k = 0; k < n; k++) {
        const e = this.queueHead * QEVENT
        this.queueHead = (this.queueHead + 1) & mask
        this.queueSize--
        this.judge(q[e], q[e + 1], q[e + 2], h, l, out)
      }
    }
    const heap = this.heap
    while (this.heapSize > 0 && (heap[0] < h || (heap[0] === h && heap[1] < l))) {
      const b = heap[EV_BLOCK]
      const serial = heap[EV_SERIAL]
      const version = heap[EV_VERSION]
      this.pop()
      this.judge(b, serial, version, h, l, out)
    }
    return out.length - before
  }

  /** an event due before now (h, l): its block leaves the tier when the event is its latest and the block is due */
  private judge(b: number, serial: number, version: number, h: number, l: number, out: number[]): void {
    const rec = this.s.ttlRecord
    const r = b * this.s.recordSize
    // an event of an earlier block of the slot, or superseded, or of a block since forgotten (its version is 0)
    if (rec[r + this.versionAt] !== version || rec[r + SERIAL] !== serial) return
    // due now by the block's own time (another tier may have moved its anchor since the event was pushed)
    const dh = rec[r + DUE_HIGH]
    if (!(dh < h || (dh === h && rec[r + DUE_LOW] < l))) return
    this.forget(b)
    this.s.dropLocation(b, this.tier)
    out.push(b)
  }

  forget(b: number): void {
    const e = this.s.entry(b, this.tier)
    if ((this.s.flags[e] & HELD) === 0) return
    this.s.flags[e] &= ~HELD
    this.size--
    this.unlink(b)
    this.s.ttlRecord[b * this.s.recordSize + this.versionAt] = 0
  }

  evict(count: number, out: number[]): number {
    let n = this.harvest(out)
    if (this.size === 0) return n
    if (this.evictsForCapacity)
      while (n < count && this.tail !== NONE) {
        const b = this.tail
        this.forget(b)
        this.s.dropLocation(b, this.tier)
        out.push(b)
        n++
      }
    return n
  }
}

export type TieredPolicyName = 'lru' | 'random_lru' | 'leaf_aware_lru' | 'ttl'

export interface TieredInstanceSetup {
  id: string
  policy: TieredPolicyName
  shardCount: number
  sampleTimes: number
  amplification: number
  sampleRate: number
  fallbackOnPressure: boolean
  bytesPerBlock: number
}

export interface TieredGroupSetup {
  /** the tiers' names, in priority order (`shared` when hierarchical eviction is off) */
  tierNames: string[]
  hierarchical: boolean
  /** per tier: its quota in bytes (null: unlimited) */
  quotas: Array<number | null>
  /** edge i joins tier i and tier i + 1 */
  edges: EdgeStrategy[]
  /** 0: TTL off; > 0: the default TTL; < 0: only rows' TTLs */
  defaultTtlSeconds: bigint
  refreshOnRead: boolean
  /** 1, 2, 3; anything else: no capacity eviction */
  mode: number
  batch: number
  seed: bigint
}

/**
 * One instance: its prefix tree (a SimInstance whose policy it is), one policy per tier, and what each block is in
 * the tiers. Per block: the tiers holding it, its last write and access, its TTL and due time; per entry (block and
 * tier): whether the tier holds it, its hits and times there, and its links in that tier's policy.
 */
export class TieredInstance implements Policy {
  readonly name = 'tiered'
  readonly canEvict = false // the group evicts, tier by tier (never through the engine)
  readonly readsBlockTime = false
  readonly engine: SimInstance
  readonly tree: CacheTree
  readonly policies: TierPolicy[]
  readonly bytesPerBlock: number
  readonly tiers: number
  /** the lru shard count (values ≤ 0 mean 1) */
  readonly shardCount: number
  /** the policy is an lru of several shards (the blocks' shards are kept) */
  private readonly sharded: boolean
  /** the blocks evicted by a capacity check, tier after tier (for cleanup) */
  readonly checkEvicted: number[] = []
  /** the blocks its ttl policies harvested in an expiry, tier after tier (for cleanup) */
  readonly expired: number[] = []
  /** where the blocks of the tier being checked begin in {@link checkEvicted} */
  tierStart = 0
  /** whether the last {@link read} wrote a tier location (a selective copy or a promotion) */
  wrote = false
  /** blocks its tiers gave up for capacity (a block demoted from one tier to the next counts once) */
  evictions = 0
  /** the last {@link read}'s hits per tier */
  readonly tierHits: number[]
  /** the TTL the blocks of the write being inserted get, as a pair (see {@link high}; 0, 0: never expires) */
  private writeTtl = 0n
  private writeTtlHigh = 0
  private writeTtlLow = 0
  /** the edges' settings, flattened for the per-block paths */
  private readonly initial: number
  /** the tick of the operation being played (see {@link NEVER}) */
  private now = 0
  /** the policy is ttl: the blocks keep their last access and TTL as timestamps, and when they expire */
  private readonly expires: boolean
  /**
   * the policy orders entries by time ({@link timeOf}): a sharded or amplified lru and leaf_aware_lru (an exact lru
   * orders by its lists alone, random_lru keeps the times it draws by, ttl its blocks' times)
   */
  private readonly timed: boolean
  /** an edge writes selectively: the entries count their hits */
  private readonly counts: boolean

  // ---- per block (grown with the tree's block slots; whether any tier holds a block is the tree's bLive)
  private capacity = 0
  /** the ttl policy's (empty under the others): the blocks' records, {@link recordSize} numbers each (see DUE_HIGH) */
  ttlRecord: Float64Array = new Float64Array(0)
  readonly recordSize: number
  /** where a record's last access sits (after the versions), its TTL and links after it */
  readonly lastAt: number

  // ---- per entry
  flags = new Uint8Array(0)
  /** hits the tier served since the block entered it (counted under a selective edge) */
  count = new Float64Array(0)
  /**
   * The entries' records, {@link stride} Int32 fields each from `stride × e` (see {@link PREV}): the entry's
   * neighbours in its policy list and, when the policy is timed, its time (its last access through the tier, else
   * its write into it) and its lru shard. One record fills a quarter of a cache line at most, so the unlink that
   * writes a neighbour's links has that neighbour's time (a new tail's) and shard at hand.
   */
  rec = new Int32Array(0)
  /** a record's fields: 4 when the policy is timed, else 2 (the links) */
  readonly stride: number
  /** the entries' times once the group's ticks outgrow a record's (see {@link widen}); the records' then go unread */
  private wideTimes: Float64Array | undefined
  /** random_lru: the entry's place in its array */
  pos = new Float64Array(0)

  constructor(
    readonly setup: TieredInstanceSetup,
    readonly group: TieredGroup,
    private readonly keyMod: (key: number, m: number) => number,
  ) {
    const g = group.setup
    this.bytesPerBlock = setup.bytesPerBlock
    this.tiers = g.tierNames.length
    this.shardCount = setup.shardCount <= 0 ? 1 : setup.shardCount
    this.sharded = setup.policy === 'lru' && this.shardCount > 1
    let initial = 1
    while (initial < this.tiers && g.edges[initial - 1].writeMode === 'write_through') initial++
    this.initial = initial
    this.expires = setup.policy === 'ttl'
    this.timed =
      setup.policy === 'leaf_aware_lru' ||
      (setup.policy === 'lru' && (this.shardCount > 1 || setup.amplification > 1))
    this.stride = this.timed ? 4 : 2
    this.lastAt = VERSION + this.tiers
    this.recordSize = this.lastAt + LINKS + LINK * this.tiers
    this.counts = g.edges.some((e) => e.writeMode === 'write_through_selective')
    this.engine = new SimInstance(this, 1)
    this.tree = this.engine.tree
    this.policies = g.tierNames.map((_, tier) => this.newPolicy(tier))
    this.tierHits = g.tierNames.map(() => 0)
  }

  private newPolicy(tier: number): TierPolicy {
    const s = this.setup
    const g = this.group.setup
    switch (s.policy) {
      case 'random_lru':
        return new RandomLru(this, tier, g.batch, s.sampleRate, g.seed)
      case 'leaf_aware_lru':
        return new LeafAwareLru(this, tier)
      case 'ttl':
        return new TtlPolicy(this, tier, s.fallbackOnPressure, g.refreshOnRead)
      default:
        return new ShardedLru(this, tier, s.sampleTimes, s.amplification)
    }
  }

  entry(b: number, tier: number): number {
    return b * this.tiers + tier
  }

  blockOf(e: number): number {
    return Math.floor(e / this.tiers)
  }

  /** blocks held, summed over the tiers (a block in two tiers counts twice) */
  get cachedBlocks(): number {
    let n = 0
    for (const p of this.policies) n += p.size
    return n
  }

  get size(): number {
    return this.cachedBlocks
  }

  /**
   * The time (a tick) a timed policy orders a held entry by: its last access through the tier, else its write into
   * it (one tier when hierarchical eviction is off: the block's own last access or write).
   */
  timeOf(e: number): number {
    const wide = this.wideTimes
    return wide === undefined ? this.rec[4 * e + TIME] : wide[e]
  }

  private setTimeOf(e: number, tick: number): void {
    const wide = this.wideTimes
    if (wide === undefined) this.rec[4 * e + TIME] = tick
    else wide[e] = tick
  }

  /** the group's ticks outgrow a record's time: the times move to doubles (a timed policy's) */
  widen(): void {
    if (!this.timed || this.wideTimes !== undefined) return
    const wide = new Float64Array(this.flags.length)
    for (let e = 0; e < wide.length; e++) wide[e] = this.rec[4 * e + TIME]
    this.wideTimes = wide
  }

  /** room for block slot b (the tree grows its own arrays as it makes blocks) */
  private reserve(b: number): void {
    if (b < this.capacity) return
    const cap = Math.max(1024, this.tree.bKey.length, 2 * this.capacity)
    const entries = cap * this.tiers
    // only the arrays the policy and edges read are kept (the others stay empty)
    if (this.wideTimes !== undefined) this.wideTimes = grown(this.wideTimes, entries)
    if (this.expires) {
      const size = this.recordSize
      const from = this.ttlRecord.length
      this.ttlRecord = grown(this.ttlRecord, cap * size)
      for (let r = from; r < this.ttlRecord.length; r += size) {
        this.ttlRecord[r + DUE_HIGH] = Infinity
        this.ttlRecord[r + this.lastAt] = -1
      }
    }
    if (this.setup.policy === 'random_lru') this.pos = grown(this.pos, entries)
    if (this.counts) this.count = grown(this.count, entries)
    this.flags = grown(this.flags, entries)
    // (the ttl policy links its lists through its records)
    if (!this.expires) this.rec = grown(this.rec, this.stride * entries)
    this.capacity = cap
  }

  /** a tier holds the block: it is live (a block the engine writes is live before it is handed over, onWritten) */
  private hold(b: number): void {
    const t = this.tree
    if (t.bLive[b] === 0) {
      t.bLive[b] = 1
      t.nLive[t.bNode[b]]++
    }
  }

  /** takes the tier's location away from the block; the block is no longer live when no tier holds it */
  dropLocation(b: number, tier: number): void {
    const flags = this.flags
    const base = b * this.tiers
    if ((flags[base + tier] & PRESENT) === 0) return
    flags[base + tier] &= ~PRESENT
    // the block's entries are side by side (one cache line, which this one brought)
    for (let e = base; e < base + this.tiers; e++) if ((flags[e] & PRESENT) !== 0) return
    this.tree.bLive[b] = 0
    this.tree.nLive[this.tree.bNode[b]]--
  }

  /** appends the block to one tier (nothing when it holds it); true when it was appended */
  appendToTier(b: number, tier: number): boolean {
    const e = b * this.tiers + tier
    if ((this.flags[e] & PRESENT) !== 0) return false
    this.flags[e] |= PRESENT
    if (this.counts) this.count[e] = 0
    if (this.timed) this.setTimeOf(e, this.now)
    this.hold(b)
    this.policies[tier].register(b, this.now)
    return true
  }

  /** appends from tier `from` down the chain of write_through edges; true when any tier was appended */
  appendToChain(b: number, from: number): boolean {
    const edges = this.group.setup.edges
    let any = false
    for (let tier = from; tier < this.tiers; tier++) {
      if (this.appendToTier(b, tier)) any = true
      if (tier >= edges.length || edges[tier].writeMode !== 'write_through') break
    }
    return any
  }

  /**
   * INSERT: new blocks and revived absent ones enter tier 0 and every tier behind write_through edges (the engine
   * hands each over, {@link onWritten}); present blocks are left alone.
   */
  insert(keys: readonly number[], ts: bigint, ttl: bigint): void {
    if (this.expires && ttl !== this.writeTtl) {
      this.writeTtl = ttl
      this.writeTtlHigh = ttl > 0n ? high(ttl) : 0
      this.writeTtlLow = ttl > 0n ? low(ttl) : 0
    }
    this.now = this.group.tickOf(ts)
    this.engine.insert(keys, ts)
  }

  /** the engine wrote block b (new, or absent from every tier) */
  onWritten(b: number): void {
    this.reserve(b)
    if (this.sharded) {
      // the block's shard (its key as an unsigned 64-bit integer modulo the shard count), in the records of its
      // entries of every tier (a block slot's key is fixed while it lives)
      const k = this.keyMod(this.tree.bKey[b], this.shardCount)
      for (let e = b * this.tiers; e < (b + 1) * this.tiers; e++) this.rec[4 * e + SHARD] = k
    }
    if (this.expires) {
      const r = b * this.recordSize + this.lastAt
      this.ttlRecord[r] = this.now
      this.ttlRecord[r + TTL_HIGH] = this.writeTtlHigh
      this.ttlRecord[r + TTL_LOW] = this.writeTtlLow
    }
    for (let tier = 0; tier < this.initial; tier++) this.appendToTier(b, tier)
  }

  /** the tick of `ts`, the time of the capacity check or demotion being played */
  setTime(ts: bigint): void {
    this.now = this.group.tickOf(ts)
  }

  /**
   * LOOKUP: the longest present prefix (the engine's walk, {@link onAccessed} per hit); each hit is counted for
   * the first tier holding it, its accesses are propagated, and it is copied (selective writes) and promoted.
   * Returns the engine's counts (reused by its next read); {@link tierHits} has the hits per tier and
   * {@link wrote} says whether a tier was written.
   */
  read(keys: readonly number[], mask: readonly boolean[] | number, ts: bigint): ReadResult {
    this.tierHits.fill(0)
    this.wrote = false
    this.now = this.group.tickOf(ts)
    return this.engine.get(keys, mask, ts)
  }

  /** one hit block: counted, accessed, copied, promoted */
  onAccessed(b: number, ts: bigint): void {
    const edges = this.group.setup.edges
    const base = b * this.tiers
    let h = 0
    while ((this.flags[base + h] & PRESENT) === 0) h++
    this.tierHits[h]++
    const now = this.now
    const timed = this.timed
    if (this.expires) this.ttlRecord[b * this.recordSize + this.lastAt] = now
    this.policies[h].access(b, now, ts)
    if (timed) this.setTimeOf(base + h, now)
    const hits = this.counts ? ++this.count[base + h] : 0
    let propagate = true
    for (let tier = h + 1; tier < this.tiers; tier++) {
      if (!edges[tier - 1].propagate) propagate = false
      if ((this.flags[base + tier] & PRESENT) !== 0 && propagate) {
        this.policies[tier].access(b, now, ts)
        if (timed) this.setTimeOf(base + tier, now)
      }
    }
    if (h < edges.length && edges[h].writeMode === 'write_through_selective' && hits >= edges[h].threshold)
      if (this.appendToChain(b, h + 1)) this.wrote = true
    if (h > 0 && this.group.promotes)
      for (let j = h - 1; j >= 0 && edges[j].promote; j--) if (this.appendToTier(b, j)) this.wrote = true
  }

  /** never asked: capacity eviction is the group's, tier by tier */
  evict(): number[] {
    return []
  }

  attach(): void {}

  /** CLEANUP: blocks no tier holds are reset; nodes left with only such blocks and no children are removed */
  cleanup(evicted: readonly number[]): void {
    const t = this.tree
    const nodes = this.cleanupNodes
    for (const b of evicted) {
      if (t.bLive[b] !== 0) continue
      // a ttl block's last access, TTL and due time are left as they are: a write sets them before any tier holds
      // the block again, and until then nothing reads them (no tier holds it, and every tier's version is 0)
      // blocks of one node mostly go together: a repeat is skipped (a later one is harmless)
      if (nodes.length === 0 || nodes[nodes.length - 1] !== t.bNode[b]) nodes.push(t.bNode[b])
    }
    let removed = true
    while (removed) {
      removed = false
      for (let k = 0; k < nodes.length; k++) {
        const n = nodes[k]
        // the root has no blocks; a node removed already has none either
        if (n === NONE || t.nCount[n] === 0 || t.nLive[n] !== 0 || t.nChildCount[n] !== 0) continue
        if (this.expires)
          for (let b = t.nFirst[n]; b !== NONE; b = t.bNextInNode[b])
            this.ttlRecord[b * this.recordSize + SERIAL]++
        t.deleteNode(n)
        nodes[k] = NONE
        removed = true
      }
    }
    nodes.length = 0
  }

  /** the nodes {@link cleanup} examines (reused) */
  private readonly cleanupNodes: number[] = []
}

/** A group: its instances, the tiers' quotas, capacity eviction and TTL expiry. */
export class TieredGroup {
  readonly members: TieredInstance[] = []
  /** any edge promotes */
  readonly promotes: boolean
  /** blocks expired through one tier while another tier's ttl policy still held them (removed there too) */
  strandedExpiries = 0

  /** the group's ttl policies with their instances (expiry looks at these only) */
  private readonly ttlPolicies: Array<{inst: TieredInstance; policy: TtlPolicy}> = []
  /** the last timestamp played and its tick (see {@link NEVER}) */
  private lastTs = 0n
  private tick = 0
  /** the timestamp of each tick, kept while a member's policy needs distances in time (leaf_aware_lru) */
  private tickTimes: BigInt64Array | undefined
  /** the timestamp of each tick as a pair (see {@link high}), kept while a member's policy expires blocks (ttl) */
  private tickHigh: Float64Array | undefined
  private tickLow: Float64Array = new Float64Array(0)

  constructor(readonly setup: TieredGroupSetup) {
    this.promotes = setup.edges.some((e) => e.promote)
  }

  add(setup: TieredInstanceSetup, keyMod: (key: number, m: number) => number): TieredInstance {
    const inst = new TieredInstance(setup, this, keyMod)
    if (this.tick > TICK_MAX) inst.widen()
    this.members.push(inst)
    for (const policy of inst.policies) if (policy instanceof TtlPolicy) this.ttlPolicies.push({inst, policy})
    if (setup.policy === 'ttl' && this.tickHigh === undefined) {
      if (this.tick > 0) throw new Error('a ttl instance joined a tiered group after its play began')
      this.tickHigh = new Float64Array(1024)
      this.tickLow = new Float64Array(1024)
      this.tickHigh[0] = high(this.lastTs)
      this.tickLow[0] = low(this.lastTs)
    }
    if (setup.policy === 'leaf_aware_lru' && this.tickTimes === undefined) {
      if (this.tick > 0)
        throw new Error('a leaf_aware_lru instance joined a tiered group after its play began')
      this.tickTimes = new BigInt64Array(1024)
    }
    return inst
  }

  /** The tick of timestamp `ts`, which is not before the last one asked (the group's rows are played in time order). */
  tickOf(ts: bigint): number {
    if (ts === this.lastTs) return this.tick
    if (ts < this.lastTs)
      throw new Error(`a tiered group was played out of time order (${ts} after ${this.lastTs})`)
    this.lastTs = ts
    const before = this.tick
    this.tick = ts === INT64_MAX ? NEVER : this.tick + 1
    if (this.tick > TICK_MAX && before <= TICK_MAX) for (const inst of this.members) inst.widen()
    const times = this.tickTimes
    if (times !== undefined && this.tick !== NEVER) {
      if (this.tick === times.length) this.tickTimes = grown(times, 2 * times.length)
      ;(this.tickTimes as BigInt64Array)[this.tick] = ts
    }
    if (this.tickHigh !== undefined && this.tick !== NEVER) {
      if (this.tick === this.tickHigh.length) {
        this.tickHigh = grown(this.tickHigh, 2 * this.tick)
        this.tickLow = grown(this.tickLow, 2 * this.tick)
      }
      this.tickHigh[this.tick] = high(ts)
      this.tickLow[this.tick] = low(ts)
    }
    return this.tick
  }

  /** the high half of the timestamp of a tick (a group with a ttl member keeps them) */
  highOf(tick: number): number {
    return tick === NEVER ? NEVER_HIGH : (this.tickHigh as Float64Array)[tick]
  }

  /** the low half of the timestamp of a tick */
  lowOf(tick: number): number {
    return tick === NEVER ? TWO32 - 1 : this.tickLow[tick]
  }

  /** The timestamp of a tick (a group with a leaf_aware_lru member keeps them) */
  timeOfTick(tick: number): bigint {
    if (tick === NEVER) return INT64_MAX
    if (this.tickTimes === undefined) throw new Error('a tiered group keeps no timestamps')
    return this.tickTimes[tick]
  }

  /** the TTL a write gives the blocks it creates or revives (0: never expires) */
  ttlOf(rowTtlUs: bigint | undefined): bigint {
    const d = this.setup.defaultTtlSeconds
    if (d === 0n) return 0n
    const r = rowTtlUs ?? 0n
    if (r > 0n) return r * 1000n
    if (r === 0n) return d * 1_000_000_000n
    return 0n
  }

  /** EXPIRE: every ttl policy of the group harvests at `ts`; the expired blocks leave every tier */
  expire(ts: bigint): void {
    const ttl = this.ttlPolicies
    if (ttl.length === 0) return
    const tick = this.tickOf(ts)
    let any = false
    for (const {inst, policy: p} of ttl) {
      p.advance(tick)
      if (p.size !== 0 && p.harvest(inst.expired) > 0) any = true
    }
    if (!any) return
    for (const inst of this.members) {
      const blocks = inst.expired
      if (blocks.length === 0) continue
      for (const b of blocks) {
        if (inst.tree.bLive[b] === 0) continue
        // another tier still holds the block: its policy's event went stale when the shared anchor moved
        this.strandedExpiries++
        for (let tier = 0; tier < inst.tiers; tier++) {
          if ((inst.flags[inst.entry(b, tier)] & PRESENT) === 0) continue
          inst.policies[tier].forget(b)
          inst.dropLocation(b, tier)
        }
      }
      inst.cleanup(blocks)
      blocks.length = 0
    }
  }

  private excess(tier: number): number {
    const quota = this.setup.quotas[tier]
    if (quota === null) return 0
    let used = 0
    for (const inst of this.members) used += inst.policies[tier].size * inst.bytesPerBlock
    return used > quota ? used - quota : 0
  }

  /** EVICT_IF_NEEDED: each tier in order, its evicted blocks demoted over a cascading edge; then cleanup */
  evictIfNeeded(trigger: TieredInstance, ts: bigint): void {
    const {mode, edges} = this.setup
    if (mode !== 1 && mode !== 2 && mode !== 3) return
    const tiers = this.setup.tierNames.length
    const members = this.members
    let any = false
    for (let tier = 0; tier < tiers; tier++) {
      const excess = this.excess(tier)
      if (excess <= 0) continue
      for (const inst of members) inst.tierStart = inst.checkEvicted.length
      if (mode === 1) this.evictGroupRough(tier, excess)
      else this.evictInstance(trigger, tier, excess)
      const cascades = tier + 1 < tiers && edges[tier].writeMode === 'cascading'
      for (const inst of members) {
        const blocks = inst.checkEvicted
        const end = blocks.length
        if (end === inst.tierStart) continue
        any = true
        inst.evictions += end - inst.tierStart
        if (!cascades) continue
        inst.setTime(ts)
        for (let k = inst.tierStart; k < end; k++) inst.appendToChain(blocks[k], tier + 1)
      }
    }
    if (!any) return
    for (const inst of members) {
      if (inst.checkEvicted.length === 0) continue
      inst.cleanup(inst.checkEvicted)
      inst.checkEvicted.length = 0
    }
  }

  /** mode 1: rounds over every instance, a batch from each, until the excess is covered or a round is empty */
  private evictGroupRough(tier: number, excess: number): void {
    let total = 0
    while (total < excess) {
      let any = false
      for (const inst of this.members) {
        const p = inst.policies[tier]
        if (!p.evictsForCapacity) continue
        const n = p.evict(this.setup.batch, inst.checkEvicted)
        if (n === 0) continue
        any = true
        total += n * inst.bytesPerBlock
      }
      if (!any) break
    }
  }

  /** modes 2 and 3: the instance whose row triggered the check evicts until the group's excess is covered */
  private evictInstance(inst: TieredInstance, tier: number, excess: number): void {
    const p = inst.policies[tier]
    if (!p.evictsForCapacity) return
    const batch = this.setup.batch
    let total = 0
    while (total < excess) {
      let count = batch
      if (this.setup.mode === 3) {
        const needed = Math.ceil((excess - total) / inst.bytesPerBlock)
        count = batch < 0 ? needed : Math.min(batch, needed)
      }
      const n = p.evict(count, inst.checkEvicted)
      if (n === 0) break
      total += n * inst.bytesPerBlock
    }
  }
}
