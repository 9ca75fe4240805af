// libstdc++'s std::partial_sort and std::sort (GCC 12), step for step, over an array of any elements with a
// strict "less" order (docs/simulate.md §10). Neither is stable: which of two equal elements comes first
// depends on the exact moves, and the Optimizer's results depend on it (lru candidates, equal timestamps of rows).

export type Less<T> = (a: T, b: T) => boolean

/** An array or a typed array (random_lru sorts its draws in an Int32Array). */
type Indexed<T> = {[i: number]: T; length: number}

/** std::__adjust_heap over a[first, first + len): a hole sift-down to a leaf, then a push back up. */
function adjustHeap<T>(
  a: Indexed<T>,
  first: number,
  hole: number,
  len: number,
  value: T,
  less: Less<T>,
): void {
  const top = hole
  let child = hole
  while (child < Math.trunc((len - 1) / 2)) {
    child = 2 * (child + 1)
    if (less(a[first + child], a[first + child - 1])) child--
    a[first + hole] = a[first + child]
    hole = child
  }
  if ((len & 1) === 0 && child === Math.trunc((len - 2) / 2)) {
    child = 2 * (child + 1)
    a[first + hole] = a[first + child - 1]
    hole = child - 1
  }
  let parent = Math.trunc((hole - 1) / 2)
  while (hole > top && less(a[first + parent], value)) {
    a[first + hole] = a[first + parent]
    hole = parent
    parent = Math.trunc((hole - 1) / 2)
  }
  a[first + hole] = value
}

function makeHeap<T>(a: Indexed<T>, first: number, len: number, less: Less<T>): void {
  if (len < 2) return
  for (let parent = Math.trunc((len - 2) / 2); ; parent--) {
    adjustHeap(a, first, parent, len, a[first + parent], less)
    if (parent === 0) return
  }
}

function sortHeap<T>(a: Indexed<T>, first: number, len: number, less: Less<T>): void {
  while (len > 1) {
    len--
    const value = a[first + len]
    a[first + len] = a[first]
    adjustHeap(a, first, 0, len, value, less)
  }
}

/** std::partial_sort(a + first, a + middle, a + last, less). */
export function partialSortBy<T>(
  a: Indexed<T>,
  middle: number,
  less: Less<T>,
  first = 0,
  last = a.length,
): void {
  const len = middle - first
  makeHeap(a, first, len, less)
  for (let i = middle; i < last; i++) {
    if (less(a[i], a[first])) {
      const value = a[i]
      a[i] = a[first]
      adjustHeap(a, first, 0, len, value, less)
    }
  }
  sortHeap(a, first, len, less)
}

const THRESHOLD = 16

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]
  a[i] = a[j]
  a[j] = t
}

/** std::__move_median_to_first: the median of a[x], a[y], a[z] swapped into a[result]. */
function medianToFirst<T>(a: T[], result: number, x: number, y: number, z: number, less: Less<T>): void {
  if (less(a[x], a[y])) {
    if (less(a[y], a[z])) swap(a, result, y)
    else if (less(a[x], a[z])) swap(a, result, z)
    else swap(a, result, x)
  } else if (less(a[x], a[z])) swap(a, result, x)
  else if (less(a[y], a[z])) swap(a, result, z)
  else swap(a, result, y)
}

/** std::__unguarded_partition around the pivot at a[pivot]. */
function partition<T>(a: T[], first: number, last: number, pivot: number, less: Less<T>): number {
  for (;;) {
    while (less(a[first], a[pivot])) first++
    last--
    while (less(a[pivot], a[last])) last--
    if (!(first < last)) return first
    swap(a, first, last)
    first++
  }
}

function introsortLoop<T>(a: T[], first: number, last: number, depth: number, less: Less<T>): void {
  while (last - first > THRESHOLD) {
    if (depth === 0) {
      partialSortBy(a, last, less, first, last)
      return
    }
    depth--
    const mid = first + Math.trunc((last - first) / 2)
    medianToFirst(a, first, first + 1, mid, last - 1, less)
    const cut = partition(a, first + 1, last, first, less)
    introsortLoop(a, cut, last, depth, less)
    last = cut
  }
}

function unguardedLinearInsert<T>(a: T[], i: number, less: Less<T>): void {
  const value = a[i]
  let next = i - 1
  while (less(value, a[next])) {
    a[i] = a[next]
    i = next
    next--
  }
  a[i] = value
}

function insertionSort<T>(a: T[], first: number, last: number, less: Less<T>): void {
  if (first === last) return
  for (let i = first + 1; i < last; i++) {
    if (less(a[i], a[first])) {
      const value = a[i]
      for (let j = i; j > first; j--) a[j] = a[j - 1]
      a[first] = value
    } else unguardedLinearInsert(a, i, less)
  }
}

/** std::sort(a.begin(), a.end(), less): introsort, then the final insertion sort. */
export function introsortBy<T>(a: T[], less: Less<T>): void {
  const n = a.length
  if (n <= 1) return
  introsortLoop(a, 0, n, 2 * (31 - Math.clz32(n)), less)
  if (n > THRESHOLD) {
    insertionSort(a, 0, THRESHOLD, less)
    for (let i = THRESHOLD; i < n; i++) unguardedLinearInsert(a, i, less)
  } else insertionSort(a, 0, n, less)
}
