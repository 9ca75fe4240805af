import {describe, expect, it} from 'vitest'
import {IntervalSet, TimestampAllocator} from '../../src/convert/timestamp-allocator.js'
import {tempDir} from '../helpers/cli.js'
import {itSlow} from '../helpers/slow.js'

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
  itSlow('stays exact and bounded when every other request lags, and after a drain of old ones', () => {
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

describe('TimestampAllocator: equal timestamps and inputs that go back in time', () => {
  it('gives a storm of equal timestamps base, base + 1, … in linear steps (200k at one base)', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 64)
    const base = 1_000_000_000n
    // the reference rule by arithmetic: the k-th request at one base gets base + k
    for (let k = 0; k < 200_000; k++)
      if (a.allocate('x', base) !== base + BigInt(k)) throw new Error(`at ${k}`)
    // one interval, whatever the number of requests
    expect(a.inMemory).toBe(1)
    // a request just below the storm and one inside it
    expect(a.allocate('x', base - 1n)).toBe(base - 1n)
    expect(a.allocate('x', base + 5n)).toBe(base + 200_000n)
    tmp.cleanup()
  })

  it('is exact on copies of one trace allocated one after another (several inputs), bounded in memory and runs', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 64)
    const naive = new NaiveAllocator()
    let seed = 5
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const rows: bigint[] = []
    for (let i = 0, t = 0; i < 4000; i++) rows.push(BigInt((t += Math.floor(rand() * 3) * 1000)))
    let peak = 0
    for (let copy = 0; copy < 6; copy++)
      for (const ts of rows) {
        expect(a.allocate('x', ts)).toBe(naive.allocate('x', ts))
        expect(a.allocate('x', ts + 1n)).toBe(naive.allocate('x', ts + 1n))
        peak = Math.max(peak, a.inMemory)
      }
    expect(peak).toBeLessThan(1_000)
    expect(a.spilledRuns).toBeLessThanOrEqual(12)
    tmp.cleanup()
  })

  it('is exact on days given in any order, storms, int64 edges and values beyond int64', () => {
    const tmp = tempDir()
    const naive = new NaiveAllocator()
    const a = new TimestampAllocator(tmp.dir, 16)
    let seed = 99
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const day = (d: number) => BigInt(d) * 100_000n
    const requests: Array<[string, bigint]> = []
    for (const d of [3, 1, 4, 0, 2, 1, 3]) {
      for (let i = 0; i < 1500; i++) {
        const id = rand() < 0.8 ? 'a' : 'b'
        const ts = day(d) + BigInt(Math.floor(rand() < 0.3 ? i / 50 : i * 7 + rand() * 20))
        requests.push([id, ts], [id, ts + 1n])
      }
      for (let i = 0; i < 300; i++) requests.push(['a', day(d) + 500n]) // a storm inside the day
    }
    const max = 2n ** 63n - 1n
    for (const t of [max - 3n, max - 3n, max - 3n, max - 3n, max - 3n, -(2n ** 63n), -(2n ** 63n)])
      requests.push(['edge', t])
    for (let i = 0; i < 40; i++) requests.push(['edge', 5n])
    for (let i = 0; i < 100; i++) requests.push(['big', 2n ** 70n + BigInt(i % 7)], ['big', BigInt(i)])
    for (const [id, t] of requests) expect(a.allocate(id, t)).toBe(naive.allocate(id, t))
    tmp.cleanup()
  })

  it('is exact on random requests with many spills and merges', () => {
    const tmp = tempDir()
    const a = new TimestampAllocator(tmp.dir, 12)
    const naive = new NaiveAllocator()
    let seed = 3
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    for (let i = 0; i < 10_000; i++) {
      const r = rand()
      const base =
        r < 0.6 ? BigInt(i * 2) : r < 0.9 ? BigInt(Math.floor(rand() * i * 2)) : BigInt(Math.floor(i / 100))
      expect(a.allocate('x', base)).toBe(naive.allocate('x', base))
    }
    expect(a.spilledRuns).toBeLessThanOrEqual(24)
    tmp.cleanup()
  })
})

describe('IntervalSet', () => {
  it('holds what a set of integers holds, as disjoint non-adjacent intervals, through adds and cuts', () => {
    const set = new IntervalSet()
    const naive = new Set<bigint>()
    let seed = 21
    const rand = (k: number) => (seed = (seed * 48271) % 2147483647) % k
    /** the naive set's intervals, in increasing order */
    const runs = (): Array<[bigint, bigint]> => {
      const out: Array<[bigint, bigint]> = []
      for (const v of [...naive].sort((x, y) => (x < y ? -1 : 1))) {
        const last = out.at(-1)
        if (last !== undefined && last[1] + 1n === v) last[1] = v
        else out.push([v, v])
      }
      return out
    }
    for (let step = 0; step < 3000; step++) {
      const a = BigInt(rand(2000) - 500)
      if (step % 400 === 399) {
        // a cut below a floor, as a spill makes one
        const floor = set.startFromTop(Math.ceil(set.size / 4) - 1)
        const before = runs()
        const below = set.takeBelow(floor)
        const want = before
          .filter(([lo]) => lo < floor)
          .map(([lo, hi]): [bigint, bigint] => [lo, hi < floor ? hi : floor - 1n])
        expect(below.lo.map((lo, i) => [lo, below.hi[i]])).toEqual(want)
        for (const v of [...naive]) if (v < floor) naive.delete(v)
      } else {
        const b = a + BigInt(rand(4) === 0 ? rand(40) : 0)
        set.addRange(a, b)
        for (let v = a; v <= b; v++) naive.add(v)
      }
      const want = runs()
      expect(set.size).toBe(want.length)
      expect(set.min).toBe(want[0]?.[0])
      expect(set.max).toBe(want.at(-1)?.[1])
      const t = BigInt(rand(2100) - 550)
      const holding = want.find(([lo, hi]) => lo <= t && t <= hi)
      expect(set.covering(t)).toEqual(holding)
      if (want.length > 0) {
        const r = rand(want.length)
        expect(set.startFromTop(r)).toBe(want[want.length - 1 - r][0])
        expect(set.startFromTop(want.length + r)).toBe(want[0][0]) // beyond the top: the lowest start
      }
    }
  })
})
