// The lru's shard rings against a plain model of the Optimizer's lru (docs/simulate.md §10): shards as arrays in
// recency order, EvictBlocks taken round by round from the oldest tail, partially sorted, the rest pushed back onto
// their tails. Random operations over few entries and small rings, so that rings grow, compact and are laid out
// anew; ties in time; times past an Int32 (the rings widened part-way).
import {describe, expect, it} from 'vitest'
import {LruRings, SHARD} from '../../../src/simulate/engine/lru-rings.js'
import {partialSortBy} from '../../../src/util/libstdcxx-sort.js'
import {lcg} from '../../helpers/lcg.js'

interface Slot {
  e: number
  t: number
}

/** spec: S lists (here arrays, tail first), an entry's shard fixed */
/** the entries the rings evict (read after the call: it may replace its array) */
function evicted(rings: LruRings, n: number, wanted: number, rounds: number): number[] {
  const count = rings.evict(n, wanted, rounds)
  return Array.from(rings.taken.subarray(0, count))
}

class PlainLru {
  readonly shards: Slot[][]
  constructor(
    count: number,
    private readonly shardOf: (e: number) => number,
  ) {
    this.shards = Array.from({length: count}, () => [])
  }
  private find(e: number): [Slot[], number] {
    const list = this.shards[this.shardOf(e)]
    return [list, list.findIndex((x) => x.e === e)]
  }
  register(e: number, t: number): void {
    this.shards[this.shardOf(e)].push({e, t})
  }
  access(e: number, t: number): void {
    this.remove(e)
    this.register(e, t)
  }
  remove(e: number): void {
    const [list, i] = this.find(e)
    list.splice(i, 1)
  }
  evict(n: number, wanted: number, rounds: number): number[] {
    const per = Math.ceil(wanted / rounds)
    const candidates: Slot[] = []
    for (let r = 0; r < rounds && candidates.length < wanted; r++) {
      let best = -1
      for (let k = 0; k < this.shards.length; k++)
        if (this.shards[k].length > 0 && (best < 0 || this.shards[k][0].t < this.shards[best][0].t)) best = k
      if (best < 0) break
      for (let j = 0; j < per && this.shards[best].length > 0 && candidates.length < wanted; j++)
        candidates.push(this.shards[best].shift()!)
    }
    if (candidates.length <= n) return candidates.map((c) => c.e)
    partialSortBy(candidates, n, (a, b) => a.t < b.t)
    for (const c of candidates.slice(n)) this.shards[this.shardOf(c.e)].unshift(c)
    return candidates.slice(0, n).map((c) => c.e)
  }
  get size(): number {
    return this.shards.reduce((n, s) => n + s.length, 0)
  }
}

describe('the lru shard rings', () => {
  it('evict as the plain model of the Optimizer’s lru does, for any operations, shard counts and factors', () => {
    const rnd = lcg(36)
    let total = 0
    let pushedBack = 0
    for (let trial = 0; trial < 400; trial++) {
      const shards = [1, 1, 2, 3, 5, 16, 64][trial % 7]
      const entries = 8 + Math.floor(rnd() * 200)
      const host = {rec: new Int32Array(2 * entries)}
      const shardOf = (e: number) => (shards === 1 ? 0 : (e * 7 + (e >> 2)) % shards)
      for (let e = 0; e < entries; e++) host.rec[2 * e + SHARD] = shardOf(e)
      const rings = new LruRings(host, shards)
      const plain = new PlainLru(shards, shardOf)
      const held = new Set<number>()
      const factor = [1, 1, 1.5, 2, 3][Math.floor(rnd() * 5)]
      const rounds = Math.min([1, 2, 3, 32][Math.floor(rnd() * 4)], shards)
      // times rise by 0 (ties: a write's blocks share one) or more; past an Int32 part-way through some trials
      let t = 0
      const wideAt = rnd() < 0.3 ? Math.floor(rnd() * 150) : -1
      for (let op = 0; op < 600; op++) {
        if (op === wideAt) {
          rings.widen()
          t = 2 ** 31 + Math.floor(rnd() * 2 ** 40)
        }
        if (rnd() < 0.5) t += Math.floor(rnd() * 3)
        const e = Math.floor(rnd() * entries)
        const r = rnd()
        if (r < 0.35) {
          if (held.has(e)) continue
          held.add(e)
          rings.push(rings.shardOf(e), e, t)
          plain.register(e, t)
        } else if (r < 0.7) {
          if (!held.has(e)) continue
          rings.touch(e, t)
          plain.access(e, t)
        } else if (r < 0.8) {
          if (!held.has(e)) continue
          held.delete(e)
          rings.remove(e)
          plain.remove(e)
        } else if (held.size > 0) {
          const n = 1 + Math.floor(rnd() * 6)
          const wanted = Math.max(Math.trunc(factor * n), n)
          const got = evicted(rings, n, wanted, rounds)
          const want = plain.evict(n, wanted, rounds)
          expect(got, `trial ${trial}, operation ${op}`).toEqual(want)
          for (const x of got) held.delete(x)
          total += got.length
          if (wanted > n && plain.size > 0) pushedBack++
        }
      }
      // the whole order left: drained one at a time, the oldest tail first
      while (plain.size > 0) expect(evicted(rings, 1, 1, 1)).toEqual(plain.evict(1, 1, 1))
      expect(rings.evict(1, 1, 1)).toBe(0)
    }
    expect(total).toBeGreaterThan(10_000)
    expect(pushedBack).toBeGreaterThan(500)
  })
})
