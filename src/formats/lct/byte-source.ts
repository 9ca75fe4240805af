import {compressionOf, decompressedChunks} from '../../util/compressed-input.js'
import {fileChunks} from '../file-chunks.js'

const CHUNK = 1 << 20

/** Anything `.lct` can be read from: a path, a Node stream, or an async iterable of byte chunks. */
export type LctSource = string | NodeJS.ReadableStream | AsyncIterable<Uint8Array>

/**
 * A forward-only byte window over a source: `buf[pos, len)` holds bytes not yet consumed, `offset` is the source
 * offset of `buf[pos]`. The window is the chunk last read (a file's are read ahead into two buffers in turn); only a
 * frame that spans chunks is copied, into a buffer of its own, before the next chunk is asked for.
 */
export class ByteWindow {
  buf: Buffer = Buffer.alloc(0)
  pos = 0
  len = 0
  /** source offset of buf[pos] */
  offset = 0
  /** the part of the last chunk read that is not in the window yet */
  private rest: Buffer | undefined
  private ended = false

  private constructor(private readonly chunks: AsyncIterator<Uint8Array | string>) {}

  /** A file is opened at the first read: an error opening it is the first read's error. */
  static open(source: LctSource): ByteWindow {
    if (typeof source !== 'string')
      return new ByteWindow((source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]())
    const compression = compressionOf(source)
    return new ByteWindow(
      compression !== undefined ? decompressedChunks(source, compression) : fileChunks(source, CHUNK),
    )
  }

  get available(): number {
    return this.len - this.pos
  }

  /** The next chunk (the rest of the last one first), undefined at the end of the source. */
  private async nextChunk(): Promise<Buffer | undefined> {
    const rest = this.rest
    this.rest = undefined
    if (rest !== undefined) return rest
    while (!this.ended) {
      const r = await this.chunks.next()
      if (r.done) this.ended = true
      else if (r.value.length > 0)
        return typeof r.value === 'string'
          ? Buffer.from(r.value)
          : Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length)
    }
    return undefined
  }

  /** Makes at least `n` bytes available unless the source ends first (then all there are); returns whether it could. */
  async ensure(n: number): Promise<boolean> {
    let have = this.len - this.pos
    if (have >= n) return true
    // the bytes before the next chunk are copied out first: the read after it may reuse their buffer
    const parts = have > 0 ? [Buffer.from(this.buf.subarray(this.pos, this.len))] : []
    let last: Buffer | undefined
    while (have < n) {
      if (last !== undefined) parts.push(Buffer.from(last))
      last = await this.nextChunk()
      if (last === undefined) break
      have += last.length
    }
    if (last !== undefined && parts.length === 0) this.buf = last
    else if (last !== undefined) {
      // only what the window needs of the last chunk is copied; the rest stays where it was read
      const need = last.length - (have - n)
      this.buf = Buffer.concat([...parts, last.subarray(0, need)])
      if (need < last.length) this.rest = last.subarray(need)
    } else this.buf = Buffer.concat(parts)
    this.pos = 0
    this.len = this.buf.length
    return this.len >= n
  }

  consume(n: number): void {
    this.pos += n
    this.offset += n
  }

  /** Drops `n` bytes without keeping them; returns how many there were before the source ended. */
  async discard(n: number): Promise<number> {
    let left = n
    for (;;) {
      const take = Math.min(left, this.len - this.pos)
      this.consume(take)
      left -= take
      if (left === 0) return n
      const chunk = await this.nextChunk()
      if (chunk === undefined) return n - left
      this.buf = chunk
      this.pos = 0
      this.len = chunk.length
    }
  }

  async close(): Promise<void> {
    this.rest = undefined
    this.ended = true
    await this.chunks.return?.()
  }
}
