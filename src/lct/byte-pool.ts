// Copies of short byte runs carved from shared chunks: one typed-array view per copy instead of a view and an
// ArrayBuffer of its own (each ArrayBuffer costs the collector extra work on every scavenge it survives), or no view
// at all for a copy kept as a place in a chunk.

const CHUNK_BYTES = 64 << 10
/** runs longer than this get a buffer of their own */
const MAX_POOLED = 256

export class BytePool {
  /** the chunk copies are placed in now (never written again below `used`) */
  chunk: Buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  private used = 0

  /**
   * A Buffer holding a copy of `src[start, end)`, as `Uint8Array.prototype.slice.call(src, start, end)` gives for a
   * Buffer `src`. A chunk lives while any copy in it does: the copies of one run of records share their chunks.
   */
  copy(src: Uint8Array, start: number, end: number): Uint8Array {
    const n = end - start
    if (n > MAX_POOLED) return Buffer.from(src.subarray(start, end)) // a copy
    const at = this.place(src, start, end)
    return Buffer.from(this.chunk.buffer, this.chunk.byteOffset + at, n)
  }

  /**
   * Copies `src[start, end)` into {@link chunk} (read it right after: a later call may start a new chunk) and
   * returns where it starts there; -1 (nothing copied) for a run longer than a pooled one may be.
   */
  place(src: Uint8Array, start: number, end: number): number {
    const n = end - start
    if (n > MAX_POOLED) return -1
    if (this.used + n > CHUNK_BYTES) {
      this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)
      this.used = 0
    }
    const out = this.chunk
    const at = this.used
    for (let i = 0; i < n; i++) out[at + i] = src[start + i]
    this.used += n
    return at
  }
}
