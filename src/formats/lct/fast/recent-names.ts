export interface RecentName {
  bytes: Uint8Array
  text: string
  /** free for the owner (the counting path counts records here) */
  count: number
}

const utf8 = new TextDecoder('utf-8', {fatal: true})

/**
 * The text of a short UTF-8 name (a qualname) found by its bytes among the few most recently seen: traces use a
 * handful of names millions of times, so comparing bytes (from the end: names share long prefixes) beats decoding
 * a string per record.
 */
export class RecentNames {
  private readonly names: RecentName[] = []

  constructor(
    private readonly capacity = 32,
    /** called with a name that leaves the cache */
    private readonly onEvict?: (name: RecentName) => void,
  ) {}

  /** The name at `buf[start, start + length)`, or undefined when those bytes are not valid UTF-8. */
  lookup(buf: Uint8Array, start: number, length: number): string | undefined {
    return this.entry(buf, start, length)?.text
  }

  /** The names still cached. */
  cached(): readonly RecentName[] {
    return this.names
  }

  /** The cache entry of the name at `buf[start, start + length)` (created on first sight), or undefined. */
  entry(buf: Uint8Array, start: number, length: number): RecentName | undefined {
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
      return hit
    }
    const bytes = Uint8Array.prototype.slice.call(buf, start, start + length) as Uint8Array // a copy, not a view
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return undefined
    }
    if (names.length >= this.capacity) this.onEvict?.(names.pop() as RecentName)
    const name = {bytes, text, count: 0}
    names.push(name)
    return name
  }
}
