// libstdc++'s std::partial_sort (GCC's bits/stl_algo.h and bits/stl_heap.h), step for step. The Optimizer's
// random_lru takes its victims in the order partial_sort leaves tied entries, so the exact heap moves matter: this is
// __heap_select (make_heap over [0, middle), then __pop_heap for every later element less than the top) followed by
// __sort_heap, with libstdc++'s __adjust_heap (hole sift-down to a leaf, then __push_heap back up).
//
// The array holds indices; the order compares key[x] and, where the keys are equal and `tie` is given, tie[x] (the
// Optimizer's `timestamps_[a] < timestamps_[b]` with the timestamps as doubles, exact 64-bit values breaking ties
// the doubles cannot tell apart). This runs for every random_lru eviction over a thousand draws, so there is no
// comparator function, and the heap keeps its elements' keys beside them (hk, moved with a): its comparisons read
// a small array instead of the whole key array at random.

/** the sort order: by key, then by tie where keys are equal (tie must agree with key where keys differ) */
export interface SortKeys {
  key: Float64Array
  tie: BigInt64Array | undefined
}

/** the keys of the heap's elements, hk[i] = key[a[i]] for i < middle (reused, grown as needed) */
let hk = new Float64Array(64)

/** element x (key kx) goes before element y (key ky) */
function before(tie: BigInt64Array | undefined, kx: number, x: number, ky: number, y: number): boolean {
  return kx < ky || (kx === ky && tie !== undefined && tie[x] < tie[y])
}

/** std::__push_heap: moves `value` (key kv) up from `hole` while its parent goes before it */
function pushHeap(
  a: Int32Array,
  hole: number,
  top: number,
  value: number,
  kv: number,
  tie?: BigInt64Array,
): void {
  let parent = ((hole - 1) / 2) | 0
  while (hole > top && before(tie, hk[parent], a[parent], kv, value)) {
    a[hole] = a[parent]
    hk[hole] = hk[parent]
    hole = parent
    parent = ((hole - 1) / 2) | 0
  }
  a[hole] = value
  hk[hole] = kv
}

/** std::__adjust_heap over a[0, len) */
function adjustHeap(
  a: Int32Array,
  hole: number,
  len: number,
  value: number,
  kv: number,
  tie?: BigInt64Array,
): void {
  const top = hole
  let second = hole
  // C++ integer division truncates toward zero: (len - 1) / 2 is 0 for len 0
  const inner = ((len - 1) / 2) | 0
  while (second < inner) {
    second = 2 * (second + 1)
    if (before(tie, hk[second], a[second], hk[second - 1], a[second - 1])) second--
    a[hole] = a[second]
    hk[hole] = hk[second]
    hole = second
  }
  if ((len & 1) === 0 && second === (((len - 2) / 2) | 0)) {
    second = 2 * (second + 1)
    a[hole] = a[second - 1]
    hk[hole] = hk[second - 1]
    hole = second - 1
  }
  pushHeap(a, hole, top, value, kv, tie)
}

/**
 * std::__pop_heap(first, first + len, result): the top goes to `result`, the value from `result` (key kv) sifts
 * into the heap. A `result` at or past len is outside the heap, so no key is kept for it.
 */
function popHeap(a: Int32Array, len: number, result: number, kv: number, tie?: BigInt64Array): void {
  const value = a[result]
  a[result] = a[0]
  adjustHeap(a, 0, len, value, kv, tie)
}

/** std::__make_heap over a[0, middle), keeping the heap's keys (hk) beside it */
function makeHeap(a: Int32Array, middle: number, order: SortKeys): void {
  const {key, tie} = order
  if (hk.length < middle + 1) hk = new Float64Array(Math.max(middle + 1, 2 * hk.length))
  for (let i = 0; i < middle; i++) hk[i] = key[a[i]]
  if (middle < 2) return
  for (let parent = ((middle - 2) / 2) | 0; ; parent--) {
    adjustHeap(a, parent, middle, a[parent], hk[parent], tie)
    if (parent === 0) break
  }
}

/** std::__sort_heap over the heap a[0, middle) */
function sortHeap(a: Int32Array, middle: number, tie?: BigInt64Array): void {
  for (let end = middle; end > 1;) {
    end--
    popHeap(a, end, end, hk[end], tie)
  }
}

/**
 * std::partial_sort(a, a + middle, a + last, less): afterwards a[0, middle) holds the `middle` least indices of
 * a[0, last) in order, ties placed exactly as libstdc++ places them. Requires 0 ≤ middle ≤ last ≤ a.length.
 */
export function partialSort(a: Int32Array, middle: number, last: number, order: SortKeys): void {
  const {key, tie} = order
  makeHeap(a, middle, order)
  // the rest of std::__heap_select; with middle 0 each pop_heap just swaps a[i] into a[0], as in libstdc++
  if (middle === 0 && last > 0) hk[0] = key[a[0]]
  let top = hk[0]
  for (let i = middle; i < last; i++) {
    const v = a[i]
    const kv = key[v]
    if (before(tie, kv, v, top, a[0])) {
      popHeap(a, middle, i, kv, tie)
      top = hk[0]
    }
  }
  sortHeap(a, middle, tie)
}
