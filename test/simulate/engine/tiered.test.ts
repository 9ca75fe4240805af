// The tiered model (the July-2026 Optimizer's tiers, TTL and sharded LRU) on cases worked out by hand, and
// libstdc++'s std::sort it relies on (its partial sort is proven in partial-sort.test.ts).
import {describe, expect, it} from 'vitest'
import {introsortBy} from '../../../src/util/libstdcxx-sort.js'
import {
  type EdgeStrategy,
  TieredGroup,
  type TieredGroupSetup,
  type TieredInstance,
  type TieredInstanceSetup,
} from '../../../src/simulate/engine/tiered.js'
import {lcg} from '../../helpers/lcg.js'

describe('libstdc++ sorts', () => {
  it('introsortBy sorts, and reorders equal elements as an unstable sort may', () => {
    const rnd = lcg(11)
    let reordered = false
    for (let trial = 0; trial < 200; trial++) {
      const n = Math.floor(rnd() * 300)
      const rows = Array.from({length: n}, (_, i) => ({ts: Math.floor(rnd() * 20), i}))
      introsortBy(rows, (x, y) => x.ts < y.ts)
      for (let k = 1; k < n; k++) expect(rows[k - 1].ts).toBeLessThanOrEqual(rows[k].ts)
      expect(new Set(rows.map((r) => r.i)).size).toBe(n)
      if (rows.some((r, k) => k > 0 && rows[k - 1].ts === r.ts && rows[k - 1].i > r.i)) reordered = true
    }
    expect(reordered).toBe(true)
  })

  it('introsortBy leaves an array in strictly increasing order as it is', () => {
    const rows = Array.from({length: 1000}, (_, i) => ({ts: i * 3}))
    const copy = [...rows]
    introsortBy(rows, (x, y) => x.ts < y.ts)
    expect(rows).toEqual(copy)
  })
})

const WT: EdgeStrategy = {writeMode: 'write_through', propagate: true, promote: true, threshold: 2}

function group(over: Partial<TieredGroupSetup>): TieredGroupSetup {
  return {
    tierNames: ['hbm', 'ssd'],
    hierarchical: true,
    quotas: [2, 4],
    edges: [WT],
    defaultTtlSeconds: 0n,
    refreshOnRead: true,
    mode: 3,
    batch: 100,
    seed: 0x12345678abcdef01n,
    ...over,
  }
}

function instance(g: TieredGroup, over: Partial<TieredInstanceSetup> = {}): TieredInstance {
  return g.add(
    {
      id: 'i',
      policy: 'lru',
      shardCount: 1,
      sampleTimes: 32,
      amplification: 1,
      sampleRate: 0,
      fallbackOnPressure: true,
      bytesPerBlock: 1,
      ...over,
    },
    (key, m) => key % m,
  )
}

/** a write as the player does it: expiry, insert, eviction */
function write(i: TieredInstance, keys: number[], ts: bigint, ttlUs?: bigint): void {
  i.group.expire(ts)
  i.insert(keys, ts, i.group.ttlOf(ttlUs))
  i.group.evictIfNeeded(i, ts)
}

/** a read as the player does it; the hits per tier */
function read(i: TieredInstance, keys: number[], ts: bigint): number[] {
  i.group.expire(ts)
  i.read(keys, 0, ts)
  const hits = [...i.tierHits]
  if (i.wrote) i.group.evictIfNeeded(i, ts)
  return hits
}

const sizes = (i: TieredInstance) => i.policies.map((p) => p.size)

