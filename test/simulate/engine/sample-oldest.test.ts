import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {partialSort} from '../../../src/simulate/engine/partial-sort.js'
import {FUSED_MOD_LIMIT, sampleOldest} from '../../../src/simulate/engine/sample-oldest.js'
import {XorShift64Halves} from '../../../src/simulate/engine/xorshift64.js'
import {FIXTURES} from '../../helpers/cli.js'

/** a small deterministic generator for the cases (not the one under test) */
function lcg(seed: number): (m: number) => number {
  let x = seed >>> 0
  return (m) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x % m
  }
}

/** the plain path: s draws stored, then std::partial_sort over them; the first k and the generator's state */
function plain(seed: bigint, n: number, s: number, k: number, key: Float64Array): [number[], bigint] {
  const rng = new XorShift64Halves(seed)
  const draws = new Int32Array(s)
  rng.fillMod(draws, s, n)
  partialSort(draws, k, s, {key, tie: undefined})
  return [Array.from(draws.subarray(0, k)), rng.state]
}

function fused(seed: bigint, n: number, s: number, k: number, key: Float64Array): [number[], bigint] {
  const rng = new XorShift64Halves(seed)
  const a = new Int32Array(k)
  sampleOldest(rng, n, s, k, key, a)
  return [Array.from(a), rng.state]
}

describe('sampleOldest: the fused draw-and-select gives the plain path’s victims, in its order', () => {
  it('on random stamps with many ties and positions drawn twice', () => {
    const rand = lcg(20)
    for (let c = 0; c < 600; c++) {
      const n = 1 + rand(c % 3 === 0 ? 40 : 3000)
      // few distinct stamps (ties everywhere), or distinct-ish ones
      const spread = [1, 3, 10, 1000, 1e9][c % 5]
      const key = Float64Array.from({length: n}, () => rand(spread))
      const s = 1 + rand(c % 4 === 0 ? 2 * n : 1200) // s > n: every position drawn several times
      const k = 1 + rand(Math.min(s, c % 2 === 0 ? 8 : 200))
      const seed = (BigInt(rand(2 ** 30)) << 34n) | BigInt(1 + rand(2 ** 30))
      expect(fused(seed, n, s, k, key), `case ${c}: n ${n} s ${s} k ${k}`).toEqual(plain(seed, n, s, k, key))
    }
  })

  it('k = s sorts every draw; k = 1 keeps the first oldest', () => {
    const key = Float64Array.from([5, 5, 1, 5, 1, 0, 0])
    for (const [s, k] of [
      [40, 40],
      [40, 1],
      [1, 1],
    ])
      expect(fused(0x12345678abcdef01n, 7, s, k, key)).toEqual(plain(0x12345678abcdef01n, 7, s, k, key))
  })

  it('draws the exact remainders up to its modulus limit (distinct stamps: the positions themselves compare)', () => {
    // 1000003: 2³² mod n is 954414, so hi · (2³² mod n) + lo reaches 2⁵¹·⁹ (the widest case below the limit)
    const moduli = [2, 3, 17090, 65536, 65537, 786433, 999983, 1000003, FUSED_MOD_LIMIT - 1, FUSED_MOD_LIMIT]
    for (const n of moduli) {
      const key = Float64Array.from({length: n}, (_, i) => (i * 7919) % n) // a permutation of 0..n−1 (n ∤ 7919)
      // the first k draws come from fillMod; of the 3,000 drawn in the fused loop a quarter are kept
      expect(fused(0xffffffffffffffffn, n, 4000, 1000, key), `n ${n}`).toEqual(
        plain(0xffffffffffffffffn, n, 4000, 1000, key),
      )
    }
  })
})

describe('both random_lru paths against g++’s std::partial_sort over the same draws', () => {
  // test/fixtures/README.md (partial-sort/): per case `n s k seed`, the keys, then g++'s first k and final state
  const lines = readFileSync(join(FIXTURES, 'partial-sort', 'gxx-sampled.txt'), 'utf8')
    .trim()
    .split('\n')
  const cases = Array.from({length: lines.length / 3}, (_, c) => {
    const [n, s, k, seed] = lines[3 * c].split(' ')
    const expected = lines[3 * c + 2].trim().split(' ')
    return {
      n: Number(n),
      s: Number(s),
      k: Number(k),
      seed: BigInt(seed),
      key: Float64Array.from(lines[3 * c + 1].split(' ').map(Number)),
      want: [expected.slice(0, -1).map(Number), BigInt(expected[expected.length - 1])],
    }
  })

  it('has the 150 cases, most with ties', () => {
    expect(cases).toHaveLength(150)
    expect(cases.filter(({key}) => new Set(key).size < key.length).length).toBeGreaterThan(100)
  })

  it('the fused path and the plain path each give g++’s victims in g++’s order', () => {
    for (const [c, {n, s, k, seed, key, want}] of cases.entries()) {
      expect(fused(seed, n, s, k, key), `case ${c}`).toEqual(want)
      expect(plain(seed, n, s, k, key), `case ${c}`).toEqual(want)
    }
  })
})
