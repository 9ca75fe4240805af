// libstdc++'s std::partial_sort (GCC's bits/stl_algo.h and bits/stl_heap.h), step for step. The Optimizer's
// random_lru takes its victims in the order partial_sort leaves tied entries, so the exact heap moves matter: this is
// __heap_select (make_heap over [0, middle), then __pop_heap for every later element less than the top) followed by
// __sort_heap, with libstdc++'s __adjust_heap (hole sift-down to a leaf, then __push_heap back up).
//
// The array holds indices; the order compares key[x] and, where the keys are equal and `tie` is given, tie[x] (the
// Optimizer's `timestamps_[a] < timestamps_[b]` with the timestamps as doubles, exact 64-bit values breaking ties
// the doubles cannot tell apart). No comparator function: this runs a thousand times per random_lru eviction.

/** the sort order: by key, then by tie where keys are equal (tie must agree with key where keys differ) */
export interface SortKeys {
  key: Float64Array
  tie: BigInt64Array | undefined
}

function less(k: SortKeys, x: number, y: number): boolean {
  const kx = k.key[x]
  const ky = k.key[y]
  return kx < ky || (kx === ky && k.tie !== undefined && k.tie[x] < k.tie[y])
}

/** std::__push_heap: moves `value` up from `hole` while its parent is less than it */
function pushHeap(a: Int32Array, hole: number, top: number, value: number, k: SortKeys): void {
  let parent = ((hole - 1) / 2) | 0
  while (hole > top && less(k, a[parent], value)) {
    a[hole] = a[parent]
    hole = parent
    parent = ((hole - 1) / 2) | 0
  }
  a[hole] = value
}

/** std::__adjust_heap over a[0, len) */
function adjustHeap(a: Int32Array, hole: number, len: number, value: number, k: SortKeys): void {
  const top = hole
  let second = hole
  // C++ integer division truncates toward zero: (len - 1) / 2 is 0 for len 0
  const inner = ((len - 1) / 2) | 0
  while (second < inner) {
    second = 2 * (second + 1)
    if (less(k, a[second], a[second - 1])) second--
    a[hole] = a[second]
    hole = second
  }
  if ((len & 1) === 0 && second === (((len - 2) / 2) | 0)) {
    second = 2 * (second + 1)
    a[hole] = a[second - 1]
    hole = second - 1
  }
  pushHeap(a, hole, top, value, k)
}

/** std::__pop_heap(first, last, result): the top goes to `result`, the value from `result` sifts into the heap */
function popHeap(a: Int32Array, len: number, result: number, k: SortKeys): void {
  const value = a[result]
  a[result] = a[0]
  adjustHeap(a, 0, len, value, k)
}

/** std::__make_heap over a[0, len) */
function makeHeap(a: Int32Array, len: number, k: SortKeys): void {
  if (len < 2) return
  for (let parent = ((len - 2) / 2) | 0; ; parent--) {
    adjustHeap(a, parent, len, a[parent], k)
    if (parent === 0) return
  }
}

/**
 * std::partial_sort(a, a + middle, a + last, less): afterwards a[0, middle) holds the `middle` least indices of
 * a[0, last) in order, ties placed exactly as libstdc++ places them. Requires 0 ≤ middle ≤ last ≤ a.length.
 */
export function partialSort(a: Int32Array, middle: number, last: number, k: SortKeys): void {
  makeHeap(a, middle, k)
  for (let i = middle; i < last; i++) if (less(k, a[i], a[0])) popHeap(a, middle, i, k)
  for (let end = middle; end > 1;) {
    end--
    popHeap(a, end, end, k)
  }
}
