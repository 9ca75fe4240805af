// The eviction policies of docs/simulate.md §4.7 over block ids of a CacheTree: recency lists live in the tree's block
// links, so no policy allocates per block.

import {type CacheTree, NONE} from './cache-tree.js'
import {grown} from '../../util/grown.js'
import {partialSortBy} from '../../util/libstdcxx-sort.js'
import {XorShift64Halves} from './xorshift64.js'

/** The policy interface of §4.7. */
export interface Policy {
  readonly name: string
  size: number
  readonly canEvict: boolean
  /** whether the policy reads a block's last time (only then does the tree store one per block) */
  readonly readsBlockTime: boolean
  /** called once by the instance that owns the tree */
  attach(tree: CacheTree): void
  onWritten(b: number, ts: bigint): void
  onAccessed(b: number, ts: bigint): void
  /** removes up to n blocks (they become placeholders in the engine) */
  evict(n: number): number[]
}

/** Doubly linked recency list over block ids (head = most recent), linked through the tree's bPrev/bNext. */
class BlockList {
  head = NONE
  tail = NONE

  constructor(private readonly tree: CacheTree) {}

  pushFront(b: number): void {
    const t = this.tree
    t.bPrev[b] = NONE
    t.bNext[b] = this.head
    if (this.head !== NONE) t.bPrev[this.head] = b
    else this.tail = b
    this.head = b
    t.bInList[b] = 1
  }

  unlink(b: number): void {
    const t = this.tree
    const prev = t.bPrev[b]
    const next = t.bNext[b]
    if (prev !== NONE) t.bNext[prev] = next
    else this.head = next
    if (next !== NONE) t.bPrev[next] = prev
    else this.tail = prev
    t.bPrev[b] = NONE
    t.bNext[b] = NONE
    t.bInList[b] = 0
  }

  /** moves a listed block to the front */
  touch(b: number): void {
    if (b === this.head) return
    this.unlink(b)
    this.pushFront(b)
  }

  /** inserts b just before `at` (on the head side); at NONE = at the tail */
  insertBefore(b: number, at: number): void {
    const t = this.tree
    if (at === NONE) {
      t.bNext[b] = NONE
      t.bPrev[b] = this.tail
      if (this.tail !== NONE) t.bNext[this.tail] = b
      else this.head = b
      this.tail = b
    } else {
      const prev = t.bPrev[at]
      t.bNext[b] = at
      t.bPrev[b] = prev
      if (prev !== NONE) t.bNext[prev] = b
      else this.head = b
      t.bPrev[at] = b
    }
    t.bInList[b] = 1
  }

  /** inserts b just after `at` (on the tail side); at NONE = at the head */
  insertAfter(b: number, at: number): void {
    if (at === NONE) return this.pushFront(b)
    this.insertBefore(b, this.tree.bNext[at])
  }
}

export class LruPolicy implements Policy {
  readonly name: string = 'lru'
  size = 0
  readonly canEvict: boolean = true
  readonly readsBlockTime: boolean = false
  private list!: BlockList

  attach(tree: CacheTree): void {
    this.list = new BlockList(tree)
  }

  onWritten(b: number): void {
    this.list.pushFront(b)
    this.size++
  }

  onAccessed(b: number): void {
    this.list.touch(b)
  }

  evict(n: number): number[] {
    const out: number[] = []
    const list = this.list
    while (out.length < n && list.tail !== NONE) {
      const b = list.tail
      list.unlink(b)
      out.push(b)
      this.size--
    }
    return out
  }
}

/** `ttl` without expiry: LRU with fallback on pressure, or never evicting (§4.7.4). */
export class TtlPolicy extends LruPolicy {
  override readonly name = 'ttl'
  override readonly canEvict: boolean

  constructor(fallback: boolean) {
    super()
    this.canEvict = fallback
  }

  override evict(n: number): number[] {
    return this.canEvict ? super.evict(n) : []
  }
}

/**
 * The Optimizer's random_lru (§4.7.2): blocks and their stamps in parallel arrays; an eviction draws `sampling`
 * positions with replacement and takes the k oldest in the order libstdc++'s std::partial_sort leaves them (ties
 * included), skipping a block drawn twice. Stamps are kept as doubles (Number(ts) is monotonic, and exact while every
 * stamp is a safe integer); the exact 64-bit stamps are kept only from the first stamp that is not.
 */
export class RandomLruPolicy implements Policy {
  readonly name = 'random_lru'
  readonly canEvict = true
  readonly readsBlockTime = false
  size = 0
  private tree!: CacheTree
  private blocks = new Int32Array(1024)
  private stamps = new Float64Array(1024)
  /** the exact stamps; undefined while every stamp is a safe integer (then equal doubles are equal stamps) */
  private exact: BigInt64Array | undefined
  private lastTs = 0n
  private lastStamp = 0
  private readonly rng: XorShift64Halves
  private readonly sampling: number
  /** the draws of one eviction (reused; grows up to the number of blocks) */
  private draws = new Int32Array(0)

  constructor(batch: number, sampleRate: number | undefined, seed: bigint) {
    const rate = sampleRate === undefined || sampleRate <= 0 ? 0.1 : sampleRate
    this.sampling = Math.max(1, Math.floor(batch / rate))
    this.rng = new XorShift64Halves(seed)
  }

  attach(tree: CacheTree): void {
    this.tree = tree
  }

  /** ts as a double, converted once per distinct stamp (a row's blocks share one) */
  private stampOf(ts: bigint): number {
    if (ts !== this.lastTs) {
      this.lastTs = ts
      this.lastStamp = Number(ts)
      if (this.exact === undefined && !Number.isSafeInteger(this.lastStamp)) this.keepExact()
    }
    return this.lastStamp
  }

