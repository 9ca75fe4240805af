// The replay engine of lmt simulate (docs/simulate.md §4): per-instance radix trees (in typed arrays, cache-tree.ts),
// eviction policies (policies.ts), eviction modes and cleanup. Keys are interned integers; timestamps exact bigints.

import {CacheTree, NONE, ROOT} from './cache-tree.js'
import type {Policy} from './policies.js'

export type {Policy} from './policies.js'

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
  readonly tree: CacheTree
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
    this.tree = new CacheTree(this.stamps)
    policy.attach(this.tree)
  }

  /** GET (§4.3): the longest live prefix; hits touched root → leaf. The result object is reused by the next call. */
  get(keys: readonly number[], mask: readonly boolean[] | number, ts: bigint): ReadResult {
    const n = keys.length
    // no mask (the usual row): every hit is remote, without building a split
    const split = (Array.isArray(mask) ? mask.length === 0 : mask === 0) ? NO_MASK : splitByMask(keys, mask)
    const {localRead, unmasked} = split
    const t = this.tree
    const {bKey, bLive, bNextInNode, nFirst, nCount, children} = t
    const policy = this.policy
    let local = 0
    let remote = 0
    let node = ROOT
    let i = 0
    outer: while (i < n) {
      const child = children.get(node, keys[i])
      if (child === NONE) break
      const count = nCount[child]
      let b = nFirst[child]
      let m = 0
      while (m < count && i + m < n && bKey[b] === keys[i + m]) {
        if (bLive[b] === 0) break outer
        if (unmasked === undefined || unmasked.has(keys[i + m])) remote++
        else local++
        if (this.stamps) (t.bLast as BigInt64Array)[b] = ts
        policy.onAccessed(b, ts)
        m++
        b = bNextInNode[b]
      }
      if (m < count || i + m === n) break
      node = child
      i += m
    }
    const r = this.result
    r.localHit = local
    r.remoteHit = remote
    r.localRead = localRead
    return r
  }

  private register(b: number, ts: bigint): void {
    const t = this.tree
    if (this.stamps) (t.bLast as BigInt64Array)[b] = ts
    t.bLive[b] = 1
    t.nLive[t.bNode[b]]++
    this.policy.onWritten(b, ts)
  }

  private newBlocks(node: number, keys: readonly number[], from: number, ts: bigint): number {
    for (let j = from; j < keys.length; j++) this.register(this.tree.newBlock(node, keys[j]), ts)
    return keys.length - from
  }

  /** INSERT (§4.4): creates missing blocks and revives placeholders; returns how many. */
  insert(keys: readonly number[], ts: bigint): number {
    const t = this.tree
    const n = keys.length
    let node = ROOT
    let i = 0
    let inserted = 0
    while (i < n) {
      if (node !== ROOT && t.nChildCount[node] === 0) return inserted + this.newBlocks(node, keys, i, ts)
      const child = t.children.get(node, keys[i])
      if (child === NONE) return inserted + this.newBlocks(t.newChild(node, keys[i]), keys, i, ts)
      const count = t.nCount[child]
      const first = t.nFirst[child]
      let m = 0
      for (let b = first; m < count && i + m < n && t.bKey[b] === keys[i + m]; b = t.bNextInNode[b]) m++
      for (let j = 0, b = first; j < m; j++, b = t.bNextInNode[b]) {
        if (t.bLive[b] === 0) {
          this.register(b, ts)
          inserted++
        }
      }
      if (m === count) {
        node = child
        i += m
        continue
      }
      if (i + m === n) return inserted
      const mid = this.split(child, m)
      return inserted + this.newBlocks(t.newChild(mid, keys[i + m]), keys, i + m, ts)
    }
    return inserted
  }

  /** Splits `child` after its first m blocks: a new node `mid` takes them and `child` hangs below it. */
  private split(child: number, m: number): number {
    const t = this.tree
    const parent = t.nParent[child]
    const firstKey = t.bKey[t.nFirst[child]]
    // mid takes child's place among parent's children (same first key), child becomes mid's only child
    t.unlinkChild(parent, child)
    const mid = t.newChild(parent, firstKey)
    let b = t.nFirst[child]
    let last = NONE
    let live = 0
    for (let k = 0; k < m; k++) {
      t.bNode[b] = mid
      if (t.bLive[b] === 1) live++
      last = b
      b = t.bNextInNode[b]
    }
    t.nFirst[mid] = t.nFirst[child]
    t.nLast[mid] = last
    t.nCount[mid] = m
    t.nLive[mid] = live
    t.bNextInNode[last] = NONE
    t.nFirst[child] = b
    t.nCount[child] -= m
    t.nLive[child] -= live
    t.nParent[child] = mid
    t.linkChild(mid, child)
    t.children.set(mid, t.bKey[b], child)
    return mid
  }

  /** Runs the policy's evict and turns the blocks into placeholders. */
  evict(n: number): number[] {
    const out = this.policy.evict(n)
    const t = this.tree
    for (let k = 0; k < out.length; k++) {
      t.bLive[out[k]] = 0
      t.nLive[t.bNode[out[k]]]--
    }
    return out
  }

  /** CLEANUP (§4.6) */
  cleanup(evicted: readonly number[]): void {
    const t = this.tree
    const candidates = this.candidates
    let previous = NONE
    for (let k = 0; k < evicted.length; k++) {
      const b = evicted[k]
      const owner = t.bNode[b]
      // blocks of one node are mostly evicted together: a repeat is skipped (a later one is harmless)
      if (owner === previous || t.bLive[b] === 1 || owner === ROOT) continue
      previous = owner
      candidates.push(owner)
    }
    // a node goes once it has blocks, none of them live, and no children; its parent may then follow
    let deleted = true
    while (deleted) {
      deleted = false
      for (let k = 0; k < candidates.length; k++) {
        const n = candidates[k]
        if (n === NONE || t.nCount[n] === 0 || t.nLive[n] !== 0 || t.nChildCount[n] !== 0) continue
        // a deleted node has no blocks, so a repeated candidate is skipped above
        t.deleteNode(n)
        candidates[k] = NONE
        deleted = true
      }
    }
    candidates.length = 0
  }

  /** the nodes {@link cleanup} examines (reused) */
  private readonly candidates: number[] = []
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
    let evicted: number[] | undefined
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
  const evicted = new Map<SimInstance, number[]>()
  const take = (inst: SimInstance, out: number[]) => {
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
