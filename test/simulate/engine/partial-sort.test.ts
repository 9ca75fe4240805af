import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {partialSortBy} from '../../../src/util/libstdcxx-sort.js'
import {XorShift64Halves} from '../../../src/simulate/engine/xorshift64.js'
import {FIXTURES} from '../../helpers/cli.js'

/** random_lru's order of draws: by key (the stamps as doubles), equal keys by `tie` (the exact stamps) when given */
const byKey =
  (key: ArrayLike<number>, tie?: bigint[]) =>
  (x: number, y: number): boolean =>
    key[x] < key[y] || (key[x] === key[y] && tie !== undefined && tie[x] < tie[y])

/** partial_sort over the indices `a` in random_lru's order, as an array */
function sorted(key: number[], a: number[], middle: number, tie?: bigint[]): number[] {
  const arr = [...a]
  partialSortBy(arr, middle, byKey(key, tie))
  return arr
}

// Every expected array below was worked out by hand, move by move, from libstdc++'s stl_heap.h/stl_algo.h; the
// comments give the steps that decide where tied entries go.
describe("partialSortBy in random_lru's order: libstdc++ std::partial_sort, ties included", () => {
  it('two tied minima come out in heap order, not index order', () => {
    // make_heap([0, 1]) keeps 0 (key 1) on top; index 3 (key 0) is less than the top: pop puts 0 at a[3], the
    // heap becomes [1, 3]; sort_heap pops 1 to the back: [3, 1]
    expect(sorted([1, 0, 1, 0, 1], [0, 1, 2, 3, 4], 2)).toEqual([3, 1, 2, 0, 4])
  })

  it('all keys equal: the heap moves alone decide the order', () => {
    // make_heap over 4: adjust(1) moves 3 up ([0,3,2,1]), adjust(0) moves 2 up ([2,3,0,1]); nothing later is
    // less; sort_heap: [0,3,1,2] → [3,1,0,2] → [1,3,0,2]
    expect(sorted([5, 5, 5, 5, 5, 5], [0, 1, 2, 3, 4, 5], 4)).toEqual([1, 3, 0, 2, 4, 5])
  })

  it('among tied candidates the heap select keeps a later one (4), where draw order would keep 2', () => {
    // heap [0,1,2] (top 0, key 7); 4 (key 3) replaces 0: [2,1,4]; 5 (key 1) replaces 2: [4,1,5]; 6 (key 3) is
    // not less than the top 4 (key 3); sort_heap: [1,5,4] → [5,1,4]
    expect(sorted([7, 3, 3, 9, 3, 1, 3], [0, 1, 2, 3, 4, 5, 6], 3)).toEqual([5, 1, 4, 3, 0, 2, 6])
  })

  it('an index drawn twice is one more tie', () => {
    // make_heap([4,2,4]): adjust(0) moves a[2] up and the held 4 down into a[2]: [4,2,4]; nothing later is
    // less; sort_heap: pop → [2,4,4], pop → [4,2,4]
    expect(sorted([0, 0, 0, 0, 0], [4, 2, 4, 1, 3], 3)).toEqual([4, 2, 4, 1, 3])
  })

  it('middle 0 swaps every later element that is less than a[0] into front (libstdc++ does the same)', () => {
    // pop_heap over an empty heap: value := a[i]; a[i] := a[0]; push_heap writes a[0] := value
    expect(sorted([2, 1, 0], [0, 1, 2], 0)).toEqual([2, 0, 1])
  })

  it('middle = last sorts everything (heap sort); distinct keys give the plain ascending order', () => {
    expect(sorted([30, 10, 50, 20, 40], [0, 1, 2, 3, 4], 5)).toEqual([1, 3, 0, 4, 2])
  })

  it('tie breaks equal keys (the exact stamps behind equal doubles)', () => {
    const big = 2 ** 60 // 2⁶⁰ and 2⁶⁰ + 1 are the same double
    expect(sorted([big, big, big], [0, 1, 2], 3, [2n ** 60n + 2n, 2n ** 60n + 1n, 2n ** 60n])).toEqual([
      2, 1, 0,
    ])
    // without the tie the three are equal: make_heap gives [2,1,0], sort_heap [1,0,2] then [0,1,2]
    expect(sorted([big, big, big], [0, 1, 2], 3)).toEqual([0, 1, 2])
  })
})

describe("random_lru's draws and partial sort against g++'s std::partial_sort over the same draws", () => {
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

  /** s draws stored, then std::partial_sort over them: the first k and the generator's state */
  function victims(seed: bigint, n: number, s: number, k: number, key: Float64Array): [number[], bigint] {
    const rng = new XorShift64Halves(seed)
    const draws = new Int32Array(s)
    rng.fillMod(draws, s, n)
    partialSortBy(draws, k, byKey(key))
    return [Array.from(draws.subarray(0, k)), rng.state]
  }

  it('has the 150 cases, most with ties', () => {
    expect(cases).toHaveLength(150)
    expect(cases.filter(({key}) => new Set(key).size < key.length).length).toBeGreaterThan(100)
  })

  it("gives g++'s victims in g++'s order", () => {
    for (const [c, {n, s, k, seed, key, want}] of cases.entries())
      expect(victims(seed, n, s, k, key), `case ${c}`).toEqual(want)
  })
})