  /** from now on the doubles may tie where the stamps differ: keep the exact ones (so far all safe integers) */
  private keepExact(): void {
    const exact = new BigInt64Array(this.blocks.length)
    for (let i = 0; i < this.size; i++) exact[i] = BigInt(this.stamps[i])
    this.exact = exact
  }

  onWritten(b: number, ts: bigint): void {
    const at = this.size
    if (at === this.blocks.length) this.grow()
    this.tree.bPos[b] = at
    this.blocks[at] = b
    this.stamps[at] = this.stampOf(ts)
    if (this.exact !== undefined) this.exact[at] = ts
    this.size = at + 1
  }

  onAccessed(b: number, ts: bigint): void {
    const at = this.tree.bPos[b]
    this.stamps[at] = this.stampOf(ts)
    if (this.exact !== undefined) this.exact[at] = ts
  }

  evict(count: number): number[] {
    const n = this.size
    if (n === 0) return []
    const total = Math.min(count, n)
    const s = Math.min(this.sampling, n)
    const k = Math.min(total, s)
    if (this.draws.length < s) this.draws = new Int32Array(Math.min(n, Math.max(s, 2 * this.draws.length)))
    const {draws, stamps, exact} = this
    this.rng.fillMod(draws, s, n)
    // the Optimizer's order, timestamps_[a] < timestamps_[b]: the doubles, the exact stamps where they tie
    const less =
      exact === undefined
        ? (a: number, b: number) => stamps[a] < stamps[b]
        : (a: number, b: number) => stamps[a] < stamps[b] || (stamps[a] === stamps[b] && exact[a] < exact[b])
    partialSortBy(draws, k, less, 0, s)
    // the victims are the blocks at the chosen positions before any removal moves them
    for (let d = 0; d < k; d++) draws[d] = this.blocks[draws[d]]
    const out: number[] = []
    for (let d = 0; d < k && out.length < total; d++) {
      const b = draws[d]
      if (this.tree.bPos[b] < 0) continue // already removed by an earlier duplicate draw
      this.remove(b)
      out.push(b)
    }
    return out
  }

  /** swap-remove: the last block takes b's position */
  private remove(b: number): void {
    const pos = this.tree.bPos
    const at = pos[b]
    const last = this.size - 1
    const moved = this.blocks[last]
    this.blocks[at] = moved
    this.stamps[at] = this.stamps[last]
    if (this.exact !== undefined) this.exact.copyWithin(at, last, last + 1)
    pos[moved] = at
    pos[b] = NONE
    this.size = last
  }

  private grow(): void {
    const size = this.blocks.length * 2
    this.blocks = grown(this.blocks, size)
    this.stamps = grown(this.stamps, size)
    if (this.exact !== undefined) this.exact = grown(this.exact, size)
  }
}

export class LeafAwareLruPolicy implements Policy {
  readonly name = 'leaf_aware_lru'
  readonly canEvict = true
  readonly readsBlockTime = true
  size = 0
  private tree!: CacheTree
  private list!: BlockList

  attach(tree: CacheTree): void {
    this.tree = tree
    this.list = new BlockList(tree)
  }

  onWritten(b: number): void {
    this.size++
    if (this.tree.nChildCount[this.tree.bNode[b]] === 0) this.list.pushFront(b)
  }

  onAccessed(b: number): void {
    if (this.tree.bInList[b] === 0) return
    this.list.touch(b)
  }

  /** no child of n holds a live block */
  private isDataLeaf(n: number): boolean {
    const t = this.tree
    for (let c = t.nFirstChild[n]; c !== NONE; c = t.nNextSib[c]) if (t.nLive[c] > 0) return false
    return true
  }

  evict(count: number): number[] {
    const t = this.tree
    const out: number[] = []
    const processed = new Set<number>()
    const list = this.list
    while (out.length < count && list.tail !== NONE) {
      const b = list.tail
      const owner = t.bNode[b]
      if (!this.isDataLeaf(owner)) {
        list.unlink(b) // stays registered and live
        continue
      }
      list.unlink(b)
      this.size--
      t.bLive[b] = 0 // placeholder now: the parent's data-leaf test must see it
      t.nLive[owner]--
      out.push(b)
      const p = t.nParent[owner]
      if (p !== NONE && !processed.has(p) && this.reactivate(p)) processed.add(p)
    }
    // the engine marks evicted blocks as placeholders; undo our early marking so it can do it uniformly
    for (const b of out) {
      t.bLive[b] = 1
      t.nLive[t.bNode[b]]++
    }
    return out
  }

  private reactivate(p: number): boolean {
    if (!this.isDataLeaf(p)) return false
    const t = this.tree
    let any = false
    for (let b = t.nFirst[p]; b !== NONE; b = t.bNextInNode[b]) {
      if (t.bLive[b] === 1 && t.bInList[b] === 0) {
        this.insertByTime(b)
        any = true
      }
    }
    return any
  }

  private insertByTime(b: number): void {
    const {head, tail} = this.list
    if (head === NONE || tail === NONE) return this.list.pushFront(b)
    const last = this.tree.bLast as BigInt64Array
    const next = this.tree.bNext
    const prev = this.tree.bPrev
    const t = last[b]
    let forward: boolean
    if (t >= last[head]) forward = true
    else if (t <= last[tail]) forward = false
    else forward = last[head] - t < t - last[tail]
    if (forward) {
      let at = head
      while (at !== NONE && last[at] > t) at = next[at]
      this.list.insertBefore(b, at)
    } else {
      let at = tail
      while (at !== NONE && last[at] < t) at = prev[at]
      this.list.insertAfter(b, at)
    }
  }
}
