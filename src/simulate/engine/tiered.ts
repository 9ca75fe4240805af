// The July-2026 Optimizer's cache model (docs/simulate.md §10): storage tiers inside a
// group, each tier with its own eviction policy per instance; write modes, promotion, access propagation, selective
// copies, cascade demotion, TTL expiry and the sharded LRU. Blocks and nodes are plain objects: this model favours
// being easy to check against the rules over the typed-array layout of the untiered engine (engine.ts).

import {BinaryHeap} from '../../util/binary-heap.js'
import {partialSortBy} from '../../util/libstdcxx-sort.js'
import {XorShift64} from './xorshift64.js'
import type {EdgeStrategy, WriteMode} from '../config/tiers.js'

export type {EdgeStrategy, WriteMode}

const INT64_MAX = 2n ** 63n - 1n

export class Block {
  /**
   * per tier index: the block's entry for that tier, made when the block first enters the tier and kept (a block
   * leaving and re-entering a tier reuses it, so a long play allocates per block, not per move); `present` says
   * whether the tier holds the block
   */
  readonly stats: Array<TierEntry | undefined>
  /** tiers holding the block (present iff > 0) */
  held = 0
  writeTime = -1n
  lastAccess = -1n
  accessCount = 0
  /** 0 = never expires */
  ttl = 0n
  anchor = -1n

  constructor(
    readonly key: number,
    public node: TreeNode,
    tiers: number,
  ) {
    this.stats = new Array<TierEntry | undefined>(tiers)
  }
}

export class TreeNode {
  blocks: Block[] = []
  /** read-only until {@link setChild} gives the node a map of its own (most nodes are leaves and never do) */
  children: ReadonlyMap<number, TreeNode> = NO_CHILDREN

  constructor(public parent: TreeNode | null) {}

  setChild(key: number, child: TreeNode): void {
    if (this.children === NO_CHILDREN) this.children = new Map<number, TreeNode>()
    ;(this.children as Map<number, TreeNode>).set(key, child)
  }

  deleteChild(key: number): void {
    if (this.children !== NO_CHILDREN) (this.children as Map<number, TreeNode>).delete(key)
  }
}

/** the children of every leaf: one shared empty map, never written */
const NO_CHILDREN: ReadonlyMap<number, TreeNode> = new Map<number, TreeNode>()

/** A doubly linked list of blocks, front = most recent. */
class ListNode {
  prev: ListNode | null = null
  next: ListNode | null = null
  /** in its policy's list (an lru entry, kept on its block) */
  listed = false

  constructor(readonly block: Block) {}
}

/** A block's record for one tier: its stat while the tier holds it, and its place in the tier's lru lists. */
class TierEntry extends ListNode {
  /** its lru shard in the tier (-1: not yet asked) */
  shard = -1
  present = false
  count = 0
  last = -1n
  write = -1n
}

class BlockList {
  head: ListNode | null = null
  tail: ListNode | null = null

  pushFront(n: ListNode): void {
    n.prev = null
    n.next = this.head
    if (this.head) this.head.prev = n
    else this.tail = n
    this.head = n
  }

  pushBack(n: ListNode): void {
    n.next = null
    n.prev = this.tail
    if (this.tail) this.tail.next = n
    else this.head = n
    this.tail = n
  }

  unlink(n: ListNode): void {
    if (n.prev) n.prev.next = n.next
    else this.head = n.next
    if (n.next) n.next.prev = n.prev
    else this.tail = n.prev
    n.prev = n.next = null
  }

  /** inserts n before `at` (null: at the back) */
  insertBefore(n: ListNode, at: ListNode | null): void {
    if (at === null) return this.pushBack(n)
    n.next = at
    n.prev = at.prev
    if (at.prev) at.prev.next = n
    else this.head = n
    at.prev = n
  }

