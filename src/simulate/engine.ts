// The replay engine of lmt simulate (simulate.md §4): per-instance radix trees, eviction policies, eviction modes
// and cleanup. Keys are interned integers; timestamps are exact bigints.

export class Block {
  live = false
  last = 0n
  prev: Block | null = null
  next: Block | null = null
  inList = false
  pos = -1

  constructor(
    readonly key: number,
    public owner: RNode,
  ) {}
}

/** the children of every leaf: most nodes are leaves, so a node gets its own map with its first child */
const NO_CHILDREN: ReadonlyMap<number, RNode> = new Map()

export class RNode {
  blocks: Block[] = []
  /** read-only while it is {@link NO_CHILDREN}: add children with {@link setChild} */
  children = NO_CHILDREN as Map<number, RNode>
  /** live blocks among `blocks` */
  live = 0

  constructor(public parent: RNode | null) {}

  setChild(key: number, child: RNode): void {
    if (this.children === NO_CHILDREN) this.children = new Map()
    this.children.set(key, child)
  }
}

/** The policy interface of §4.7. */
export interface Policy {
  readonly name: string
  size: number
  readonly canEvict: boolean
  /** whether the policy reads `Block.last` (only then does the engine store a timestamp per touched block) */
  readonly readsBlockTime: boolean
  onWritten(b: Block, ts: bigint): void
  onAccessed(b: Block, ts: bigint): void
  /** removes up to n blocks (they become placeholders in the engine) */
  evict(n: number): Block[]
}

/** Doubly linked recency list over blocks (front = most recent). */
class BlockList {
  head: Block | null = null
  tail: Block | null = null

  pushFront(b: Block): void {
    b.prev = null
    b.next = this.head
    if (this.head) this.head.prev = b
    else this.tail = b
    this.head = b
    b.inList = true
  }

  unlink(b: Block): void {
    if (b.prev) b.prev.next = b.next
    else this.head = b.next
    if (b.next) b.next.prev = b.prev
    else this.tail = b.prev
    b.prev = b.next = null
    b.inList = false
  }

  /** inserts b just before `at` (on the head side); at null = at the tail */
  insertBefore(b: Block, at: Block | null): void {
    if (at === null) {
      b.next = null
      b.prev = this.tail
      if (this.tail) this.tail.next = b
      else this.head = b
      this.tail = b
    } else {
      b.next = at
      b.prev = at.prev
      if (at.prev) at.prev.next = b
      else this.head = b
      at.prev = b
    }
    b.inList = true
  }

  /** inserts b just after `at` (on the tail side); at null = at the head */
  insertAfter(b: Block, at: Block | null): void {
    if (at === null) return this.pushFront(b)
    this.insertBefore(b, at.next)
  }
}

export class LruPolicy implements Policy {
  readonly name: string = 'lru'
  size = 0
  readonly canEvict: boolean = true
  readonly readsBlockTime: boolean = false
  private readonly list = new BlockList()

  onWritten(b: Block): void {
    this.list.pushFront(b)
    this.size++
  }

  onAccessed(b: Block): void {
    this.list.unlink(b)
    this.list.pushFront(b)
  }

