// random_lru's sampling (docs/simulate.md §4.7.2) with the draws and the selection fused: the Optimizer draws s
// positions, then std::partial_sort keeps the k oldest. Its heap select reads the draws past the first k once each,
// in order, and only compares them with the heap's top, so those draws need not be stored: each is drawn, its stamp
// read and compared, and only a draw that goes before the top enters the heap. The result is the plain path's
// (fillMod, then partialSort) exactly; test/simulate/engine/sample-oldest.test.ts pins the two together.

import {makeHeap, replaceTopByKey, sortHeap, topKey} from './partial-sort.js'
import type {XorShift64Halves} from './xorshift64.js'

/** up to this n, (hi · (2³² mod n) + lo) stays below 2⁵³: one exact reduction gives NEXT() mod n */
export const FUSED_MOD_LIMIT = 2 ** 20

/**
 * Draws s positions NEXT() mod n and leaves in a[0, k) the k that std::partial_sort(first, first + k, first + s)
 * puts first, in its order, by key[position] (doubles, no tie array). Requires 1 ≤ k ≤ s, 1 ≤ n ≤ FUSED_MOD_LIMIT,
 * k ≤ a.length. The loop is random_lru's hot path (a thousand draws per eviction by default).
 */
export function sampleOldest(
  rng: XorShift64Halves,
  n: number,
  s: number,
  k: number,
  key: Float64Array,
  a: Int32Array,
): void {
  rng.fillMod(a, k, n)
  makeHeap(a, k, {key, tie: undefined})
  let top = topKey()
  let hi = rng.hi | 0
  let lo = rng.lo | 0
  const c = 4294967296 % n
  const inv = 1 / n
  for (let j = k; j < s; j++) {
    // x ^= x << 13; x ^= x >> 7 (logical); x ^= x << 17, on the halves
    hi ^= (hi << 13) | (lo >>> 19)
    lo ^= lo << 13
    lo ^= (lo >>> 7) | (hi << 25)
    hi ^= hi >>> 7
    hi ^= (hi << 17) | (lo >>> 15)
    lo ^= lo << 17
    // x mod n = (hi · (2³² mod n) + lo) mod n, below 2⁵³; floor(v · (1/n)) is off by at most one
    // (the difference is an exact integer in (−n, 2n): as an int32 it indexes without a conversion check)
    const v = (hi >>> 0) * c + (lo >>> 0)
    let r = (v - Math.floor(v * inv) * n) | 0
    if (r < 0) r += n
    else if (r >= n) r -= n
    const kr = key[r]
    if (kr < top) {
      replaceTopByKey(a, k, r, kr)
      top = topKey()
    }
  }
  rng.hi = hi
  rng.lo = lo
  sortHeap(a, k)
}
