// The tiered model on random small groups and traces (write modes, TTL, shards, eviction modes 1–4, several
// instances, masks, equal timestamps): what must hold after every operation, and a one-tier group of exact LRU
// against the untiered engine, which plays the same rules with one capacity (docs/simulate.md §4, §10).
import {describe, expect, it} from 'vitest'
import {evictIfNeeded, SimInstance} from '../../../src/simulate/engine/engine.js'
import {LruPolicy, TtlPolicy} from '../../../src/simulate/engine/policies.js'
import {
  TieredGroup,
  type TieredGroupSetup,
  type TieredInstance,
  type TieredInstanceSetup,
} from '../../../src/simulate/engine/tiered.js'
import type {EdgeStrategy, WriteMode} from '../../../src/simulate/config/tiers.js'
import {lcg} from '../../helpers/lcg.js'

const MODES: WriteMode[] = ['write_through', 'cascading', 'write_through_selective']
const POLICIES = ['lru', 'lru', 'random_lru', 'leaf_aware_lru', 'ttl'] as const

interface Scenario {
  group: TieredGroupSetup
  instances: TieredInstanceSetup[]
}

function scenario(rnd: () => number): Scenario {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const hierarchical = rnd() < 0.8
  const tiers = hierarchical ? 1 + Math.floor(rnd() * 3) : 1
  const edges: EdgeStrategy[] = []
  for (let t = 0; t + 1 < (hierarchical ? tiers : 2); t++)
    edges.push({
      writeMode: pick(MODES),
      propagate: rnd() < 0.7,
      promote: rnd() < 0.7,
      threshold: 1 + Math.floor(rnd() * 3),
    })
  const mode = pick([1, 2, 3, 3, 4])
  const group: TieredGroupSetup = {
    tierNames: hierarchical ? ['a', 'b', 'c'].slice(0, tiers) : ['shared'],
    hierarchical,
    quotas: Array.from({length: tiers}, () => (rnd() < 0.1 ? null : 2 + Math.floor(rnd() * 14))),
    edges,
    defaultTtlSeconds: pick([0n, 0n, 1n, 2n, -1n]),
    refreshOnRead: rnd() < 0.6,
    mode,
    batch: mode === 3 && rnd() < 0.2 ? -1 : pick([1, 2, 3, 5, 100]),
    seed: BigInt(Math.floor(rnd() * 2 ** 40)) + 1n,
  }
  const policy = pick(POLICIES)
  const instances = Array.from({length: 1 + Math.floor(rnd() * 3)}, (_, k) => ({
    id: `i${k}`,
    policy: rnd() < 0.8 ? policy : pick(POLICIES),
    shardCount: pick([1, 1, 2, 3, 4, 1024, 0]),
    sampleTimes: pick([1, 2, 3, 32, 0]),
    amplification: pick([1, 1, 1.5, 2, 3]),
    sampleRate: pick([0, 0.1, 0.5, 1]),
    fallbackOnPressure: rnd() < 0.7,
    bytesPerBlock: pick([1, 1, 2, 3]),
  }))
  if (rnd() < 0.35) {
    // ttl-heavy: blocks held long and hit often (stale expiry events pile up and the heap is rebuilt), cascades
    group.defaultTtlSeconds = pick([1n, 2n, 3n])
    group.quotas = group.quotas.map(() => 20 + Math.floor(rnd() * 40))
    for (const e of group.edges)
      e.writeMode = pick(['cascading', 'cascading', 'write_through'] as WriteMode[])
    for (const i of instances) i.policy = 'ttl'
  }
  return {group, instances}
}

type Op =
  | {kind: 'write'; inst: number; keys: number[]; ts: bigint; ttlUs?: bigint}
  | {kind: 'read'; inst: number; keys: number[]; mask: number | boolean[]; ts: bigint}