  evict(n: number): Block[] {
    const out: Block[] = []
    while (out.length < n && this.list.tail) {
      const b = this.list.tail
      this.list.unlink(b)
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

  override evict(n: number): Block[] {
    return this.canEvict ? super.evict(n) : []
  }
}

const M64 = (1n << 64n) - 1n
export const DEFAULT_SEED = 0x12345678abcdef01n

/** xorshift64 (13, 7, 17), the original's generator. */
export class XorShift64 {
  constructor(private x: bigint) {}

  next(): bigint {
    let x = this.x
    x ^= (x << 13n) & M64
    x ^= x >> 7n
    x ^= (x << 17n) & M64
    this.x = x
    return x
  }
}

export class RandomLruPolicy implements Policy {
  readonly name = 'random_lru'
  readonly canEvict = true
  readonly readsBlockTime = false
  private readonly blocks: Block[] = []
  private readonly stamps: bigint[] = []
  private readonly rng: XorShift64
  private readonly sampling: number

  constructor(batch: number, sampleRate: number | undefined, seed: bigint) {
    const rate = sampleRate === undefined || sampleRate <= 0 ? 0.1 : sampleRate
    this.sampling = Math.max(1, Math.floor(batch / rate))
    this.rng = new XorShift64(seed)
  }

  get size(): number {
    return this.blocks.length
  }

  onWritten(b: Block, ts: bigint): void {
    b.pos = this.blocks.length
    this.blocks.push(b)
    this.stamps.push(ts)
  }

  onAccessed(b: Block, ts: bigint): void {
    this.stamps[b.pos] = ts
  }

  evict(count: number): Block[] {
    const n = this.blocks.length
    if (n === 0) return []
    const total = Math.min(count, n)
    const s = Math.min(this.sampling, n)
    const k = Math.min(total, s)
    const draws: Array<{stamp: bigint; j: number; b: Block}> = []
    const bn = BigInt(n)
    for (let j = 0; j < s; j++) {
      const p = Number(this.rng.next() % bn)
      draws.push({stamp: this.stamps[p], j, b: this.blocks[p]})
    }
    draws.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.j - b.j))
    const out: Block[] = []
    for (let d = 0; d < k && out.length < total; d++) {
      const b = draws[d].b
      if (b.pos < 0) continue // already removed by an earlier duplicate draw
      const at = b.pos
      const last = this.blocks.length - 1
      this.blocks[at] = this.blocks[last]
      this.stamps[at] = this.stamps[last]
      this.blocks[at].pos = at
      this.blocks.pop()
      this.stamps.pop()
      b.pos = -1
      out.push(b)
    }
    return out
  }
}

function isDataLeaf(n: RNode): boolean {
  for (const c of n.children.values()) if (c.live > 0) return false
  return true
}

export class LeafAwareLruPolicy implements Policy {
  readonly name = 'leaf_aware_lru'
  readonly canEvict = true
  readonly readsBlockTime = true
  size = 0
  private readonly list = new BlockList()

  onWritten(b: Block): void {
    this.size++
    if (b.owner.children.size === 0) this.list.pushFront(b)
  }

  onAccessed(b: Block): void {
    if (!b.inList) return
    this.list.unlink(b)
    this.list.pushFront(b)
  }

  evict(count: number): Block[] {
    const out: Block[] = []
    const processed = new Set<RNode>()
    while (out.length < count && this.list.tail) {
      const b = this.list.tail
      if (!isDataLeaf(b.owner)) {
        this.list.unlink(b) // stays registered and live
        continue
      }
      this.list.unlink(b)
      this.size--
      b.live = false // placeholder now: the parent's data-leaf test must see it
      b.owner.live--
      out.push(b)
      const p = b.owner.parent
      if (p && !processed.has(p) && this.reactivate(p)) processed.add(p)
    }
    // the engine marks evicted blocks as placeholders; undo our early marking so it can do it uniformly
    for (const b of out) {
      b.live = true
      b.owner.live++
    }
    return out
  }

  private reactivate(p: RNode): boolean {
    if (!isDataLeaf(p)) return false
    let any = false
    for (const b of p.blocks) {
      if (b.live && !b.inList) {
        this.insertByTime(b)
        any = true
      }
    }
    return any
  }

  private insertByTime(b: Block): void {
    const {head, tail} = this.list
    if (!head || !tail) return this.list.pushFront(b)
    const t = b.last
    let forward: boolean
    if (t >= head.last) forward = true
    else if (t <= tail.last) forward = false
    else forward = head.last - t < t - tail.last
    if (forward) {
      let at: Block | null = head
      while (at && at.last > t) at = at.next
      this.list.insertBefore(b, at)
    } else {
      let at: Block | null = tail
      while (at && at.last < t) at = at.prev
      this.list.insertAfter(b, at)
    }
  }
}

export interface ReadResult {
  localHit: number
  remoteHit: number
  localRead: number
}

const NO_MASK: {localRead: number; unmasked: Set<number> | undefined} = {localRead: 0, unmasked: undefined}

/**
 * A get's block_mask (§4.3): how many of its blocks are local reads, and the keys of the unmasked positions (a hit
 * on one of those keys is remote; undefined: every hit is remote).
 */
