// Keys of long-pending publisher events kept in a file instead of memory: a publisher log's gets that are never
// written and its writes that never finish wait until the end of the input, so whatever memory they hold grows with
// the input's length. On disk, each costs the heap only a small handle; its keys are read back when a write might
// match it and when it is finally emitted.
import {closeSync, openSync, readSync, writeSync} from 'node:fs'
import {KeyList} from 'lmt'
import {prefixHash} from './prefix-fingerprint.js'

const BUFFER_BYTES = 1 << 20

/**
 * Where spilled keys are: `length` int64 words (platform order), then `textBytes` bytes of their JSON text; with
 * the hash of all words but the last (see prefix-fingerprint.ts), which a matching write's prefix must have.
 */
export class SpilledKeys {
  constructor(
    readonly offset: number,
    readonly length: number,
    readonly textBytes: number,
    readonly prefixHash: number,
  ) {}

  get byteLength(): number {
    return 8 * this.length + this.textBytes
  }
}

/** An append-only file of key lists, written through one buffer and read back by offset. */
export class KeySpill {
  private fd: number | undefined
  private readonly buf = Buffer.allocUnsafe(BUFFER_BYTES)
  private used = 0
  /** bytes in the file; the buffer holds the bytes after them */
  private flushed = 0

  constructor(readonly path: string) {}

  /** Appends the keys' words and text; the handle reads them back. */
  put(keys: KeyList): SpilledKeys {
    const words = keys.words()
    const wordBytes = new Uint8Array(words.buffer, words.byteOffset, words.byteLength)
    const textBytes = keys.jsonByteLength
    const size = wordBytes.length + textBytes
    if (this.used + size > this.buf.length) this.flush()
    const hash = prefixHash(words, Math.max(0, words.length - 1))
    const handle = new SpilledKeys(this.flushed + this.used, words.length, textBytes, hash)
    if (size > this.buf.length) {
      // larger than the buffer: straight to the file, words then text
      this.writeAt(wordBytes, this.flushed)
      this.writeAt(keys.toJsonBytes(), this.flushed + wordBytes.length)
      this.flushed += size
      return handle
    }
    this.buf.set(wordBytes, this.used)
    this.used = keys.copyJsonInto(this.buf, this.used + wordBytes.length)
    return handle
  }

  /** The keys of a handle, in a buffer of their own. */
  get(h: SpilledKeys): KeyList {
    const own = new ArrayBuffer(h.byteLength)
    const bytes = new Uint8Array(own)
    if (h.offset >= this.flushed) {
      const from = h.offset - this.flushed
      bytes.set(this.buf.subarray(from, from + h.byteLength))
    } else this.readAt(bytes, h.offset)
    const words = new BigInt64Array(own, 0, h.length)
    return KeyList.fromSlabs(words, 0, h.length, Buffer.from(own, 8 * h.length, h.textBytes), 0, h.textBytes)
  }

  /** Closes the file (the run removes its folder). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private flush(): void {
    if (this.used === 0) return
    this.writeAt(this.buf.subarray(0, this.used), this.flushed)
    this.flushed += this.used
    this.used = 0
  }

  private file(): number {
    return (this.fd ??= openSync(this.path, 'w+', 0o600))
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    const fd = this.file()
    for (let done = 0; done < bytes.length;)
      done += writeSync(fd, bytes, done, bytes.length - done, position + done)
  }

  private readAt(bytes: Uint8Array, position: number): void {
    const fd = this.file()
    for (let done = 0; done < bytes.length;) {
      const n = readSync(fd, bytes, done, bytes.length - done, position + done)
      if (n === 0) throw new Error(`${this.path}: spilled keys cut short at byte ${position + done}`)
      done += n
    }
  }
}