describe('the tiered model, by hand', () => {
  it('write_through: a write fills both tiers; a hit in the lower tier is promoted and the upper tier evicts', () => {
    const i = instance(new TieredGroup(group({})))
    write(i, [1, 2, 3], 1n)
    // hbm holds 3 > 2: its LRU tail is block 1 (pushed first); ssd keeps all three
    expect(sizes(i)).toEqual([2, 3])
    // block 1 is served by ssd and promoted; 2 and 3 by hbm; hbm then evicts its tail, block 1 again
    expect(read(i, [1, 2, 3], 2n)).toEqual([2, 1])
    expect(sizes(i)).toEqual([2, 3])
  })

  it('promotion off: the lower tier keeps serving', () => {
    const i = instance(new TieredGroup(group({edges: [{...WT, promote: false}]})))
    write(i, [1, 2, 3], 1n)
    expect(read(i, [1, 2, 3], 2n)).toEqual([2, 1])
    expect(read(i, [1, 2, 3], 3n)).toEqual([2, 1])
    expect(sizes(i)).toEqual([2, 3])
  })

  it('cascading: a write enters the upper tier only, and its evictions are demoted', () => {
    const i = instance(new TieredGroup(group({edges: [{...WT, writeMode: 'cascading'}]})))
    write(i, [1, 2, 3], 1n)
    expect(sizes(i)).toEqual([2, 1])
    expect(read(i, [1, 2, 3], 2n)).toEqual([2, 1])
  })

  it('write_through_selective: the threshold-th hit served by a tier copies the block down', () => {
    const i = instance(
      new TieredGroup(group({quotas: [10, 10], edges: [{...WT, writeMode: 'write_through_selective'}]})),
    )
    write(i, [1, 2], 1n)
    expect(sizes(i)).toEqual([2, 0])
    read(i, [1, 2], 2n)
    expect(sizes(i)).toEqual([2, 0])
    read(i, [1], 3n) // block 1's second hit in hbm
    expect(sizes(i)).toEqual([2, 1])
  })

  it('one shared tier when hierarchical eviction is off', () => {
    const i = instance(
      new TieredGroup(group({tierNames: ['shared'], hierarchical: false, quotas: [2], edges: []})),
    )
    write(i, [1, 2, 3], 1n)
    expect(sizes(i)).toEqual([2])
    // block 1 was evicted: the lookup stops at once
    expect(read(i, [1, 2, 3], 2n)).toEqual([0])
  })

  /** one instance of the ttl policy in one shared tier, a default TTL of 1 s */
  const sharedTtlInstance = () =>
    instance(
      new TieredGroup(
        group({
          tierNames: ['shared'],
          hierarchical: false,
          quotas: [null],
          edges: [],
          defaultTtlSeconds: 1n,
        }),
      ),
      {policy: 'ttl'},
    )

  it('ttl: a block expires once its anchor plus TTL is strictly before the read', () => {
    const a = sharedTtlInstance()
    write(a, [1], 10n)
    expect(read(a, [1], 10n + 1_000_000_000n)).toEqual([1]) // anchor + ttl = t: not expired
    const b = sharedTtlInstance()
    write(b, [1], 10n)
    expect(read(b, [1], 11n + 1_000_000_000n)).toEqual([0])
    // a row's ttl_us wins over the default; a negative one never expires
    const c = sharedTtlInstance()
    write(c, [1], 10n, 5n)
    write(c, [2], 10n, -1n)
    expect(read(c, [1], 5_011n)).toEqual([0])
    expect(read(c, [2], 10n ** 15n)).toEqual([1])
  })

  it('ttl: expiry stays exact to the nanosecond for any timestamps and TTLs (carries, past 2^53, past INT64_MAX)', () => {
    const INT64_MAX = 2n ** 63n - 1n
    const cases: Array<{ts: bigint; ttlUs?: bigint; due: bigint}> = [
      {ts: 2n ** 32n - 3n, ttlUs: 1n, due: 2n ** 32n + 997n}, // the low halves carry into the high ones
      {ts: 2n ** 62n + 12_345n, due: 2n ** 62n + 1_000_012_345n}, // far past the doubles' exact integers
      {ts: INT64_MAX - 2_000n, ttlUs: 1n, due: INT64_MAX - 1_000n},
    ]
    for (const {ts, ttlUs, due} of cases) {
      const a = sharedTtlInstance()
      write(a, [1], ts, ttlUs)
      expect(read(a, [1], due)).toEqual([1]) // anchor + ttl = t: not expired
      const b = sharedTtlInstance()
      write(b, [1], ts, ttlUs)
      expect(read(b, [1], due + 1n)).toEqual([0])
    }
    // a TTL past INT64_MAX (ttl_us × 1000 overflows 64 bits) never expires, even at INT64_MAX itself
    const c = sharedTtlInstance()
    write(c, [1], 10n, 2n ** 62n)
    expect(read(c, [1], INT64_MAX - 1n)).toEqual([1])
    expect(read(c, [1], INT64_MAX)).toEqual([1])
    // a block written at INT64_MAX: its anchor is that time
    const d = sharedTtlInstance()
    write(d, [1], INT64_MAX - 1n, 1n)
    write(d, [2], INT64_MAX, 1n)
    expect(read(d, [2, 1], INT64_MAX)).toEqual([1])
  })

  it('ttl: over thousands of events (in time order and not, many due at once) a read at t finds exactly the blocks whose anchor plus TTL is not before t', () => {
    // independent one-block keys, no quota: a block is present iff written and not expired since, its anchor its
    // write or its last hit (refresh on); the rows' TTLs vary (shorter ones push events out of time order), the
    // rows come faster and faster (the events waiting outgrow their rings after these have wrapped), and hot keys
    // are read over and over (stale events pile up until they are rebuilt)
    const rnd = lcg(36)
    const shapes = [
      {tiers: 1, keys: 2_000, hot: 0.3},
      {tiers: 2, keys: 2_000, hot: 0.3},
      {tiers: 2, keys: 300, hot: 0.5}, // fewer blocks held, more hits: the rebuilds
    ]
    for (const {tiers, keys, hot: hotShare} of shapes) {
      const g = new TieredGroup(
        group({
          tierNames: ['hbm', 'ssd'].slice(0, tiers),
          quotas: [null, null].slice(0, tiers),
          edges: tiers === 2 ? [WT] : [],
          defaultTtlSeconds: 1n,
        }),
      )
      const i = instance(g, {policy: 'ttl'})
      const due = new Map<number, bigint>() // a present key's anchor + TTL (-1: never)
      const ttls = new Map<number, bigint>()
      let ts = 2n ** 33n - 5_000_000_000n // the low halves carry during the play
      let checked = 0
      let expired = 0
      for (let op = 0; op < 20_000; op++) {
        ts += BigInt(Math.floor(rnd() * 2_000_000 * (1 - op / 20_000)))
        const sweep = () => {
          for (const [k, d] of due)
            if (d >= 0n && d < ts) {
              due.delete(k)
              expired++
            }
        }
        if (op % 500 === 0) {
          sweep()
          g.expire(ts)
          expect(i.policies.map((p) => p.size)).toEqual(i.policies.map(() => due.size))
        }
        const hot = rnd() < hotShare
        const k = hot ? 1 + Math.floor(rnd() * 5) : 10 + Math.floor(rnd() * keys)
        const d = due.get(k)
        if (d !== undefined && d >= 0n && d < ts) {
          due.delete(k)
          expired++
        }
        if (!due.has(k) && rnd() < 0.6) {
          const r = rnd()
          const ttlUs =
            r < 0.4 ? undefined : r < 0.5 ? 0n : r < 0.9 ? BigInt(1 + Math.floor(rnd() * 900_000)) : -1n
          const ttl = g.ttlOf(ttlUs)
          write(i, [k], ts, ttlUs)
          ttls.set(k, ttl)
          due.set(k, ttl > 0n ? ts + ttl : -1n)
        } else {
          const present = due.has(k)
          expect(read(i, [k], ts).reduce((a, b) => a + b, 0)).toBe(present ? 1 : 0)
          const ttl = ttls.get(k) as bigint
          if (present && ttl > 0n) due.set(k, ts + ttl)
          checked++
        }
      }
      expect(checked).toBeGreaterThan(5_000)
      expect(expired).toBeGreaterThan(500)
    }
  })

  it('ttl: with the default 0 the rows’ ttl_us are ignored', () => {
    const g = new TieredGroup(group({tierNames: ['shared'], hierarchical: false, quotas: [null], edges: []}))
    const i = instance(g, {policy: 'ttl'})
    write(i, [1], 10n, 5n)
    expect(read(i, [1], 10n ** 12n)).toEqual([1])
  })

  it('sharded lru: candidates come from the shard with the oldest tail, so a newer block can go first', () => {
    // two shards (key mod 2): block 2 (t=1) and block 4 (t=3) in shard 0, block 1 (t=2) and block 3 (t=4) in shard 1
    const i = instance(
      new TieredGroup(
        group({tierNames: ['shared'], hierarchical: false, quotas: [3], edges: [], mode: 2, batch: 2}),
      ),
      {shardCount: 2, sampleTimes: 1},
    )
    write(i, [2], 1n)
    write(i, [1], 2n)
    write(i, [4], 3n)
    // 4 blocks > 3: a batch of 2 in one round, both from shard 0 (its tail, block 2, is the oldest): blocks 2 and
    // 4 go, where exact LRU would take 2 and 1
    write(i, [3], 4n)
    expect(read(i, [2], 5n)).toEqual([0])
    expect(read(i, [4], 5n)).toEqual([0])
    expect(read(i, [1], 5n)).toEqual([1])
    expect(read(i, [3], 5n)).toEqual([1])
  })

  it('sharded lru: among shards whose tails are equally old, the lowest shard goes first', () => {
    // four shards (key mod 4), one round of one block; three keys written at one timestamp (one tick) tie, a
    // fourth is written later: the tie goes to the lowest of the three shards, whatever the order they were filled
    // in and whichever shard's tail changed last (it climbs the tournament from the left, then from the right)
    const make = () =>
      instance(
        new TieredGroup(
          group({tierNames: ['shared'], hierarchical: false, quotas: [3], edges: [], mode: 2, batch: 1}),
        ),
        {shardCount: 4, sampleTimes: 1},
      )
    const cases: [tied: number[], later: number, goes: number][] = [
      [[3, 1, 2], 4, 1],
      [[6, 4, 5], 3, 4],
    ]
    for (const [tied, later, goes] of cases) {
      const i = make()
      for (const k of tied) write(i, [k], 1n)
      write(i, [later], 2n) // 4 blocks > 3
      for (const k of [...tied, later]) expect(read(i, [k], 3n)).toEqual([k === goes ? 0 : 1])
    }
  })

  it('eviction mode 1 takes a batch from every instance of the group', () => {
    const g = new TieredGroup(
      group({tierNames: ['shared'], hierarchical: false, quotas: [3], edges: [], mode: 1, batch: 1}),
    )
    const a = instance(g, {id: 'a'})
    const b = instance(g, {id: 'b'})
    write(a, [1, 2], 1n)
    write(b, [3, 4], 2n) // 4 > 3: one round, one block from each
    expect([a.cachedBlocks, b.cachedBlocks]).toEqual([1, 1])
  })
})