/** rows over a few shared prefixes (so the trees branch and split), timestamps rising or repeated */
function ops(rnd: () => number, instances: number, count: number): Op[] {
  const space = rnd() < 0.5 ? 12 : 40
  const bases = Array.from({length: 6}, () => Array.from({length: 8}, () => Math.floor(rnd() * space)))
  const out: Op[] = []
  let ts = 1n
  for (let k = 0; k < count; k++) {
    if (rnd() < 0.7) ts += BigInt(Math.floor(rnd() * 300_000_000))
    const keys = bases[Math.floor(rnd() * bases.length)].slice(0, Math.floor(rnd() * 9))
    while (rnd() < 0.3) keys.push(Math.floor(rnd() * space))
    const inst = Math.floor(rnd() * instances)
    if (rnd() < 0.45) {
      const r = rnd()
      const ttlUs = r < 0.5 ? undefined : r < 0.6 ? 0n : r < 0.9 ? BigInt(Math.floor(rnd() * 2_000_000)) : -1n
      out.push({kind: 'write', inst, keys, ts, ttlUs})
    } else {
      const r = rnd()
      const mask =
        r < 0.6 ? 0 : r < 0.8 ? Math.floor(rnd() * 5) : Array.from({length: keys.length}, () => rnd() < 0.5)
      out.push({kind: 'read', inst, keys, mask, ts})
    }
  }
  return out
}

const keyMod = (key: number, m: number) => key % m

/** fails with where it happened (the case, built only then) */
function check(ok: boolean, what: string, where: () => object): void {
  if (!ok) expect.fail(`${what}: ${JSON.stringify(where(), (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`)
}
const sizes = (i: TieredInstance) => i.policies.map((p) => p.size)

/** the group's usage of a tier, in bytes */
const usage = (g: TieredGroup, tier: number) =>
  g.members.reduce((n, i) => n + i.policies[tier].size * i.bytesPerBlock, 0)

