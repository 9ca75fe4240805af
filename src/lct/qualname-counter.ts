import {RecentNames} from './recent-names.js'

/** Records per qualname, counted from the name's bytes in the frame (no string decoded per record). */
export class QualnameCounter {
  private readonly names = new RecentNames()
  private readonly counts = new Map<string, number>()

  /** Counts one record whose qualname is `buf[start, start+length)`; false when those bytes are not valid UTF-8. */
  count(buf: Uint8Array, start: number, length: number): boolean {
    const text = this.names.lookup(buf, start, length)
    if (text === undefined) return false
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1)
    return true
  }

  /** Counts one record by its decoded name (the exact path). */
  add(text: string): void {
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1)
  }

  /** Records per qualname so far. */
  totals(): Map<string, number> {
    return new Map(this.counts)
  }
}
