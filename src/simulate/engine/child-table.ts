// The children of every node of one instance's prefix tree in one open-addressing table keyed by (parent, key):
// no Map per node (docs/simulate.md §8.3). Linear probing; deletion shifts later entries back, so no tombstones.

const EMPTY = -1

function hashOf(parent: number, key: number): number {
  let h = Math.imul(parent, 0x9e3779b1) ^ Math.imul(key, 0x85ebca77)
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  return h ^ (h >>> 13)
}

export class ChildTable {
  private parents: Int32Array
  private keys: Int32Array
  private children: Int32Array
  private mask: number
  size = 0

  constructor(initialCapacity = 1024) {
    let cap = 16
    while (cap < initialCapacity) cap *= 2
    this.parents = new Int32Array(cap).fill(EMPTY)
    this.keys = new Int32Array(cap)
    this.children = new Int32Array(cap)
    this.mask = cap - 1
    this.grow() // replaced once now, so V8 does not compile these fields as constants (see CacheTree)
  }

  /** The child of `parent` whose first block has `key`, or -1. */
  get(parent: number, key: number): number {
    const parents = this.parents
    const mask = this.mask
    let i = hashOf(parent, key) & mask
    for (;;) {
      const p = parents[i]
      if (p === EMPTY) return -1
      if (p === parent && this.keys[i] === key) return this.children[i]
      i = (i + 1) & mask
    }
  }

  /** Sets (or replaces) the child of `parent` under `key`. */
  set(parent: number, key: number, child: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow()
    const parents = this.parents
    const mask = this.mask
    let i = hashOf(parent, key) & mask
    for (;;) {
      const p = parents[i]
      if (p === EMPTY) break
      if (p === parent && this.keys[i] === key) {
        this.children[i] = child
        return
      }
      i = (i + 1) & mask
    }
    parents[i] = parent
    this.keys[i] = key
    this.children[i] = child
    this.size++
  }

  /** Removes the entry of (parent, key), if any. */
  delete(parent: number, key: number): void {
    const parents = this.parents
    const keys = this.keys
    const children = this.children
    const mask = this.mask
    let i = hashOf(parent, key) & mask
    for (;;) {
      const p = parents[i]
      if (p === EMPTY) return
      if (p === parent && keys[i] === key) break
      i = (i + 1) & mask
    }
    this.size--
    // backward-shift: move every later entry of the probe run that may live in the hole
    let hole = i
    let j = i
    for (;;) {
      j = (j + 1) & mask
      const p = parents[j]
      if (p === EMPTY) break
      const home = hashOf(p, keys[j]) & mask
      // the entry at j may move to the hole unless its home lies cyclically in (hole, j]
      const inRange = hole <= j ? home > hole && home <= j : home > hole || home <= j
      if (inRange) continue
      parents[hole] = p
      keys[hole] = keys[j]
      children[hole] = children[j]
      hole = j
    }
    parents[hole] = EMPTY
  }

  private grow(): void {
    const {parents, keys, children} = this
    const cap = (this.mask + 1) * 2
    this.parents = new Int32Array(cap).fill(EMPTY)
    this.keys = new Int32Array(cap)
    this.children = new Int32Array(cap)
    this.mask = cap - 1
    this.size = 0
    for (let i = 0; i < parents.length; i++)
      if (parents[i] !== EMPTY) this.set(parents[i], keys[i], children[i])
  }
}