  /** inserts n after `at` (null: at the front) */
  insertAfter(n: ListNode, at: ListNode | null): void {
    if (at === null) return this.pushFront(n)
    this.insertBefore(n, at.next)
  }
}

/** What a tier policy needs of its instance: the tree's tiers and the key's shard. */
export interface PolicyHost {
  /** the tier's name is `shared` (hierarchical eviction off) */
  readonly shared: boolean
  /** the key as an unsigned 64-bit value, modulo m */
  keyMod(key: number, m: number): number
  /** takes the tier's location away from the block */
  dropLocation(b: Block, tier: number): void
}

/** The time a tier policy orders a block by (its last access through the tier, else its write into it). */
function tierTime(b: Block, tier: number, shared: boolean): bigint {
  const s = b.stats[tier]
  if (s !== undefined && s.present) {
    if (s.last >= 0n) return s.last
    if (s.write >= 0n) return s.write
  }
  if (shared) {
    if (b.lastAccess >= 0n) return b.lastAccess
    if (b.writeTime >= 0n) return b.writeTime
  }
  return INT64_MAX
}

/** One instance's policy for one tier. */
export interface TierPolicy {
  size: number
  /** false: the manager never asks it for capacity (ttl without fallback_on_pressure) */
  readonly evictsForCapacity: boolean
  register(b: Block): void
  access(b: Block, ts: bigint): void
  /** removes up to n blocks from the tier (their location included) */
  evict(n: number): Block[]
  /** forgets a block whose location is gone already */
  forget(b: Block): void
  holds(b: Block): boolean
}

/** a time above every tier time: an empty shard's */
const EMPTY = 2n ** 64n

/**
 * The shard whose tail is oldest (ties: the lowest index), kept in a tournament tree over the shards' tail times.
 * A shard whose tail may have changed is marked and its leaf recomputed before the next query.
 */
class OldestTail {
  private readonly leaves: number
  private readonly time: bigint[]
  private readonly shard: Int32Array
  private readonly marked: Uint8Array
  private readonly pending: number[] = []

  constructor(
    private readonly shards: readonly BlockList[],
    private readonly tailTime: (n: ListNode) => bigint,
  ) {
    let leaves = 1
    while (leaves < shards.length) leaves *= 2
    this.leaves = leaves
    this.time = new Array<bigint>(2 * leaves).fill(EMPTY)
    this.shard = new Int32Array(2 * leaves)
    for (let i = 0; i < leaves; i++) this.shard[leaves + i] = i
    for (let i = leaves - 1; i >= 1; i--) this.shard[i] = this.shard[2 * i]
    this.marked = new Uint8Array(shards.length)
  }

  /** the shard's tail may have changed (or its tail's time) */
  mark(s: number): void {
    if (this.marked[s] === 1) return
    this.marked[s] = 1
    this.pending.push(s)
  }

  /** recomputes shard s's leaf and its path to the root */
  update(s: number): void {
    const tail = this.shards[s].tail
    let i = this.leaves + s
    this.time[i] = tail === null ? EMPTY : this.tailTime(tail)
    for (i >>= 1; i >= 1; i >>= 1) {
      const l = 2 * i
      const pick = this.time[l] <= this.time[l + 1] ? l : l + 1
      this.time[i] = this.time[pick]
      this.shard[i] = this.shard[pick]
    }
  }

  /** the shard with the oldest tail, or -1 when every shard is empty */
  oldest(): number {
    for (const s of this.pending) {
      this.marked[s] = 0
      this.update(s)
    }
    this.pending.length = 0
    return this.time[1] === EMPTY ? -1 : this.shard[1]
  }
}

/** `lru`: `shards` recency lists; an eviction takes candidates from the oldest tails (exact with one shard). */
export class ShardedLru implements TierPolicy {
  size = 0
  readonly evictsForCapacity = true
  private readonly shards: BlockList[] = []
  private readonly shardCount: number
  private readonly rounds: number
  private readonly amplification: number
  private readonly oldest: OldestTail