describe('the tiered model on random groups and traces', () => {
  it('counts every hit once, for one tier, keeps the tiers within their quotas when it can, and keeps its counts', () => {
    const rnd = lcg(1)
    let checkedQuota = 0
    for (let trial = 0; trial < 300; trial++) {
      const s = scenario(rnd)
      const g = new TieredGroup(s.group)
      const insts = s.instances.map((i) => g.add(i, keyMod))
      for (const op of ops(rnd, insts.length, 200)) {
        const i = insts[op.inst]
        const where = () => ({trial, op, s})
        g.expire(op.ts)
        if (op.kind === 'write') {
          i.insert(op.keys, op.ts, g.ttlOf(op.ttlUs))
          g.evictIfNeeded(i, op.ts)
        } else {
          const r = i.read(op.keys, op.mask, op.ts)
          const hits = r.localHit + r.remoteHit
          check(i.tierHits.reduce((a, b) => a + b, 0) === hits, 'tier hits add up to the hits', where)
          check(hits <= op.keys.length && r.localHit <= r.localRead, 'hits within the read', where)
          if (i.wrote) g.evictIfNeeded(i, op.ts)
        }
        for (const x of insts)
          check(
            x.cachedBlocks === sizes(x).reduce((a, b) => a + b, 0),
            'cached blocks are the tiers’ sum',
            where,
          )
        // modes 2 and 3 evict from the writer until the group is within quota or the writer's tier is empty
        // (exact and sharded lru, and ttl with fallback, can always evict what they hold)
        const evictsAll = (p: string) => p === 'lru' || (p === 'ttl' && i.setup.fallbackOnPressure)
        if ((s.group.mode === 2 || s.group.mode === 3) && s.group.batch > 0 && evictsAll(i.setup.policy))
          for (let t = 0; t < s.group.tierNames.length; t++) {
            const quota = s.group.quotas[t]
            if (quota === null || (op.kind === 'read' && !i.wrote)) continue
            checkedQuota++
            check(usage(g, t) <= quota || i.policies[t].size === 0, `tier ${t} within its quota`, where)
          }
      }
    }
    expect(checkedQuota).toBeGreaterThan(1000)
  })

  it('a block written with no quota and no TTL is read back, from the first tier that holds it', () => {
    const rnd = lcg(2)
    for (let trial = 0; trial < 100; trial++) {
      const s = scenario(rnd)
      s.group.quotas = s.group.quotas.map(() => null)
      s.group.defaultTtlSeconds = 0n
      const g = new TieredGroup(s.group)
      const i = g.add(s.instances[0], keyMod)
      for (const op of ops(rnd, 1, 60)) {
        if (op.kind !== 'write' || op.keys.length === 0) continue
        i.insert(op.keys, op.ts, 0n)
        const r = i.read(op.keys, 0, op.ts)
        expect(r.remoteHit).toBe(op.keys.length)
        // tier 0 holds every block a write made or revived, and promotion keeps it there
        if (s.group.hierarchical) expect(i.tierHits[0]).toBeGreaterThan(0)
      }
    }
  })

  it('one tier of exact lru (or ttl without expiry) plays as the untiered engine, modes 1–3, several instances', () => {
    const rnd = lcg(3)
    for (let trial = 0; trial < 300; trial++) {
      const s = scenario(rnd)
      const mode = ([1, 2, 3] as const)[trial % 3]
      const batch = 1 + Math.floor(rnd() * 6)
      const quota = 2 + Math.floor(rnd() * 20)
      const hierarchical = rnd() < 0.5
      const ttl = rnd() < 0.3
      const g = new TieredGroup({
        ...s.group,
        tierNames: [hierarchical ? 'hbm' : 'shared'],
        hierarchical,
        quotas: [quota],
        edges: [],
        defaultTtlSeconds: 0n,
        mode,
        batch,
      })
      const setups = s.instances.map((i) => ({
        ...i,
        policy: ttl ? 'ttl' : 'lru',
        shardCount: 1,
        amplification: 1,
      }))
      const tiered = setups.map((i) => g.add({...i, policy: i.policy as 'lru' | 'ttl'}, keyMod))
      const plain = setups.map(
        (i) =>
          new SimInstance(
            i.policy === 'ttl' ? new TtlPolicy(i.fallbackOnPressure) : new LruPolicy(),
            i.bytesPerBlock,
          ),
      )
      const settings = {quotaUnits: quota, mode, batch}
      for (const op of ops(rnd, setups.length, 200)) {
        const t = tiered[op.inst]
        const p = plain[op.inst]
        const where = () => ({trial, op, mode, batch, quota, setups})
        if (op.kind === 'write') {
          t.insert(op.keys, op.ts, 0n)
          g.evictIfNeeded(t, op.ts)
          p.insert(op.keys, op.ts)
          evictIfNeeded(plain, settings, p)
        } else {
          const a = t.read(op.keys, op.mask, op.ts)
          const [local, remote] = [a.localHit, a.remoteHit]
          const b = p.get(op.keys, op.mask, op.ts)
          check(local === b.localHit && remote === b.remoteHit, 'the same hits', where)
        }
        for (let k = 0; k < tiered.length; k++)
          check(
            tiered[k].cachedBlocks === plain[k].policy.size && tiered[k].evictions === plain[k].evictions,
            'the same blocks held and evicted',
            where,
          )
      }
    }
  })

  it('a timestamp of INT64_MAX (a tick beyond an entry record’s Int32 time) orders as the next timestamp would', () => {
    // the group's instances move their entries' times to doubles when a tick passes Int32; the lru and random_lru
    // order by ticks alone, so a trace whose last rows are at INT64_MAX plays as one whose last rows come just after
    const rnd = lcg(4)
    let evictedAfter = 0
    for (let trial = 0; trial < 200; trial++) {
      const s = scenario(rnd)
      s.group.defaultTtlSeconds = 0n
      const policy = trial % 4 === 3 ? 'random_lru' : 'lru'
      const setups = s.instances.map((i) => ({...i, policy: policy as 'lru' | 'random_lru'}))
      const played = ops(rnd, setups.length, 150)
      const tail = played.slice(100)
      const last = played[99].ts
      const play = (top: bigint) => {
        const g = new TieredGroup(s.group)
        const insts = setups.map((i) => g.add(i, keyMod))
        const seen: number[][] = []
        let evicted = 0
        for (const op of [...played.slice(0, 100), ...tail.map((o) => ({...o, ts: top}))]) {
          const i = insts[op.inst]
          const before = i.evictions
          if (op.kind === 'write') {
            i.insert(op.keys, op.ts, 0n)
            g.evictIfNeeded(i, op.ts)
          } else {
            const r = i.read(op.keys, op.mask, op.ts)
            seen.push([r.localHit, r.remoteHit, ...i.tierHits])
            if (i.wrote) g.evictIfNeeded(i, op.ts)
          }
          if (op.ts === top) evicted += i.evictions - before
          seen.push(insts.flatMap(sizes))
        }
        return {seen, evicted}
      }
      const next = play(last + 1n)
      const top = play(2n ** 63n - 1n)
      expect(top.seen).toEqual(next.seen)
      evictedAfter += top.evicted
    }
    expect(evictedAfter).toBeGreaterThan(100)
  })
})
