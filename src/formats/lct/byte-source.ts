import {open, type FileHandle} from 'node:fs/promises'
import {compressionOf, decompressedChunks} from '../../util/compressed-input.js'

const CHUNK = 1 << 20
/**
 * Room before a file chunk in the buffer it is read into, for the unread bytes of the window before it (a frame's
 * tail, a few KiB): the chunk is read straight into the next window instead of being copied into this one
 * (one copy of the file less).
 */
const RESERVE = 64 << 10
const WINDOW_BYTES = RESERVE + CHUNK

/** Anything `.lct` can be read from: a path, a Node stream, or an async iterable of byte chunks. */
export type LctSource = string | NodeJS.ReadableStream | AsyncIterable<Uint8Array>

/**
 * A forward-only byte window over a source: `buf[pos, len)` holds bytes not yet consumed, `offset` is the source
 * offset of `buf[pos]`. Reads 1 MiB at a time; never seeks; a frame larger than the window gets a window its size.
 */
export class ByteWindow {
  buf: Buffer = Buffer.allocUnsafe(WINDOW_BYTES)
  pos = 0
  len = 0
  /** source offset of buf[pos] */
  offset = 0
  eof = false
  private handle: FileHandle | undefined
  /** the next chunk of a file, read while the caller works through the current one */
  private ahead: Promise<{chunk: Buffer; bytesRead: number}> | undefined
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
      const {chunk, bytesRead} = await (this.ahead ?? this.readAhead())
      this.ahead = undefined
      if (bytesRead === 0) {
        this.eof = true
        return
      }
      if (this.pos === 0 && this.len <= RESERVE) {
        this.adopt(chunk, bytesRead)
        return
      }
      if (this.len + bytesRead > this.buf.length) {
        const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + bytesRead))
        this.buf.copy(next, 0, 0, this.len)
        this.buf = next
      }
      chunk.copy(this.buf, this.len, RESERVE, RESERVE + bytesRead)
      this.len += bytesRead
      this.spare = chunk
      this.ahead = this.readAhead()
      this.ahead.catch(() => {}) // reported when awaited
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

  /**
   * The buffer a chunk was read into (at `RESERVE`) becomes the window, the `len` unread bytes (compacted to the
   * front, at most `RESERVE`) put before it; the old window takes the next read when it has the usual size.
   */
  private adopt(chunk: Buffer, bytesRead: number): void {
    const live = this.len
    this.buf.copy(chunk, RESERVE - live, 0, live)
    this.spare = this.buf.length === WINDOW_BYTES ? this.buf : undefined
    this.buf = chunk
    this.pos = RESERVE - live
    this.len = RESERVE + bytesRead
    this.ahead = this.readAhead()
    this.ahead.catch(() => {}) // reported when awaited
  }

  /** the buffer the next chunk is read into (at `RESERVE`): no longer part of the window */
  private spare: Buffer | undefined

  private readAhead(): Promise<{chunk: Buffer; bytesRead: number}> {
    // two buffers take turns: the next read starts once the previous chunk's buffer became the window
    const chunk = this.spare ?? Buffer.allocUnsafe(WINDOW_BYTES)
    this.spare = undefined
    return (this.handle as FileHandle)
      .read(chunk, RESERVE, CHUNK, null)
      .then(({bytesRead}) => ({chunk, bytesRead}))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.ahead?.catch(() => {})
    await this.handle?.close()
    await this.iterator?.return?.()
  }
}
