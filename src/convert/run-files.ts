import {closeSync, openSync, readSync, write} from 'node:fs'
import {promisify} from 'node:util'
import {parseJson} from '../formats/json/parse.js'

const writeAsync = promisify(write)

const WRITE_BUFFER_BYTES = 1 << 20
/** pieces up to this length are copied by a loop (a runtime call costs more) */
const SHORT_PIECE = 96
const MAX_IN_FLIGHT = 4

/**
 * Appends to a file through large byte buffers. Appending is synchronous (text is UTF-8 encoded in place); full
 * buffers are written in the background (libuv's thread pool), so the write system calls overlap with the
 * conversion on a second core. Callers await {@link drain} now and then to bound the buffers in flight.
 */
export class BufferedWriter {
  private fd: number | undefined
  private buf: Buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES)
  private used = 0
  private readonly spare: Buffer[] = []
  private inFlight = 0
  private chain: Promise<void> = Promise.resolve()
  private failure: Error | undefined

  constructor(readonly path: string) {
    this.fd = openSync(path, 'wx', 0o666) // a fresh name: never a file or link put there
  }

  /** Appends any text (UTF-8). */
  text(text: string): void {
    // a UTF-8 encoding takes at most 3 bytes per UTF-16 unit
    if (this.used + text.length * 3 > this.buf.length) {
      this.flush()
      if (text.length * 3 > this.buf.length) return this.enqueue(Buffer.from(text, 'utf8'), false)
    }
    this.used += this.buf.write(text, this.used, 'utf8')
  }

  /** Room for `n` more bytes at {@link pos} (see ByteSink.room); undefined when more than a buffer. */
  room(n: number): Buffer | undefined {
    if (this.used + n > this.buf.length) {
      this.flush()
      if (n > this.buf.length) return undefined
    }
    return this.buf
  }

  get pos(): number {
    return this.used
  }

  set pos(p: number) {
    this.used = p
  }

  /** Appends ASCII-only text (digits, punctuation, field names); short pieces by a loop, not a runtime call. */
  ascii(s: string): void {
    const n = s.length
    if (n > 48 || this.used + n > this.buf.length) return this.text(s)
    const buf = this.buf
    let p = this.used
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i)
    this.used = p
  }

  /** Appends `source[start, end)`. */
  range(source: Uint8Array, start: number, end: number): void {
    const n = end - start
    if (this.used + n > this.buf.length) {
      this.flush()
      if (n > this.buf.length) return this.enqueue(Buffer.from(source.subarray(start, end)), false)
    }
    const buf = this.buf
    let p = this.used
    // short pieces (field names, punctuation) by a loop: cheaper than a call into the runtime
    if (n <= SHORT_PIECE) for (let i = start; i < end; i++) buf[p++] = source[i]
    else {
      buf.set(source.subarray(start, end), p)
      p += n
    }
    this.used = p
  }

  /** Hands the current buffer to the background writer. */
  flush(): void {
    if (this.used === 0) return
    const full = this.buf.subarray(0, this.used)
    this.buf = this.spare.pop() ?? Buffer.allocUnsafe(WRITE_BUFFER_BYTES)
    this.used = 0
    this.enqueue(full, true)
  }

  /** True when enough buffers wait for the disk that the producer should {@link drain}. */
  get backlogged(): boolean {
    return this.inFlight >= MAX_IN_FLIGHT
  }

  /** Waits until every queued buffer is written; rethrows a write failure. */
  async drain(): Promise<void> {
    await this.chain
    if (this.failure) throw this.failure
  }

  private enqueue(bytes: Buffer, recycle: boolean): void {
    if (this.failure) throw this.failure
    if (this.fd === undefined) throw new Error(`${this.path} is closed`)
    const fd = this.fd
    this.inFlight++
    this.chain = this.chain.then(async () => {
      try {
        if (this.failure === undefined) {
          let off = 0
          while (off < bytes.length)
            off += (await writeAsync(fd, bytes, off, bytes.length - off)).bytesWritten
        }
      } catch (err) {
        this.failure = err as Error
      } finally {
        this.inFlight--
        // as many spares as buffers may be in flight: a producer that drains when backlogged allocates no more
        if (recycle && this.spare.length < MAX_IN_FLIGHT)
          this.spare.push(Buffer.from(bytes.buffer, bytes.byteOffset, WRITE_BUFFER_BYTES))
      }
    })
  }

  async close(): Promise<void> {
    if (this.fd === undefined) return
    this.flush()
    await this.chain
    closeSync(this.fd)
    this.fd = undefined
    if (this.failure) throw this.failure
  }

  /** Closes without flushing (the file is being abandoned); background writes finish into the void. */
  abandon(): void {
    if (this.fd === undefined) return
    this.failure ??= new Error(`${this.path} was abandoned`)
    try {
      closeSync(this.fd)
    } catch {
      // already gone
    }
    this.fd = undefined
  }
}

