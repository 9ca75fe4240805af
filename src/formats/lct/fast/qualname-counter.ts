import {type RecentName, RecentNames} from './recent-names.js'

/**
 * Records per qualname, counted from the name's bytes in the frame: the count lives on the cached name (no string
 * decoded and no map updated per record) and moves to the totals when the name leaves the cache.
 */
export class QualnameCounter {
  private readonly counts = new Map<string, number>()
  private readonly names = new RecentNames(32, (name) => this.retire(name))

  /** Counts one record whose qualname is `buf[start, start+length)`; false when those bytes are not valid UTF-8. */
  count(buf: Uint8Array, start: number, length: number): boolean {
    const name = this.names.entry(buf, start, length)
    if (name === undefined) return false
    name.count++
    return true
  }

  /** Counts one record by its decoded name (the exact path). */
  add(text: string): void {
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1)
  }

  /** Records per qualname so far. */
  totals(): Map<string, number> {
    const out = new Map(this.counts)
    for (const n of this.names.cached()) if (n.count > 0) out.set(n.text, (out.get(n.text) ?? 0) + n.count)
    return out
  }

  private retire(name: RecentName): void {
    if (name.count > 0) this.counts.set(name.text, (this.counts.get(name.text) ?? 0) + name.count)
  }
}
