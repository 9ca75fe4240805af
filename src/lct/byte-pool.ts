// Copies of short byte runs carved from shared chunks: one typed-array view per copy instead of a view and an
// ArrayBuffer of its own (each ArrayBuffer costs the collector extra work on every scavenge it survives).

const CHUNK_BYTES = 64 << 10
/** runs longer than this get a buffer of their own */
const MAX_POOLED = 256

export class BytePool {
  private chunk = new ArrayBuffer(CHUNK_BYTES)
  private used = 0

  /**
   * A Buffer holding a copy of `src[start, end)`, as `Uint8Array.prototype.slice.call(src, start, end)` gives for a
   * Buffer `src`. A chunk lives while any copy in it does: the copies of one run of records share their chunks.
   */
  copy(src: Uint8Array, start: number, end: number): Uint8Array {
    const n = end - start
    if (n > MAX_POOLED) return Buffer.from(src.subarray(start, end)) // a copy
    if (this.used + n > CHUNK_BYTES) {
      this.chunk = new ArrayBuffer(CHUNK_BYTES)
      this.used = 0
    }
    const out = Buffer.from(this.chunk, this.used, n)
    for (let i = 0; i < n; i++) out[i] = src[start + i]
    this.used += n
    return out
  }
}
