import {describe, expect, it} from 'vitest'
import {TimestampAllocator} from '../../src/convert/timestamp-allocator.js'
import {tempDir} from '../helpers/cli.js'

/** The reference semantics: one unbounded set per instance. */
class NaiveAllocator {
  private readonly sets = new Map<string, Set<bigint>>()
  allocate(id: string, base: bigint): bigint {
    let s = this.sets.get(id)
    if (!s) this.sets.set(id, (s = new Set()))
    let t = base
    while (s.has(t)) t++
    s.add(t)
    return t
  }
}

describe('TimestampAllocator with spilling', () => {
  it('is exact and bounded on time-sorted input', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 64)
    const naive = new NaiveAllocator()
    for (let i = 0; i < 5000; i++) {
      const base = BigInt(Math.floor(i / 3)) * 10n
      expect(a.allocate('x', base)).toBe(naive.allocate('x', base))
      expect(a.allocate('x', base + 1n)).toBe(naive.allocate('x', base + 1n))
    }
    expect(a.inMemory).toBeLessThan(200)
    tmp.cleanup()
  })

  it('stays exact when late requests fall below the spilled floor', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 32)
    const naive = new NaiveAllocator()
    let seed = 7
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    for (let i = 0; i < 20000; i++) {
      const id = rand() < 0.5 ? 'a' : 'b'
      // mostly increasing, sometimes far in the past
      const base = rand() < 0.02 ? BigInt(Math.floor(rand() * i)) : BigInt(i + Math.floor(rand() * 5))
      expect(a.allocate(id, base)).toBe(naive.allocate(id, base))
    }
    tmp.cleanup()
  })
})
