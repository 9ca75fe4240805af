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

describe('TimestampAllocator: bounded when requests lag behind', () => {
  it('stays exact and bounded when every other request lags, and after a drain of old ones', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 256)
    const naive = new NaiveAllocator()
    let seed = 11
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const late: bigint[] = []
    let peak = 0
    for (let i = 0; i < 40_000; i++) {
      const base = BigInt(i * 3)
      // a write at its finish, then its get a little in the past (as a publisher log allocates them), with ties
      expect(a.allocate('x', base)).toBe(naive.allocate('x', base))
      const lag = base - BigInt(Math.floor(rand() * 200))
      expect(a.allocate('x', lag)).toBe(naive.allocate('x', lag))
      if (rand() < 0.05) late.push(BigInt(Math.floor(rand() * i * 3)))
      peak = Math.max(peak, a.inMemory)
    }
    // the old ones at the end, oldest first (never-written gets)
    late.sort((x, y) => (x < y ? -1 : 1))
    for (const base of late) {
      expect(a.allocate('x', base)).toBe(naive.allocate('x', base))
      peak = Math.max(peak, a.inMemory)
    }
    // the old allocator kept every timestamp once the lagging requests had reloaded it 8 times (80,000 here)
    expect(peak).toBeLessThan(2_000)
    tmp.cleanup()
  })
})
