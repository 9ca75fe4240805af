/**
 * A binary heap ordered by `before(a, b)` (true when a must come out first): a min-heap for `<`, a max-heap for
 * `>`. Ties come out in no particular order, so callers that need FIFO put a sequence number in the key.
 */
export class BinaryHeap<T> {
  readonly items: T[] = []

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length
  }

  peek(): T | undefined {
    return this.items[0]
  }

  push(item: T): void {
    const h = this.items
    h.push(item)
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.before(h[i], h[p])) break
      const t = h[i]
      h[i] = h[p]
      h[p] = t
      i = p
    }
  }

  /** Removes and returns the first item (undefined when empty). */
  pop(): T | undefined {
    const h = this.items
    if (h.length === 0) return undefined
    const top = h[0]
    const last = h.pop() as T
    if (h.length > 0) {
      h[0] = last
      this.siftDown()
    }
    return top
  }

  /** Replaces the first item with `item` (cheaper than pop + push); the heap must not be empty. */
  replaceTop(item: T): void {
    this.items[0] = item
    this.siftDown()
  }

  clear(): void {
    this.items.length = 0
  }

  private siftDown(): void {
    const h = this.items
    const n = h.length
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < n && this.before(h[l], h[m])) m = l
      if (r < n && this.before(h[r], h[m])) m = r
      if (m === i) break
      const t = h[i]
      h[i] = h[m]
      h[m] = t
      i = m
    }
  }
}