  constructor(
    private readonly host: PolicyHost,
    private readonly tier: number,
    shardCount: number,
    sampleTimes: number,
    amplification: number,
  ) {
    this.shardCount = shardCount <= 0 ? 1 : shardCount
    this.rounds = sampleTimes <= 0 ? 1 : sampleTimes
    this.amplification = amplification > 1 ? amplification : 1
    for (let s = 0; s < this.shardCount; s++) this.shards.push(new BlockList())
    this.oldest = new OldestTail(this.shards, (n) => this.time(n))
  }

  /** the shard of a block's entry (its key modulo the shard count, asked once per entry) */
  private shardIndex(n: TierEntry): number {
    if (this.shardCount === 1) return 0
    if (n.shard < 0) n.shard = this.host.keyMod(n.block.key, this.shardCount)
    return n.shard
  }

  /**
   * The entry's shard; marked (its leaf in the tournament recomputed before the next query) when `n` is or will
   * be its tail: only then can the tail, or the tail's time, change.
   */
  private shardOf(n: TierEntry, tailChanges: boolean): BlockList {
    if (this.shardCount === 1) return this.shards[0]
    const s = this.shardIndex(n)
    const shard = this.shards[s]
    if (tailChanges || shard.tail === n || shard.tail === null) this.oldest.mark(s)
    return shard
  }

  /** the shard whose tail is oldest (-1: none) */
  private oldestShard(): number {
    if (this.shardCount === 1) return this.shards[0].tail === null ? -1 : 0
    return this.oldest.oldest()
  }

  /** the block's entry in this tier's lists, when it is in them */
  private entry(b: Block): TierEntry | undefined {
    const n = b.stats[this.tier]
    return n !== undefined && n.listed ? n : undefined
  }

  holds(b: Block): boolean {
    return this.entry(b) !== undefined
  }

  register(b: Block): void {
    const n = b.stats[this.tier] as TierEntry // made when the block entered the tier
    n.listed = true
    this.shardOf(n, false).pushFront(n)
    this.size++
  }

  access(b: Block): void {
    const n = this.entry(b)
    if (n === undefined) return
    const shard = this.shardOf(n, false)
    if (shard.head === n) return
    shard.unlink(n)
    shard.pushFront(n)
  }

  forget(b: Block): void {
    const n = this.entry(b)
    if (n === undefined) return
    this.shardOf(n, false).unlink(n)
    n.listed = false
    this.size--
  }

  private time(n: ListNode): bigint {
    return tierTime(n.block, this.tier, this.host.shared)
  }

  evict(count: number): Block[] {
    if (count <= 0 || this.size === 0) return []
    const wanted = Math.max(Math.trunc(this.amplification * count), count)
    const rounds = Math.min(this.rounds, this.shardCount)
    const perRound = Math.ceil(wanted / rounds)
    const candidates: ListNode[] = []
    for (let r = 0; r < rounds && candidates.length < wanted; r++) {
      const best = this.oldestShard()
      if (best < 0) break
      const shard = this.shards[best]
      for (let k = 0; k < perRound && shard.tail !== null && candidates.length < wanted; k++) {
        const n = shard.tail
        shard.unlink(n)
        candidates.push(n)
      }
      if (this.shardCount > 1) this.oldest.update(best)
    }
    if (candidates.length > count) partialSortBy(candidates, count, (a, b) => this.time(a) < this.time(b))
    const victims = candidates.length > count ? candidates.slice(0, count) : candidates
    for (let k = count; k < candidates.length; k++) {
      const n = candidates[k] as TierEntry
      this.shardOf(n, true).pushBack(n)
    }
    const out: Block[] = []
    for (const n of victims) {
      n.listed = false
      this.size--
      this.host.dropLocation(n.block, this.tier)
      out.push(n.block)
    }
    return out
  }
}

