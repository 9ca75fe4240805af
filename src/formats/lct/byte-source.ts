import {open, type FileHandle} from 'node:fs/promises'
import {compressionOf, decompressedChunks} from '../../util/compressed-input.js'

const CHUNK = 1 << 20

/** Anything `.lct` can be read from: a path, a Node stream, or an async iterable of byte chunks. */
export type LctSource = string | NodeJS.ReadableStream | AsyncIterable<Uint8Array>

/**
 * A forward-only byte window over a source: `buf[pos, len)` holds bytes not yet consumed, `offset` is the source
 * offset of `buf[pos]`. Reads 1 MiB at a time (a file straight into the window, no copy); never seeks; a frame larger
 * than the window gets a window its size.
 */
export class ByteWindow {
  buf: Buffer = Buffer.allocUnsafe(CHUNK)
  pos = 0
  len = 0
  /** source offset of buf[pos] */
  offset = 0
  eof = false
  private handle: FileHandle | undefined
  private iterator: AsyncIterator<Uint8Array> | undefined
  private closed = false

  private constructor() {}

  static async open(source: LctSource): Promise<ByteWindow> {
    const w = new ByteWindow()
    const compression = typeof source === 'string' ? compressionOf(source) : undefined
    if (compression !== undefined) w.iterator = decompressedChunks(source as string, compression)
    else if (typeof source === 'string') w.handle = await open(source, 'r')
    else w.iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
    return w
  }

  get available(): number {
    return this.len - this.pos
  }

  /** Makes at least `n` bytes available unless the source ends first; returns whether it could. */
  async ensure(n: number): Promise<boolean> {
    while (this.len - this.pos < n) {
      if (this.eof) return false
      this.compact(n)
      await this.fill()
    }
    return true
  }

  consume(n: number): void {
    this.pos += n
    this.offset += n
  }

  /** Drops `n` bytes without keeping them; returns how many there were before the source ended. */
  async discard(n: number): Promise<number> {
    let left = n
    while (left > 0) {
      const take = Math.min(left, this.len - this.pos)
      this.consume(take)
      left -= take
      if (left === 0) break
      this.pos = 0
      this.len = 0
      if (this.eof) break
      await this.fill()
      if (this.len === 0 && this.eof) break
    }
    return n - left
  }

  private compact(need: number): void {
    const live = this.len - this.pos
    if (this.buf.length < need) {
      const next = Buffer.allocUnsafe(Math.max(need, CHUNK))
      this.buf.copy(next, 0, this.pos, this.len)
      this.buf = next
    } else if (this.pos > 0) this.buf.copy(this.buf, 0, this.pos, this.len)
    this.pos = 0
    this.len = live
  }

  private async fill(): Promise<void> {
    if (this.closed) throw new Error('closed')
    if (this.len === this.buf.length) {
      const next = Buffer.allocUnsafe(this.buf.length * 2)
      this.buf.copy(next, 0, 0, this.len)
      this.buf = next
    }
    if (this.handle) {
      const {bytesRead} = await this.handle.read(this.buf, this.len, this.buf.length - this.len, null)
      if (bytesRead === 0) this.eof = true
      this.len += bytesRead
      return
    }
    const it = this.iterator as AsyncIterator<Uint8Array>
    for (;;) {
      const r = await it.next()
      if (r.done) {
        this.eof = true
        return
      }
      const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value
      if (chunk.length === 0) continue
      if (this.len + chunk.length > this.buf.length) {
        const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + chunk.length))
        this.buf.copy(next, 0, 0, this.len)
        this.buf = next
      }
      this.buf.set(chunk, this.len)
      this.len += chunk.length
      return
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.handle?.close()
    await this.iterator?.return?.()
  }
}