export function splitByMask(
  keys: readonly number[],
  mask: readonly boolean[] | number,
): {localRead: number; unmasked: Set<number> | undefined} {
  const n = keys.length
  let unmasked: Set<number> | undefined
  let localRead: number
  if (Array.isArray(mask)) {
    localRead = 0
    const lim = Math.min(mask.length, n)
    for (let i = 0; i < lim; i++) if (mask[i]) localRead++
    if (localRead > 0) {
      unmasked = new Set()
      for (let i = 0; i < n; i++) if (!(i < mask.length && mask[i])) unmasked.add(keys[i])
    }
  } else {
    localRead = Math.min(mask as number, n)
    if (localRead > 0) {
      unmasked = new Set()
      for (let i = localRead; i < n; i++) unmasked.add(keys[i])
    }
  }
  return {localRead, unmasked}
}

/** One instance's cache: radix tree plus policy. */
export class SimInstance {
  readonly root = new RNode(null)
  evictions = 0
  /** the result of the last {@link get}, reused (read it before the next call) */
  private readonly result: ReadResult = {localHit: 0, remoteHit: 0, localRead: 0}
  private readonly stamps: boolean

  constructor(
    readonly policy: Policy,
    /** units one live block occupies */
    readonly weight: number,
  ) {
    this.stamps = policy.readsBlockTime
  }

  /** GET (§4.3): the longest live prefix; hits touched root → leaf. The result object is reused by the next call. */
  get(keys: readonly number[], mask: readonly boolean[] | number, ts: bigint): ReadResult {
    const n = keys.length
    // no mask (the usual row): every hit is remote, without building a split
    const split = (Array.isArray(mask) ? mask.length === 0 : mask === 0) ? NO_MASK : splitByMask(keys, mask)
    const {localRead, unmasked} = split
    let local = 0
    let remote = 0
    let node = this.root
    let i = 0
    outer: while (i < n) {
      const child = node.children.get(keys[i])
      if (!child) break
      const blocks = child.blocks
      let m = 0
      while (m < blocks.length && i + m < n && blocks[m].key === keys[i + m]) {
        const b = blocks[m]
        if (!b.live) break outer
        if (unmasked === undefined || unmasked.has(keys[i + m])) remote++
        else local++
        if (this.stamps) b.last = ts
        this.policy.onAccessed(b, ts)
        m++
      }
      if (m < blocks.length || i + m === n) break
      node = child
      i += m
    }
    const r = this.result
    r.localHit = local
    r.remoteHit = remote
    r.localRead = localRead
    return r
  }

  private register(b: Block, ts: bigint): void {
    if (this.stamps) b.last = ts
    b.live = true
    b.owner.live++
    this.policy.onWritten(b, ts)
  }

  private newBlocks(node: RNode, keys: readonly number[], from: number, ts: bigint): number {
    for (let j = from; j < keys.length; j++) {
      const b = new Block(keys[j], node)
      node.blocks.push(b)
      this.register(b, ts)
    }
    return keys.length - from
  }

  /** INSERT (§4.4): creates missing blocks and revives placeholders; returns how many. */
  insert(keys: readonly number[], ts: bigint): number {
    const n = keys.length
    let node = this.root
    let i = 0
    let inserted = 0
    while (i < n) {
      if (node !== this.root && node.children.size === 0) return inserted + this.newBlocks(node, keys, i, ts)
      const child = node.children.get(keys[i])
      if (!child) {
        const fresh = new RNode(node)
        node.setChild(keys[i], fresh)
        return inserted + this.newBlocks(fresh, keys, i, ts)
      }
      const blocks = child.blocks
      let m = 0
      while (m < blocks.length && i + m < n && blocks[m].key === keys[i + m]) m++
      for (let j = 0; j < m; j++) {
        if (!blocks[j].live) {
          this.register(blocks[j], ts)
          inserted++
        }
      }
      if (m === blocks.length) {
        node = child
        i += m
        continue
      }
      if (i + m === n) return inserted
      const mid = this.split(child, m)
      const leaf = new RNode(mid)
      mid.setChild(keys[i + m], leaf)
      return inserted + this.newBlocks(leaf, keys, i + m, ts)
    }
    return inserted
  }