/** `leaf_aware_lru` (the July generation's): only blocks of data leaves are evictable. */
export class LeafAwareLru implements TierPolicy {
  size = 0
  readonly evictsForCapacity = true
  private readonly list = new BlockList()
  private readonly held = new Set<Block>()
  /** the blocks in the evictable list */
  private readonly listed = new Map<Block, ListNode>()

  constructor(
    private readonly host: PolicyHost,
    private readonly tier: number,
  ) {}

  holds(b: Block): boolean {
    return this.held.has(b)
  }

  register(b: Block): void {
    this.held.add(b)
    this.size++
    if (b.node.children.size === 0) this.listFront(b)
  }

  private listFront(b: Block): void {
    const n = new ListNode(b)
    this.listed.set(b, n)
    this.list.pushFront(n)
  }

  access(b: Block): void {
    const n = this.listed.get(b)
    if (n === undefined) return
    this.list.unlink(n)
    this.list.pushFront(n)
  }

  forget(b: Block): void {
    if (!this.held.delete(b)) return
    this.size--
    this.unlist(b)
  }

  private unlist(b: Block): void {
    const n = this.listed.get(b)
    if (n === undefined) return
    this.list.unlink(n)
    this.listed.delete(b)
  }

  /** no block of any child node is held by any tier */
  private static isDataLeaf(node: TreeNode): boolean {
    for (const child of node.children.values()) for (const b of child.blocks) if (b.held > 0) return false
    return true
  }

  evict(count: number): Block[] {
    const out: Block[] = []
    const processed = new Set<TreeNode>()
    while (out.length < count && this.list.tail !== null) {
      const b = this.list.tail.block
      if (!LeafAwareLru.isDataLeaf(b.node)) {
        this.unlist(b) // stays held, out of the list
        continue
      }
      this.unlist(b)
      this.held.delete(b)
      this.size--
      this.host.dropLocation(b, this.tier)
      out.push(b)
      const parent = b.node.parent
      if (parent !== null && !processed.has(parent) && LeafAwareLru.isDataLeaf(parent)) {
        let any = false
        for (const pb of parent.blocks) {
          if (this.held.has(pb) && !this.listed.has(pb)) {
            this.insertSorted(pb)
            any = true
          }
        }
        if (any) processed.add(parent)
      }
    }
    return out
  }

  /** the July generation's sorted insert: its walks use "newer than", on a list kept newest first */
  private insertSorted(b: Block): void {
    const n = new ListNode(b)
    this.listed.set(b, n)
    const list = this.list
    if (list.head === null || list.tail === null) return list.pushBack(n)
    const time = (x: Block) => tierTime(x, this.tier, this.host.shared)
    const x = time(b)
    const h = time(list.head.block)
    const l = time(list.tail.block)
    const forward = x >= h ? true : x <= l ? false : h - x < x - l
    if (forward) {
      let at: ListNode | null = list.head
      while (at !== null && x > time(at.block)) at = at.next
      list.insertBefore(n, at)
    } else {
      let at: ListNode | null = list.tail
      while (at !== null && time(at.block) > x) at = at.prev
      list.insertAfter(n, at)
    }
  }
}

/** `random_lru`: the oldest of random draws (with replacement), in libstdc++'s partial_sort order. */
export class RandomLru implements TierPolicy {
  readonly evictsForCapacity = true
  private readonly blocks: Block[] = []
  private readonly stamps: bigint[] = []
  private readonly index = new Map<Block, number>()
  private readonly rng: XorShift64
  private readonly samples: number

