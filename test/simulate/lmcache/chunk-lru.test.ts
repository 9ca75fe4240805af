// LMCache's simulator cache: a flat chunk LRU whose ranks (0 = most recent) must equal a plain list's, and the
// replay rule (hit prefix looked up without touching, then every chunk touched or inserted in order) on small
// hand-computed cases.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ChunkLru} from '../../../src/simulate/lmcache/chunk-lru.js'
import {simulateLookupLog} from '../../../src/simulate/lmcache/lookup-sim.js'
import {tempDir} from '../../helpers/cli.js'

const tmp = tempDir('lmt-chunk-lru-')
afterAll(() => tmp.cleanup())

/** xorshift32: the same pseudo-random operations every run */
function rng(seed: number): () => number {
  let x = seed
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

describe('ChunkLru', () => {
  it('matches a plain recency list: membership, ranks, evictions (random operations, tree rebuilds included)', () => {
    const rand = rng(12345)
    for (const capacity of [1, 3, 17, 200]) {
      const lru = new ChunkLru(capacity, true)
      const list: number[] = [] // most recent first
      let evictions = 0
      for (let step = 0; step < 20000; step++) {
        const key = Math.floor(rand() * capacity * 2)
        const at = list.indexOf(key)
        expect(lru.has(key)).toBe(at >= 0)
        if (at >= 0) expect(lru.rank(key)).toBe(at)
        if (at >= 0 && rand() < 0.5) {
          lru.touch(key)
          list.splice(at, 1)
          list.unshift(key)
          continue
        }
        lru.insert(key)
        if (at >= 0) list.splice(at, 1)
        else if (list.length >= capacity) {
          list.pop()
          evictions++
        }
        list.unshift(key)
      }
      expect(lru.evictions).toBe(evictions)
      expect(lru.size).toBe(list.length)
      expect([...lru.keysFromLeastRecent()].reverse()).toEqual(list)
    }
  })
})

/** A log of lookups of 1-token chunks, each a list of hash names. */
function log(name: string, lookups: string[][]): string {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  const lines = lookups.map((hashes, i) =>
    JSON.stringify({
      timestamp: 100 + i,
      model_name: i % 2 ? 'a' : 'b',
      chunk_size: 1,
      seq_len: hashes.length,
      dtypes: ['int8'],
      shapes: [[1 << 20]],
      chunk_hashes: hashes,
    }),
  )
  writeFileSync(join(dir, 'lookup_hashes_20251009_000000_000000.jsonl'), lines.join('\n') + '\n')
  return dir
}

const GIB_CHUNKS = (chunks: number) => (chunks * (1 << 20)) / 2 ** 30

describe('the replay rule', () => {
  it('refreshes cached chunks after the first miss and evicts while it inserts (hand-computed)', async () => {
    // capacity 3. L1 [A B C] → cache A B C (C most recent). L2 [D] → evicts A: B C D. L3 [A B] → A misses, so the
    // prefix is 0; inserting A evicts B (the least recent), then B is inserted again evicting C: D A B.
    // L4 [D A B]: a hit of 3 chunks (3 tokens of 3).
    const dir = log('rule', [['A', 'B', 'C'], ['D'], ['A', 'B'], ['D', 'A', 'B']])
    const r = await simulateLookupLog({inputs: [dir], capacitiesGib: [GIB_CHUNKS(3)], stats: true})
    const p = r.points[0]
    expect(p.capacity_chunks).toBe(3)
    expect([p.total_tokens, p.total_hit_tokens, p.evictions, p.cache_size_at_end_chunks]).toEqual([
      9, 3, 3, 3,
    ])
    // the rank of each hit chunk of L4 before its update: D A B → D is the least recent (2), A 1, B 0
    expect(p.stats?.positions.percentiles([25, 50, 99])).toEqual({p25: 0, p50: 1, p99: 2})
  })

  it('keeps one cache for every model: equal hashes of two models hit each other', async () => {
    const dir = log('models', [
      ['A', 'B'],
      ['A', 'B'],
    ])
    const r = await simulateLookupLog({inputs: [dir], capacitiesGib: [GIB_CHUNKS(4)], stats: false})
    expect(r.points[0].total_hit_tokens).toBe(2)
    const only = await simulateLookupLog({
      inputs: [dir],
      model: 'a',
      capacitiesGib: [GIB_CHUNKS(4)],
      stats: false,
    })
    expect([only.events, only.points[0].total_hit_tokens]).toEqual([1, 0])
  })

  it('sorts lookups that are out of time order stably, as LMCache does, and says so', async () => {
    const dir = join(tmp.dir, 'unordered')
    mkdirSync(dir)
    const ev = (t: number, h: string[]) =>
      JSON.stringify({
        timestamp: t,
        chunk_size: 1,
        seq_len: h.length,
        dtypes: ['int8'],
        shapes: [[1 << 20]],
        chunk_hashes: h,
      })
    writeFileSync(join(dir, 'lookup_hashes_1.jsonl'), [ev(5, ['X']), ev(1, ['A'])].join('\n'))
    writeFileSync(join(dir, 'lookup_hashes_2.jsonl'), [ev(1, ['A']), ev(5, ['X'])].join('\n'))
    const warnings: string[] = []
    const r = await simulateLookupLog({
      inputs: [dir],
      capacitiesGib: [GIB_CHUNKS(1)],
      stats: false,
      onWarning: (m) => warnings.push(m),
    })
    // sorted: A A X X → capacity 1: A miss, A hit, X miss (evicts A), X hit
    expect([r.in_order, r.points[0].total_hit_tokens, r.points[0].evictions]).toEqual([false, 2, 1])
    expect(warnings.join()).toMatch(/not in time order/)
  })
})