/**
 * A sorted run on disk: either `ts<TAB>line` rows (`prefixed`) or plain JSONL lines whose `timestamp_ns` is parsed
 * back when needed (the first run of a single input is the output file itself, so it carries no prefix).
 */
export interface RunFile {
  path: string
  prefixed: boolean
  count: number
}

/** One row of a run: its timestamp and its line's bytes `buf[start, end)`, newline included if the file had it. */
export interface RunRow {
  ts: bigint
  buf: Buffer
  start: number
  end: number
}

/**
 * Reads a run file row by row with synchronous chunked reads, as bytes: the merge copies lines from file to file
 * without decoding them (a row's bytes stay valid until the reader's next read).
 */
export class RunReader {
  private fd: number | undefined
  private buf: Buffer
  /** the valid bytes of `buf`: `[0, len)`, as a view (searches must not see stale bytes) */
  data: Buffer
  /** where the next row starts in {@link data} (a stretch copy may move it to a later row's start) */
  pos = 0
  /**
   * `timestampOf`: `timestamp_ns` of the line `buf[start, end)` of a run without a prefix (default: the line parsed).
   */
  constructor(
    readonly run: RunFile,
    bufferBytes: number,
    private readonly timestampOf = plainLineTimestamp,
  ) {
    this.fd = openSync(run.path, 'r')
    this.buf = Buffer.allocUnsafe(bufferBytes)
    this.data = this.buf.subarray(0, 0)
  }

  read(): RunRow | undefined {
    for (;;) {
      const nl = this.data.indexOf(0x0a, this.pos)
      if (nl >= 0) return this.row(this.pos, nl, nl + 1)
      if (!this.fill()) {
        // end of file: a last line without its newline is a row too
        if (this.pos < this.data.length) return this.row(this.pos, this.data.length, this.data.length)
        return undefined
      }
    }
  }

  private row(start: number, lineEnd: number, next: number): RunRow {
    const data = this.data
    this.pos = next
    if (this.run.prefixed) {
      const tab = data.indexOf(0x09, start)
      return {ts: BigInt(data.toString('latin1', start, tab)), buf: data, start: tab + 1, end: next}
    }
    return {ts: this.timestampOf(this.buf, start, lineEnd), buf: data, start, end: next}
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** Keeps the unread bytes, reads more after them (growing the buffer for a line longer than it); false at EOF. */
  private fill(): boolean {
    if (this.fd === undefined) return false
    const kept = this.data.length - this.pos
    if (kept === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2)
      this.data.copy(bigger, 0, this.pos)
      this.buf = bigger
    } else if (kept > 0) this.buf.copy(this.buf, 0, this.pos, this.data.length)
    const n = readSync(this.fd, this.buf, kept, this.buf.length - kept, null)
    this.data = this.buf.subarray(0, kept + n)
    this.pos = 0
    if (n === 0) {
      this.close()
      return false
    }
    return true
  }
}

/** `timestamp_ns` of the line buf[start, end) of a run without a prefix, parsed. */
function plainLineTimestamp(buf: Buffer, start: number, end: number): bigint {
  return timestampOfLine(buf.toString('utf8', start, end))
}

/** `timestamp_ns` of a serialized trace line (used for runs without a prefix). */
export function timestampOfLine(line: string): bigint {
  const value = parseJson(line)
  const ts = value instanceof Map ? value.get('timestamp_ns') : undefined
  if (typeof ts === 'bigint') return ts
  if (typeof ts === 'number') return BigInt(ts)
  throw new Error('run line without an integer timestamp_ns')
}