  constructor(
    private readonly host: PolicyHost,
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

  holds(b: Block): boolean {
    return this.index.has(b)
  }

  register(b: Block): void {
    this.index.set(b, this.blocks.length)
    this.blocks.push(b)
    this.stamps.push(tierTime(b, this.tier, this.host.shared))
  }

  access(b: Block, ts: bigint): void {
    const at = this.index.get(b)
    if (at !== undefined) this.stamps[at] = ts
  }

  forget(b: Block): void {
    const at = this.index.get(b)
    if (at === undefined) return
    const last = this.blocks.length - 1
    const moved = this.blocks[last]
    this.blocks[at] = moved
    this.stamps[at] = this.stamps[last]
    this.index.set(moved, at)
    this.blocks.pop()
    this.stamps.pop()
    this.index.delete(b)
  }

  evict(count: number): Block[] {
    const n = this.blocks.length
    if (n === 0 || count <= 0) return []
    const total = Math.min(count, n)
    const drawn = Math.min(Math.max(this.samples, 0), n)
    const draws: number[] = []
    const m = BigInt(n)
    for (let d = 0; d < drawn; d++) draws.push(Number(this.rng.next() % m))
    const k = Math.min(total, drawn)
    partialSortBy(draws, k, (a, b) => this.stamps[a] < this.stamps[b])
    const chosen = draws.slice(0, k).map((d) => this.blocks[d])
    const out: Block[] = []
    for (const b of chosen) {
      if (out.length >= total) break
      if (!this.index.has(b)) continue // drawn twice
      this.forget(b)
      this.host.dropLocation(b, this.tier)
      out.push(b)
    }
    return out
  }
}

interface ExpiryEvent {
  expire: bigint
  version: number
  block: Block
}

/** `ttl`: expiry events in a min-heap; capacity eviction harvests, then (with fallback) takes the oldest. */
export class TtlPolicy implements TierPolicy {
  private readonly list = new BlockList()
  private readonly nodes = new Map<Block, ListNode>()
  private readonly versions = new Map<Block, number>()
  private heap = TtlPolicy.newHeap()
  private now = 0n

  constructor(
    private readonly host: PolicyHost,
    private readonly tier: number,
    readonly evictsForCapacity: boolean,
    private readonly refreshOnRead: boolean,
  ) {}

  private static newHeap(): BinaryHeap<ExpiryEvent> {
    return new BinaryHeap<ExpiryEvent>((a, b) => a.expire < b.expire)
  }

  get size(): number {
    return this.nodes.size
  }

  holds(b: Block): boolean {
    return this.nodes.has(b)
  }

  register(b: Block): void {
    const n = new ListNode(b)
    this.nodes.set(b, n)
    this.list.pushFront(n)
    if (b.lastAccess > this.now) this.now = b.lastAccess
    b.anchor = b.lastAccess
    this.pushEvent(b)
  }

  access(b: Block, ts: bigint): void {
    if (ts > this.now) this.now = ts
    const n = this.nodes.get(b)
    if (n === undefined) return
    this.list.unlink(n)
    this.list.pushFront(n)
    if (this.refreshOnRead) {
      b.anchor = ts
      this.pushEvent(b)
    }
  }

  private pushEvent(b: Block): void {
    if (b.ttl <= 0n) return
    const version = (this.versions.get(b) ?? 0) + 1
    this.versions.set(b, version)
    this.heap.push({expire: b.anchor + b.ttl, version, block: b})
    if (this.heap.size > 4 * this.nodes.size && this.nodes.size > 0) this.rebuild()
  }

  /** one event per held block that can expire, at its current anchor */
  private rebuild(): void {
    const heap = TtlPolicy.newHeap()
    for (const b of this.nodes.keys()) {
      const version = this.versions.get(b)
      if (b.ttl > 0n && version !== undefined) heap.push({expire: b.anchor + b.ttl, version, block: b})
    }
    this.heap = heap
  }

  advance(ts: bigint): void {
    if (ts > this.now) this.now = ts
  }

  /** removes every held block expired now */
  harvest(): Block[] {
    const out: Block[] = []
    for (;;) {
      const top = this.heap.peek()
      if (top === undefined || !(top.expire < this.now)) break
      this.heap.pop()
      const b = top.block
      if (!this.nodes.has(b) || this.versions.get(b) !== top.version) continue
      if (!(b.ttl > 0n && this.now > b.anchor + b.ttl)) continue
      this.take(b)
      out.push(b)
    }
    return out
  }

