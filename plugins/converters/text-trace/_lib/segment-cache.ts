// The ids of long pieces of text (between a tokenizer's added tokens) seen lately, bounded by an estimate of their
// memory: least recently used first out. Short pieces are not kept: encoding them costs less than the keeping.
export interface SegmentCacheLimits {
  /** estimated bytes held at most (keys, ids, entry overhead) */
  maxBytes: number
  /** pieces shorter than this (UTF-16 code units) are not kept */
  minChars: number
}

/** 64 MiB; pieces of 256 characters and more */
export const DEFAULT_SEGMENT_CACHE: SegmentCacheLimits = {maxBytes: 64 << 20, minChars: 256}

// a Map entry and the Uint32Array's header, roughly
const ENTRY_OVERHEAD = 160

export class SegmentCache {
  private readonly entries = new Map<string, Uint32Array>()
  private bytes = 0

  constructor(readonly limits: SegmentCacheLimits = DEFAULT_SEGMENT_CACHE) {}

  /** whether `piece` is long enough to be kept */
  keeps(piece: string): boolean {
    return piece.length >= this.limits.minChars
  }

  /** estimated bytes held now */
  get size(): number {
    return this.bytes
  }

  get count(): number {
    return this.entries.size
  }

  get(piece: string): Uint32Array | undefined {
    const ids = this.entries.get(piece)
    if (ids) {
      // most recently used goes last: a Map iterates in insertion order
      this.entries.delete(piece)
      this.entries.set(piece, ids)
    }
    return ids
  }

  set(piece: string, ids: Uint32Array): void {
    const cost = SegmentCache.cost(piece, ids)
    if (cost > this.limits.maxBytes / 8 || this.entries.has(piece)) return // one piece never takes the cache
    this.entries.set(piece, ids)
    this.bytes += cost
    for (const [old, oldIds] of this.entries) {
      if (this.bytes <= this.limits.maxBytes) break
      this.entries.delete(old)
      this.bytes -= SegmentCache.cost(old, oldIds)
    }
  }

  private static cost(piece: string, ids: Uint32Array): number {
    return piece.length * 2 + ids.byteLength + ENTRY_OVERHEAD
  }
}
