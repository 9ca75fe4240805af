// Path identities for the offline passes over a trace (the stack pass, the Belady oracle).

/**
 * Block ids of a prefix tree: (parent block, key id) → block, numbered from 0 in order of creation. An
 * open-addressing table of typed arrays: no string or object per block. Roots are negative parents.
 */
export class PrefixBlocks {
  private parents = new Int32Array(1 << 16)
  private keys = new Int32Array(1 << 16)
  private ids = new Int32Array(1 << 16).fill(-1)
  count = 0

  /** The block of key `key` below block `parent` (a negative number: a root), created when new. */
  block(parent: number, key: number): number {
    if (2 * (this.count + 1) > this.ids.length) this.grow()
    const mask = this.ids.length - 1
    let i = (Math.imul(parent + 1, 0x9e3779b1) ^ Math.imul(key, 0x85ebca6b)) & mask
    for (; this.ids[i] !== -1; i = (i + 1) & mask)
      if (this.parents[i] === parent && this.keys[i] === key) return this.ids[i]
    this.parents[i] = parent
    this.keys[i] = key
    this.ids[i] = this.count
    return this.count++
  }

  private grow(): void {
    const {parents, keys, ids} = this
    this.parents = new Int32Array(ids.length * 2)
    this.keys = new Int32Array(ids.length * 2)
    this.ids = new Int32Array(ids.length * 2).fill(-1)
    const mask = this.ids.length - 1
    for (let j = 0; j < ids.length; j++) {
      if (ids[j] === -1) continue
      let i = (Math.imul(parents[j] + 1, 0x9e3779b1) ^ Math.imul(keys[j], 0x85ebca6b)) & mask
      while (this.ids[i] !== -1) i = (i + 1) & mask
      this.parents[i] = parents[j]
      this.keys[i] = keys[j]
      this.ids[i] = ids[j]
    }
  }
}
