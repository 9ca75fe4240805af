/** One qualname seen recently: its bytes (a copy), its text and the records counted under it since it was cached. */
interface Entry {
  bytes: Uint8Array
  text: string
  count: number
}

const MAX_CACHED = 32
const utf8 = new TextDecoder('utf-8', {fatal: true})

/**
 * Records per qualname, counted from the name's bytes in the frame: a trace uses a handful of names, so a short
 * most-recently-used list compared byte by byte (from the end: names share long prefixes) finds the name without
 * decoding a string per record. Counts move into the totals when an entry leaves the list.
 */
export class QualnameCounter {
  private readonly cache: Entry[] = []
  private readonly done = new Map<string, number>()

  /** Counts one record whose qualname is `buf[start, start+length)`; false when those bytes are not valid UTF-8. */
  count(buf: Uint8Array, start: number, length: number): boolean {
    const cache = this.cache
    outer: for (let c = 0; c < cache.length; c++) {
      const bytes = cache[c].bytes
      if (bytes.length !== length) continue
      for (let i = length - 1; i >= 0; i--) if (buf[start + i] !== bytes[i]) continue outer
      const hit = cache[c]
      hit.count++
      if (c > 0) {
        cache[c] = cache[c - 1]
        cache[c - 1] = hit
      }
      return true
    }
    const bytes = Uint8Array.prototype.slice.call(buf, start, start + length) as Uint8Array // not a view of the window
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return false
    }
    if (cache.length >= MAX_CACHED) this.retire(cache.pop() as Entry)
    cache.push({bytes, text, count: 1})
    return true
  }

  /** Counts one record by its decoded name (the exact path). */
  add(text: string): void {
    this.done.set(text, (this.done.get(text) ?? 0) + 1)
  }

  /** Records per qualname so far. */
  totals(): Map<string, number> {
    const out = new Map(this.done)
    for (const e of this.cache) out.set(e.text, (out.get(e.text) ?? 0) + e.count)
    return out
  }

  private retire(e: Entry): void {
    this.done.set(e.text, (this.done.get(e.text) ?? 0) + e.count)
  }
}
