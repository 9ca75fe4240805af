// Storage of one instance's prefix tree in typed arrays indexed by block id and node id: no object per block or node
// on the hot path (docs/simulate.md §8.3). The tree's logic is SimInstance's (engine.ts); policies keep their lists in
// the block links here. Ids of deleted nodes and their blocks are reused, so memory follows the live tree.

import {ChildTable} from './child-table.js'
import {grown} from '../../util/grown.js'

export const NONE = -1
export const ROOT = 0

export class CacheTree {
  // ---- blocks
  /** interned key */
  bKey = new Int32Array(1024)
  /** owning node */
  bNode = new Int32Array(1024)
  /** the node's next block (NONE after its last) */
  bNextInNode = new Int32Array(1024)
  /** 1 = live, 0 = placeholder */
  bLive = new Uint8Array(1024)
  /** policy list links and membership */
  bPrev = new Int32Array(1024)
  bNext = new Int32Array(1024)
  bInList = new Uint8Array(1024)
  /** position in random_lru's array (NONE when not there) */
  bPos = new Int32Array(1024)
  /** last write or access (only when the policy reads it) */
  bLast: BigInt64Array | undefined
  private blockTop = 0
  private readonly freeBlocks: number[] = []

  // ---- nodes (node 0 is the root, which has no blocks)
  nParent = new Int32Array(256)
  nFirst = new Int32Array(256)
  nLast = new Int32Array(256)
  /** blocks in the node */
  nCount = new Int32Array(256)
  /** live blocks in the node */
  nLive = new Int32Array(256)
  nChildCount = new Int32Array(256)
  /** children as a doubly linked sibling list (for walks); lookups go through {@link children} */
  nFirstChild = new Int32Array(256)
  nNextSib = new Int32Array(256)
  nPrevSib = new Int32Array(256)
  private nodeTop = 1
  private readonly freeNodes: number[] = []

  readonly children = new ChildTable()

  constructor(withTimes: boolean) {
    if (withTimes) this.bLast = new BigInt64Array(1024)
    // the arrays are replaced as they grow: replace them once now, so V8 never treats these fields as constants
    // (code compiled with a constant field is thrown away, all of it at once, when the field first changes)
    this.growBlocks()
    this.growNodes()
    this.nParent[ROOT] = NONE
    this.nFirst[ROOT] = NONE
    this.nLast[ROOT] = NONE
    this.nFirstChild[ROOT] = NONE
  }

  /** Block slots in use (live blocks and placeholders): what the tree's block memory follows. */
  get blocksInUse(): number {
    return this.blockTop - this.freeBlocks.length
  }

  /** A new block of `key` appended to `node` (not yet live). */
  newBlock(node: number, key: number): number {
    let b = this.freeBlocks.pop()
    if (b === undefined) {
      b = this.blockTop++
      if (b === this.bKey.length) this.growBlocks()
    }
    this.bKey[b] = key
    this.bNode[b] = node
    this.bNextInNode[b] = NONE
    this.bLive[b] = 0
    this.bPrev[b] = NONE
    this.bNext[b] = NONE
    this.bInList[b] = 0
    this.bPos[b] = NONE
    if (this.bLast !== undefined) this.bLast[b] = 0n
    const last = this.nLast[node]
    if (last === NONE) this.nFirst[node] = b
    else this.bNextInNode[last] = b
    this.nLast[node] = b
    this.nCount[node]++
    return b
  }

  /** A new empty node, child of `parent` under `key`. */
  newChild(parent: number, key: number): number {
    let n = this.freeNodes.pop()
    if (n === undefined) {
      n = this.nodeTop++
      if (n === this.nParent.length) this.growNodes()
    }
    this.nParent[n] = parent
    this.nFirst[n] = NONE
    this.nLast[n] = NONE
    this.nCount[n] = 0
    this.nLive[n] = 0
    this.nChildCount[n] = 0
    this.nFirstChild[n] = NONE
    this.linkChild(parent, n)
    this.children.set(parent, key, n)
    return n
  }

  /** Puts `child` at the head of `parent`'s sibling list. */
  linkChild(parent: number, child: number): void {
    const head = this.nFirstChild[parent]
    this.nPrevSib[child] = NONE
    this.nNextSib[child] = head
    if (head !== NONE) this.nPrevSib[head] = child
    this.nFirstChild[parent] = child
    this.nChildCount[parent]++
  }

  /** Takes `child` out of its parent's sibling list. */
  unlinkChild(parent: number, child: number): void {
    const prev = this.nPrevSib[child]
    const next = this.nNextSib[child]
    if (prev !== NONE) this.nNextSib[prev] = next
    else this.nFirstChild[parent] = next
    if (next !== NONE) this.nPrevSib[next] = prev
    this.nChildCount[parent]--
  }

  /** Deletes a childless node from its parent and frees it with its blocks (none of which may be referenced). */
  deleteNode(n: number): void {
    const parent = this.nParent[n]
    this.children.delete(parent, this.bKey[this.nFirst[n]])
    this.unlinkChild(parent, n)
    for (let b = this.nFirst[n]; b !== NONE; b = this.bNextInNode[b]) this.freeBlocks.push(b)
    this.nCount[n] = 0
    this.nFirst[n] = NONE
    this.nLast[n] = NONE
    this.freeNodes.push(n)
  }

  private growBlocks(): void {
    const size = this.bKey.length * 2
    this.bKey = grown(this.bKey, size)
    this.bNode = grown(this.bNode, size)
    this.bNextInNode = grown(this.bNextInNode, size)
    this.bLive = grown(this.bLive, size)
    this.bPrev = grown(this.bPrev, size)
    this.bNext = grown(this.bNext, size)
    this.bInList = grown(this.bInList, size)
    this.bPos = grown(this.bPos, size)
    if (this.bLast !== undefined) this.bLast = grown(this.bLast, size)
  }

  private growNodes(): void {
    const size = this.nParent.length * 2
    this.nParent = grown(this.nParent, size)
    this.nFirst = grown(this.nFirst, size)
    this.nLast = grown(this.nLast, size)
    this.nCount = grown(this.nCount, size)
    this.nLive = grown(this.nLive, size)
    this.nChildCount = grown(this.nChildCount, size)
    this.nFirstChild = grown(this.nFirstChild, size)
    this.nNextSib = grown(this.nNextSib, size)
    this.nPrevSib = grown(this.nPrevSib, size)
  }
}
