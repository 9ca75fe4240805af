import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {ChildTable} from '../../../src/simulate/engine/child-table.js'
import {evictIfNeeded, SimInstance} from '../../../src/simulate/engine/engine.js'
import {LruPolicy} from '../../../src/simulate/engine/policies.js'

describe('ChildTable', () => {
  it('behaves like a Map keyed by (parent, key) under random sets, replacements and deletions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom('set', 'set', 'delete', 'get'),
            parent: fc.integer({min: 0, max: 40}),
            key: fc.integer({min: -3, max: 60}),
            child: fc.integer({min: 0, max: 1000}),
          }),
          {maxLength: 600},
        ),
        (ops) => {
          const table = new ChildTable(4) // small, so that it grows and probe runs collide
          const ref = new Map<string, number>()
          for (const {op, parent, key, child} of ops) {
            const k = `${parent}/${key}`
            if (op === 'set') {
              table.set(parent, key, child)
              ref.set(k, child)
            } else if (op === 'delete') {
              table.delete(parent, key)
              ref.delete(k)
            }
            expect(table.get(parent, key)).toBe(ref.get(k) ?? -1)
            expect(table.size).toBe(ref.size)
          }
          for (const [k, v] of ref) {
            const [p, key] = k.split('/').map(Number)
            expect(table.get(p, key)).toBe(v)
          }
        },
      ),
      {numRuns: 300},
    )
  })
})

/**
 * The LRU cache without a tree: a block is its key path; a get hits the longest prefix whose blocks are all cached
 * and touches them root to leaf; a write caches the missing ones in order without refreshing cached ones; eviction
 * takes the least recent. For LRU this is what the radix tree with placeholders and cleanup must give.
 */
class FlatLru {
  private readonly recency = new Map<string, true>() // insertion order = least recent first
  constructor(
    private readonly quota: number,
    private readonly batch: number,
  ) {}

  get size(): number {
    return this.recency.size
  }

  get(keys: number[]): number {
    let hits = 0
    for (let i = 1; i <= keys.length && this.recency.has(keys.slice(0, i).join(',')); i++) hits++
    for (let i = 1; i <= hits; i++) {
      const path = keys.slice(0, i).join(',')
      this.recency.delete(path)
      this.recency.set(path, true)
    }
    return hits
  }

  write(keys: number[]): {inserted: number; evicted: number} {
    let inserted = 0
    for (let i = 1; i <= keys.length; i++) {
      const path = keys.slice(0, i).join(',')
      if (!this.recency.has(path)) {
        this.recency.set(path, true)
        inserted++
      }
    }
    let evicted = 0
    const excess = this.recency.size - this.quota
    while (evicted < excess && this.recency.size > 0) {
      const n = Math.min(this.batch, excess - evicted)
      for (let k = 0; k < n && this.recency.size > 0; k++) {
        this.recency.delete(this.recency.keys().next().value as string)
        evicted++
      }
    }
    return {inserted, evicted}
  }
}

describe('SimInstance (typed-array radix tree)', () => {
  const keySeq = fc.array(fc.integer({min: 0, max: 4}), {minLength: 0, maxLength: 9})

  it('gives the flat LRU model’s hits, insertions, evictions and size on random traces (mode 3)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({get: fc.boolean(), keys: keySeq}), {minLength: 1, maxLength: 120}),
        fc.integer({min: 1, max: 25}),
        fc.integer({min: 1, max: 6}),
        (ops, quota, batch) => {
          const inst = new SimInstance(new LruPolicy(), 1)
          const settings = {quotaUnits: quota, mode: 3 as const, batch}
          const ref = new FlatLru(quota, batch)
          for (const {get, keys} of ops) {
            if (get) {
              const r = inst.get(keys, [], 0n)
              expect(r.localHit + r.remoteHit).toBe(ref.get(keys))
            } else {
              const before = inst.evictions
              const inserted = inst.insert(keys, 0n)
              evictIfNeeded([inst], settings, inst)
              const want = ref.write(keys)
              expect(inserted).toBe(want.inserted)
              expect(inst.evictions - before).toBe(want.evicted)
            }
            expect(inst.policy.size).toBe(ref.size)
          }
        },
      ),
      {numRuns: 400},
    )
  })

  it('reuses the slots of deleted nodes: block memory follows the cache, not the trace', () => {
    const inst = new SimInstance(new LruPolicy(), 1)
    const settings = {quotaUnits: 100, mode: 3 as const, batch: 1}
    let peak = 0
    for (let t = 0; t < 20_000; t++) {
      // every write a new two-block path under its own first key: evicted paths become deletable nodes
      inst.insert([2 * t, 2 * t + 1], 0n)
      evictIfNeeded([inst], settings, inst)
      peak = Math.max(peak, inst.tree.blocksInUse)
    }
    expect(inst.policy.size).toBe(100)
    expect(inst.evictions).toBe(2 * 20_000 - 100)
    expect(peak).toBeLessThanOrEqual(104)
  })
})
