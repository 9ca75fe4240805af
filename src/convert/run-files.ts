import {closeSync, openSync, readSync, write} from 'node:fs'
import {promisify} from 'node:util'
import {parseJson} from '../jsonl/parse.js'

const writeAsync = promisify(write)

const WRITE_BUFFER_BYTES = 1 << 20
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
  bytesWritten = 0

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w', 0o666)
  }

  write(text: string): void {
    // a UTF-8 encoding takes at most 3 bytes per UTF-16 unit
    if (this.used + text.length * 3 > this.buf.length) {
      this.flush()
      if (text.length * 3 > this.buf.length) return this.enqueue(Buffer.from(text, 'utf8'), false)
    }
    this.used += this.buf.write(text, this.used, 'utf8')
  }

  /** Appends ASCII-only text (digits, punctuation, field names); short pieces by a loop, not a runtime call. */
  ascii(s: string): void {
    const n = s.length
    if (n > 48 || this.used + n > this.buf.length) return this.write(s)
    const buf = this.buf
    let p = this.used
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i)
    this.used = p
  }

  /** Appends any text (UTF-8). */
  text(s: string): void {
    this.write(s)
  }

  /** Appends bytes (copied into the buffer, or queued as they are when large). */
  bytes(bytes: Buffer): void {
    if (this.used + bytes.length > this.buf.length) {
      this.flush()
      if (bytes.length > this.buf.length) return this.enqueue(bytes, false)
    }
    this.used += bytes.copy(this.buf, this.used)
  }

  /** Appends `source[start, end)`. */
  range(source: Buffer, start: number, end: number): void {
    const n = end - start
    if (this.used + n > this.buf.length) {
      this.flush()
      if (n > this.buf.length) return this.enqueue(Buffer.from(source.subarray(start, end)), false)
    }
    this.used += source.copy(this.buf, this.used, start, end)
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
          this.bytesWritten += bytes.length
        }
      } catch (err) {
        this.failure = err as Error
      } finally {
        this.inFlight--
        if (recycle && this.spare.length < 2)
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

export interface RunRow {
  ts: bigint
  line: string
}

/** Reads a run file row by row with synchronous chunked reads. */
export class RunReader {
  private fd: number | undefined
  private rows: string[] = []
  private next = 0
  private rest: Buffer = Buffer.alloc(0)
  private readonly buf: Buffer

  constructor(
    readonly run: RunFile,
    bufferBytes: number,
  ) {
    this.fd = openSync(run.path, 'r')
    this.buf = Buffer.allocUnsafe(bufferBytes)
  }

  read(): RunRow | undefined {
    while (this.next >= this.rows.length) {
      if (!this.fill()) return undefined
    }
    const row = this.rows[this.next++]
    if (this.run.prefixed) {
      const tab = row.indexOf('\t')
      return {ts: BigInt(row.slice(0, tab)), line: row.slice(tab + 1)}
    }
    return {ts: timestampOfLine(row), line: row}
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private fill(): boolean {
    if (this.fd === undefined) return false
    const n = readSync(this.fd, this.buf, 0, this.buf.length, null)
    this.next = 0
    if (n === 0) {
      this.close()
      this.rows = this.rest.length === 0 ? [] : [this.rest.toString('utf8')]
      this.rest = Buffer.alloc(0)
      return this.rows.length > 0
    }
    const data =
      this.rest.length > 0 ? Buffer.concat([this.rest, this.buf.subarray(0, n)]) : this.buf.subarray(0, n)
    // cut at the last newline so that no UTF-8 sequence is split
    const lastNl = data.lastIndexOf(0x0a)
    if (lastNl < 0) {
      this.rest = Buffer.from(data)
      this.rows = []
      return true
    }
    this.rows = data.toString('utf8', 0, lastNl).split('\n')
    this.rest = Buffer.from(data.subarray(lastNl + 1))
    return true
  }
}

/** `timestamp_ns` of a serialized trace line (used for runs without a prefix). */
export function timestampOfLine(line: string): bigint {
  const value = parseJson(line)
  const ts = value instanceof Map ? value.get('timestamp_ns') : undefined
  if (typeof ts === 'bigint') return ts
  if (typeof ts === 'number') return BigInt(ts)
  throw new Error('run line without an integer timestamp_ns')
}