  private take(b: Block): void {
    const n = this.nodes.get(b) as ListNode
    this.list.unlink(n)
    this.nodes.delete(b)
    this.versions.delete(b)
    this.host.dropLocation(b, this.tier)
  }

  forget(b: Block): void {
    const n = this.nodes.get(b)
    if (n === undefined) return
    this.list.unlink(n)
    this.nodes.delete(b)
    this.versions.delete(b)
  }

  evict(count: number): Block[] {
    const out = this.harvest()
    if (this.nodes.size === 0) return out
    if (this.evictsForCapacity)
      while (out.length < count && this.list.tail !== null) {
        const b = this.list.tail.block
        this.take(b)
        out.push(b)
      }
    return out
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

/** The counts of one read (hits per tier in `tierHits`). */
export interface TieredRead {
  localHit: number
  remoteHit: number
  localRead: number
  tierHits: number[]
}

/** One instance: its tree and one policy per tier. */
export class TieredInstance implements PolicyHost {
  readonly root = new TreeNode(null)
  readonly policies: TierPolicy[]
  readonly shared: boolean
  readonly bytesPerBlock: number
  /** the blocks evicted from the tier being checked, then from every tier of the check (for cleanup) */
  readonly tierEvicted: Block[] = []
  readonly checkEvicted: Block[] = []
  /** whether the last {@link read} wrote a tier location (a selective copy or a promotion) */
  wrote = false
  /** blocks its tiers gave up for capacity (a block demoted from one tier to the next counts once) */
  evictions = 0
  private readonly result: TieredRead

  constructor(
    readonly setup: TieredInstanceSetup,
    readonly group: TieredGroup,
    readonly keyMod: (key: number, m: number) => number,
  ) {
    const g = group.setup
    this.shared = !g.hierarchical
    this.bytesPerBlock = setup.bytesPerBlock
    this.policies = g.tierNames.map((_, tier) => this.newPolicy(tier))
    this.result = {localHit: 0, remoteHit: 0, localRead: 0, tierHits: g.tierNames.map(() => 0)}
  }

  get tiers(): number {
    return this.policies.length
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
        return new ShardedLru(this, tier, s.shardCount, s.sampleTimes, s.amplification)
    }
  }

  /** blocks held, summed over the tiers (a block in two tiers counts twice) */
  get cachedBlocks(): number {
    let n = 0
    for (const p of this.policies) n += p.size
    return n
  }

  dropLocation(b: Block, tier: number): void {
    const e = b.stats[tier]
    if (e === undefined || !e.present) return
    e.present = false
    b.held--
  }

  /** appends the block to one tier (nothing when it holds it); true when it was appended */
  appendToTier(b: Block, tier: number, ts: bigint): boolean {
    let e = b.stats[tier]
    if (e !== undefined && e.present) return false
    if (e === undefined) e = b.stats[tier] = new TierEntry(b)
    e.present = true
    e.count = 0
    e.last = e.write = this.shared ? -1n : ts
    b.held++
    this.policies[tier].register(b)
    return true
  }

  /** appends from tier `from` down the chain of write_through edges; true when any tier was appended */
  appendToChain(b: Block, from: number, ts: bigint): boolean {
    const edges = this.group.setup.edges
    let any = false
    for (let tier = from; tier < this.tiers; tier++) {
      if (this.appendToTier(b, tier, ts)) any = true
      if (tier >= edges.length || edges[tier].writeMode !== 'write_through') break
    }
    return any
  }

  /** the tiers a new or revived block is written into: tier 0 and every tier behind write_through edges */
  private initialTiers(): number {
    const edges = this.group.setup.edges
    let n = 1
    while (n < this.tiers && edges[n - 1].writeMode === 'write_through') n++
    return n
  }

  /** INSERT: new blocks and revived absent ones enter the initial tiers; present blocks are left alone */
  insert(keys: readonly number[], ts: bigint, ttl: bigint): void {
    const initial = this.initialTiers()
    const enter = (b: Block) => {
      b.writeTime = ts
      b.lastAccess = ts
      b.ttl = ttl
      for (let tier = 0; tier < initial; tier++) this.appendToTier(b, tier, ts)
    }
    const newBlocks = (node: TreeNode, from: number) => {
      for (let j = from; j < keys.length; j++) {
        const b = new Block(keys[j], node, this.tiers)
        node.blocks.push(b)
        enter(b)
      }
    }
    let node = this.root
    let i = 0
    while (i < keys.length) {
      if (node !== this.root && node.children.size === 0) return newBlocks(node, i)
      const child = node.children.get(keys[i])
      if (child === undefined) {
        const leaf = new TreeNode(node)
        node.setChild(keys[i], leaf)
        return newBlocks(leaf, i)
      }
      const blocks = child.blocks
      let m = 0
      while (m < blocks.length && i + m < keys.length && blocks[m].key === keys[i + m]) m++
      for (let j = 0; j < m; j++) if (blocks[j].held === 0) enter(blocks[j])
      if (m === blocks.length) {
        node = child
        i += m
        continue
      }
      if (i + m === keys.length) return
      const mid = this.split(child, m)
      const leaf = new TreeNode(mid)
      mid.setChild(keys[i + m], leaf)
      return newBlocks(leaf, i + m)
    }
  }

  /** the first m blocks of `child` move to a new node in its place; `child` hangs below it */
  private split(child: TreeNode, m: number): TreeNode {
    const parent = child.parent as TreeNode
    const mid = new TreeNode(parent)
    mid.blocks = child.blocks.slice(0, m)
    for (const b of mid.blocks) b.node = mid
    child.blocks = child.blocks.slice(m)
    parent.setChild(mid.blocks[0].key, mid)
    mid.setChild(child.blocks[0].key, child)
    child.parent = mid
    return mid
  }

  /**
   * LOOKUP: the longest present prefix; each hit is counted for the first tier holding it, its accesses are
   * propagated, and it is copied (selective writes) and promoted. Returns the counts (the object is reused) and
   * whether a tier was written.
   */
  read(
    keys: readonly number[],
    unmasked: Set<number> | undefined,
    localRead: number,
    ts: bigint,
  ): TieredRead {
    const r = this.result
    r.localHit = 0
    r.remoteHit = 0
    r.localRead = localRead
    r.tierHits.fill(0)
    let wrote = false
    let node = this.root
    let i = 0
    outer: while (i < keys.length) {
      const child = node.children.get(keys[i])
      if (child === undefined) break
      const blocks = child.blocks
      let m = 0
      while (m < blocks.length && i + m < keys.length && blocks[m].key === keys[i + m]) {
        const b = blocks[m]
        if (b.held === 0) break outer
        if (unmasked === undefined || unmasked.has(keys[i + m])) r.remoteHit++
        else r.localHit++
        if (this.hit(b, ts)) wrote = true
        m++
      }
      if (m < blocks.length || i + m === keys.length) break
      node = child
      i += m
    }
    this.wrote = wrote
    return r
  }

  /** one hit block: counted, accessed, copied, promoted; true when a tier location was written */
  private hit(b: Block, ts: bigint): boolean {
    const edges = this.group.setup.edges
    let h = 0
    while (!(b.stats[h]?.present ?? false)) h++
    this.result.tierHits[h]++
    b.accessCount++
    b.lastAccess = ts
    const stat = b.stats[h] as TierEntry
    this.policies[h].access(b, ts)
    stat.last = ts
    stat.count++
    let propagate = true
    for (let tier = h + 1; tier < this.tiers; tier++) {
      if (!edges[tier - 1].propagate) propagate = false
      const s = b.stats[tier]
      if (s !== undefined && s.present && propagate) {
        this.policies[tier].access(b, ts)
        s.last = ts
      }
    }
    let wrote = false
    if (
      h < edges.length &&
      edges[h].writeMode === 'write_through_selective' &&
      stat.count >= edges[h].threshold
    )
      wrote = this.appendToChain(b, h + 1, ts)
    if (h > 0 && this.group.promotes)
      for (let j = h - 1; j >= 0 && edges[j].promote; j--) if (this.appendToTier(b, j, ts)) wrote = true
    return wrote
  }

  /** CLEANUP: blocks no tier holds are reset; nodes left with only such blocks and no children are removed */
  cleanup(evicted: readonly Block[]): void {
    const collected = new Set<TreeNode>()
    for (const b of evicted) {
      if (b.held !== 0) continue
      b.accessCount = 0
      b.lastAccess = -1n
      b.writeTime = -1n
      b.anchor = -1n
      b.ttl = 0n
      if (b.node !== this.root) collected.add(b.node)
    }
    let removed = true
    while (removed) {
      removed = false
      for (const n of collected) {
        if (n.blocks.length === 0 || n.children.size !== 0 || n.blocks.some((b) => b.held > 0)) continue
        const parent = n.parent as TreeNode
        if (parent.children.get(n.blocks[0].key) === n) parent.deleteChild(n.blocks[0].key)
        collected.delete(n)
        removed = true
      }
    }
  }
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

  constructor(readonly setup: TieredGroupSetup) {
    this.promotes = setup.edges.some((e) => e.promote)
  }

  add(setup: TieredInstanceSetup, keyMod: (key: number, m: number) => number): TieredInstance {
    const inst = new TieredInstance(setup, this, keyMod)
    this.members.push(inst)
    for (const policy of inst.policies) if (policy instanceof TtlPolicy) this.ttlPolicies.push({inst, policy})
    return inst
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
    let expired: Map<TieredInstance, Block[]> | undefined
    for (const {inst, policy: p} of ttl) {
      p.advance(ts)
      if (p.size === 0) continue
      const out = p.harvest()
      if (out.length === 0) continue
      expired ??= new Map()
      const list = expired.get(inst)
      if (list) list.push(...out)
      else expired.set(inst, out)
    }
    if (expired === undefined) return
    for (const [inst, blocks] of expired) {
      for (const b of blocks) {
        if (b.held === 0) continue
        // another tier still holds the block: its policy's event went stale when the shared anchor moved
        this.strandedExpiries++
        for (let tier = 0; tier < inst.tiers; tier++) {
          if (!(b.stats[tier]?.present ?? false)) continue
          inst.policies[tier].forget(b)
          inst.dropLocation(b, tier)
        }
      }
      inst.cleanup(blocks)
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
      if (mode === 1) this.evictGroupRough(tier, excess)
      else this.evictInstance(trigger, tier, excess)
      const cascades = tier + 1 < tiers && edges[tier].writeMode === 'cascading'
      for (const inst of members) {
        const blocks = inst.tierEvicted
        if (blocks.length === 0) continue
        any = true
        inst.evictions += blocks.length
        for (const b of blocks) {
          if (cascades) inst.appendToChain(b, tier + 1, ts)
          inst.checkEvicted.push(b)
        }
        blocks.length = 0
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
        const blocks = p.evict(this.setup.batch)
        if (blocks.length === 0) continue
        any = true
        total += blocks.length * inst.bytesPerBlock
        for (const b of blocks) inst.tierEvicted.push(b)
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
      const blocks = p.evict(count)
      if (blocks.length === 0) break
      total += blocks.length * inst.bytesPerBlock
      for (const b of blocks) inst.tierEvicted.push(b)
    }
  }
}
