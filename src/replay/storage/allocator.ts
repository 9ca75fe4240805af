// First-fit aligned allocator with an address-ordered free list (docs/storage-replay.md §6.3).

export interface Block {
  offset: number
  size: number
}

export class Allocator {
  /** free blocks sorted by offset, coalesced */
  readonly free: Block[]
  used = 0

  constructor(readonly total: number) {
    this.free = total > 0 ? [{offset: 0, size: total}] : []
  }

  get usage(): number {
    return this.total > 0 ? this.used / this.total : 0
  }

  /** How many objects of `aligned` bytes fit in the free blocks (counting stops once `enough` fit). */
  capacityFor(aligned: number, enough = Infinity): number {
    let n = 0
    for (let i = 0; i < this.free.length && n < enough; i++) n += Math.floor(this.free[i].size / aligned)
    return n
  }

  /** n objects of `aligned` bytes, first fit in address order; all or nothing. */
  allocateBatch(n: number, aligned: number): Block[] | undefined {
    if (n === 0) return []
    // the capacity is at most the free bytes over `aligned`: most refusals need no look at the free list
    if (n * aligned > this.total - this.used || this.capacityFor(aligned, n) < n) return undefined
    const out: Block[] = []
    const f = this.free
    let remaining = n
    let usedUp = false
    for (let i = 0; i < f.length && remaining > 0; i++) {
      const b = f[i]
      const take = Math.min(remaining, Math.floor(b.size / aligned))
      for (let k = 0; k < take; k++) out.push({offset: b.offset + k * aligned, size: aligned})
      remaining -= take
      b.offset += take * aligned
      b.size -= take * aligned
      if (b.size === 0) usedUp = true
    }
    // the blocks used up leave the list together, in one pass
    if (usedUp) {
      let w = 0
      for (let r = 0; r < f.length; r++) if (f[r].size > 0) f[w++] = f[r]
      f.length = w
    }
    this.used += n * aligned
    return out
  }

  /** Returns a block, coalescing with its neighbours. */
  release(block: Block): void {
    this.used -= block.size
    const f = this.free
    let lo = 0
    let hi = f.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (f[mid].offset < block.offset) lo = mid + 1
      else hi = mid
    }
    // a freed block usually touches a free neighbour: grow it in place rather than insert and merge
    const prev = lo > 0 ? f[lo - 1] : undefined
    const next = lo < f.length ? f[lo] : undefined
    const joinsPrev = prev !== undefined && prev.offset + prev.size === block.offset
    const joinsNext = next !== undefined && block.offset + block.size === next.offset
    if (joinsPrev && joinsNext) {
      prev.size += block.size + next.size
      f.splice(lo, 1)
    } else if (joinsPrev) prev.size += block.size
    else if (joinsNext) {
      next.offset = block.offset
      next.size += block.size
    } else f.splice(lo, 0, {offset: block.offset, size: block.size})
  }
}