  private split(child: RNode, m: number): RNode {
    const parent = child.parent as RNode
    const mid = new RNode(parent)
    mid.blocks = child.blocks.slice(0, m)
    let live = 0
    const moved = mid.blocks
    for (let k = 0; k < moved.length; k++) {
      moved[k].owner = mid
      if (moved[k].live) live++
    }
    mid.live = live
    child.blocks = child.blocks.slice(m)
    child.live -= live
    child.parent = mid
    mid.setChild(child.blocks[0].key, child)
    parent.setChild(mid.blocks[0].key, mid)
    return mid
  }

  /** Runs the policy's evict and turns the blocks into placeholders. */
  evict(n: number): Block[] {
    const out = this.policy.evict(n)
    for (let k = 0; k < out.length; k++) {
      out[k].live = false
      out[k].owner.live--
    }
    return out
  }

  /** CLEANUP (§4.6) */
  cleanup(evicted: readonly Block[]): void {
    // plain arrays and indexed loops: this runs after every evicting write, and small code is optimised sooner
    const candidates = this.candidates
    let previous: RNode | undefined
    for (let k = 0; k < evicted.length; k++) {
      const b = evicted[k]
      // blocks of one node are mostly evicted together: a repeat is skipped (a later one is harmless)
      if (b.owner === previous || b.live || b.owner === this.root) continue
      previous = b.owner
      candidates.push(b.owner)
    }
    // a node goes once it has blocks, none of them live, and no children; its parent may then follow
    let deleted = true
    while (deleted) {
      deleted = false
      for (let k = 0; k < candidates.length; k++) {
        const n = candidates[k]
        if (n === null || n.blocks.length === 0 || n.live !== 0 || n.children.size !== 0) continue
        const parent = n.parent as RNode
        const key = n.blocks[0].key
        if (parent.children.get(key) === n) parent.children.delete(key)
        candidates[k] = null
        deleted = true
      }
    }
    candidates.length = 0
  }

  /** the nodes {@link cleanup} examines (reused) */
  private readonly candidates: Array<RNode | null> = []
}

export interface GroupSettings {
  /** null = infinite */
  quotaUnits: number | null
  mode: 1 | 2 | 3
  batch: number
}

/** EVICT_IF_NEEDED (§4.5) for the group of `writer`. */
export function evictIfNeeded(
  group: readonly SimInstance[],
  settings: GroupSettings,
  writer: SimInstance,
): void {
  if (settings.quotaUnits === null) return
  // indexed loops on this per-write path: cheaper than iterators until the code is optimised
  let used = 0
  for (let k = 0; k < group.length; k++) used += group[k].policy.size * group[k].weight
  const excess = used - settings.quotaUnits
  if (excess <= 0) return
  if (settings.mode !== 1) {
    // modes 2 and 3: only the writer evicts (the hot path; no per-instance bookkeeping)
    let total = 0
    let evicted: Block[] | undefined
    while (total < excess && writer.policy.canEvict) {
      const count =
        settings.mode === 2
          ? settings.batch
          : Math.min(settings.batch, Math.ceil((excess - total) / writer.weight))
      const out = writer.evict(count)
      if (out.length === 0) break
      total += out.length * writer.weight
      if (evicted === undefined) evicted = out
      else for (let k = 0; k < out.length; k++) evicted.push(out[k])
    }
    if (evicted !== undefined) {
      writer.evictions += evicted.length
      writer.cleanup(evicted)
    }
    return
  }
  let total = 0
  const evicted = new Map<SimInstance, Block[]>()
  const take = (inst: SimInstance, out: Block[]) => {
    total += out.length * inst.weight
    let list = evicted.get(inst)
    if (!list) evicted.set(inst, (list = []))
    for (const b of out) list.push(b)
  }
  // mode 1: every instance of the group evicts a batch per round
  for (;;) {
    let any = false
    for (const inst of group) {
      if (!inst.policy.canEvict) continue
      const out = inst.evict(settings.batch)
      if (out.length > 0) {
        any = true
        take(inst, out)
      }
    }
    if (!any || total >= excess) break
  }
  for (const [inst, blocks] of evicted) {
    inst.evictions += blocks.length
    inst.cleanup(blocks)
  }
}
