/** A name seen lately: its bytes, its text and the records counted under it since it entered the cache. */
interface RecentName {
  bytes: Uint8Array
  text: string
  count: number
}

const utf8 = new TextDecoder('utf-8', {fatal: true})
/** names kept: traces use a handful of qualnames millions of times */
const CAPACITY = 32

/**
 * Records per qualname, counted from the name's bytes in the frame: the name is found by its bytes among the few
 * most recently seen (compared from the end: names share long prefixes), the count lives on the cached name (no
 * string decoded and no map updated per record) and moves to the totals when the name leaves the cache.
 */
export class QualnameCounter {
  private readonly counts = new Map<string, number>()
  private readonly names: RecentName[] = []

  /** Counts one record whose qualname is `buf[start, start+length)`; false when those bytes are not valid UTF-8. */
  count(buf: Uint8Array, start: number, length: number): boolean {
    const names = this.names
    outer: for (let c = 0; c < names.length; c++) {
      const bytes = names[c].bytes
      if (bytes.length !== length) continue
      for (let i = length - 1; i >= 0; i--) if (buf[start + i] !== bytes[i]) continue outer
      const hit = names[c]
      if (c > 0) {
        names[c] = names[c - 1] // one step towards the front: the hot names stay first
        names[c - 1] = hit
      }
      hit.count++
      return true
    }
    const bytes = Uint8Array.prototype.slice.call(buf, start, start + length) as Uint8Array // a copy, not a view
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return false
    }
    if (names.length >= CAPACITY) this.retire(names.pop() as RecentName)
    names.push({bytes, text, count: 1})
    return true
  }

  /** Counts one record by its decoded name (the exact path). */
  add(text: string): void {
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1)
  }

  /** Records per qualname so far. */
  totals(): Map<string, number> {
    const out = new Map(this.counts)
    for (const n of this.names) if (n.count > 0) out.set(n.text, (out.get(n.text) ?? 0) + n.count)
    return out
  }

  private retire(name: RecentName): void {
    if (name.count > 0) this.counts.set(name.text, (this.counts.get(name.text) ?? 0) + name.count)
  }
}
