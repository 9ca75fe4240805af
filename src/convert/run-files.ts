import {closeSync, openSync, readSync, writeSync} from 'node:fs'
import {parseJson} from '../jsonl/parse.js'

const WRITE_BUFFER_CHARS = 1 << 20

/** Appends text to a file through a large in-memory buffer, with synchronous writes (no back-pressure games). */
export class BufferedWriter {
  private fd: number | undefined
  private parts: string[] = []
  private pending = 0
  bytesWritten = 0

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w', 0o666)
  }

  write(text: string): void {
    this.parts.push(text)
    this.pending += text.length
    if (this.pending >= WRITE_BUFFER_CHARS) this.flush()
  }

  flush(): void {
    if (this.pending === 0 || this.fd === undefined) return
    const buf = Buffer.from(this.parts.join(''), 'utf8')
    let off = 0
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off)
    this.bytesWritten += buf.length
    this.parts = []
    this.pending = 0
  }

  close(): void {
    if (this.fd === undefined) return
    this.flush()
    closeSync(this.fd)
    this.fd = undefined
  }

  /** Closes without flushing (the file is being abandoned). */
  abandon(): void {
    if (this.fd === undefined) return
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
    const data = this.rest.length > 0 ? Buffer.concat([this.rest, this.buf.subarray(0, n)]) : this.buf.subarray(0, n)
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
