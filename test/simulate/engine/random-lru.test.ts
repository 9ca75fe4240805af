import {describe, expect, it} from 'vitest'
import {CacheTree} from '../../../src/simulate/engine/cache-tree.js'
import {RandomLruPolicy} from '../../../src/simulate/engine/policies.js'
import {DEFAULT_SEED} from '../../../src/simulate/engine/xorshift64.js'

// From the default seed the first draws are 0xf2c49d843d3f949f, 0x8599e271d0df2c76, 0x5711b5ac7e674fae,
// 0x854fdf6f03dfaab1, 0x888ac5a3ec2c99a4 (docs/simulate.md §4.7.2): mod 3 they are 0 0 0 0 1, mod 2 they are 1 0 0 1 0.
function policy(): RandomLruPolicy {
  const p = new RandomLruPolicy(100, 0.1, DEFAULT_SEED)
  p.attach(new CacheTree(false))
  return p
}

describe('RandomLruPolicy (the Optimizer’s random_lru)', () => {
  it('a position drawn twice is evicted once, and the eviction returns fewer blocks than asked', () => {
    const p = policy()
    p.onWritten(10, 3n) // position 0
    p.onWritten(11, 2n) // position 1
    p.onWritten(12, 1n) // position 2 (the oldest, but not drawn)
    // 3 draws mod 3: 0 0 0 → the two kept are position 0 twice
    expect(p.evict(2)).toEqual([10])
    // 12 moved into position 0: blocks [12, 11]; 2 draws mod 2 (4th, 5th): 1 0 → 12 (stamp 1) is older than 11
    expect(p.evict(1)).toEqual([12])
    expect(p.size).toBe(1)
  })

  it('orders stamps beyond 2⁵³ exactly (equal as doubles, different as 64-bit values)', () => {
    const p = policy()
    p.onWritten(20, 2n ** 60n) // position 0, older
    p.onWritten(21, 2n ** 60n + 1n) // position 1
    // 2 draws mod 2: 1 0 → heap [21], then 20 is less: with doubles alone both are 2⁶⁰ and 21 would go
    expect(p.evict(1)).toEqual([20])
  })

  it('keeps exact stamps from the first one that is not a safe integer, accesses included', () => {
    const p = policy()
    p.onWritten(30, 7n) // a safe stamp, before exact stamps are kept
    p.onWritten(31, 2n ** 60n + 1n)
    p.onAccessed(30, 2n ** 60n)
    expect(p.evict(1)).toEqual([30])
  })
})
