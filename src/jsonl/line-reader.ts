import {createReadStream} from 'node:fs'
import {isUtf8} from 'node:buffer'
import type {Readable} from 'node:stream'
import {pythonStrip} from './trim.js'

/** A non-blank input line: 1-based number (blank lines counted) and its trimmed text. */
export interface InputLine {
  readonly lineNo: number
  readonly text: string
}

export interface LineReaderEvents {
  /** A line whose bytes are not valid UTF-8; `preview` is its lossy decoding, trimmed. */
  invalidUtf8?(lineNo: number, preview: string): void
  /** Called after every chunk with the running byte count. */
  progress?(bytesRead: number): void
}

const CHUNK = 1 << 20
/** below V8's large-object threshold (128 KiB), so decoded lines die young */
const DECODE_PIECE = 64 << 10
const LF = 0x0a
const CR = 0x0d

function lastTerminator(buf: Buffer, from: number): number {
  if (from < 0) return -1
  return Math.max(buf.lastIndexOf(LF, from), buf.lastIndexOf(CR, from))
}

/**
 * Streams the lines of a file with Python's universal newlines (`\n`, `\r\n`, lone `\r`), skipping a UTF-8 BOM at
 * the start. Reads ≥ 1 MiB chunks and splits them without `readline` (2–3× faster). Counts every line.
 */
export class LineReader {
  linesRead = 0
  blankLines = 0
  bytesRead = 0

  constructor(
    private readonly source: string | Readable,
    private readonly events: LineReaderEvents = {},
  ) {}

  async *lines(): AsyncGenerator<InputLine> {
    const stream =
      typeof this.source === 'string' ? createReadStream(this.source, {highWaterMark: CHUNK}) : this.source
    let carry: Buffer | undefined
    let atStart = true
    const out: InputLine[] = []
    for await (const piece of stream as AsyncIterable<Buffer>) {
      this.bytesRead += piece.length
      let buf = carry ? Buffer.concat([carry, piece]) : piece
      carry = undefined
      if (atStart) {
        if (
          buf.length < 3 &&
          buf.length > 0 &&
          Buffer.from([0xef, 0xbb, 0xbf]).subarray(0, buf.length).equals(buf)
        ) {
          carry = buf // might still become a BOM
          continue
        }
        atStart = false
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3)
      }
      // complete lines end at the last terminator; a trailing CR waits for a possible LF
      let end = lastTerminator(buf, buf.length - 1)
      if (end === buf.length - 1 && buf[end] === CR) end = lastTerminator(buf, end - 1)
      if (end < 0) {
        carry = buf
        continue
      }
      this.split(buf.subarray(0, end + 1), out)
      if (end + 1 < buf.length) carry = Buffer.from(buf.subarray(end + 1))
      this.events.progress?.(this.bytesRead)
      for (let i = 0; i < out.length; i++) yield out[i]
      out.length = 0
    }
    if (carry && carry.length > 0) {
      if (atStart && carry[0] === 0xef && carry[1] === 0xbb && carry[2] === 0xbf) carry = carry.subarray(3)
      this.split(carry, out) // the unterminated tail at end of file is a line too
      for (let i = 0; i < out.length; i++) yield out[i]
      out.length = 0
    }
    this.events.progress?.(this.bytesRead)
  }

  /**
   * Splits a region that ends with a terminator (or the tail at end of file), in pieces of about
   * {@link DECODE_PIECE} bytes cut at line ends, so that one UTF-8 check covers many lines.
   */
  private split(region: Buffer, out: InputLine[]): void {
    const n = region.length
    let start = 0
    while (n - start > DECODE_PIECE) {
      let p = lastTerminator(region, start + DECODE_PIECE - 1)
      if (p < start) {
        // one line longer than a piece: it ends at the next terminator
        p = start + DECODE_PIECE
        while (p < n && region[p] !== LF && region[p] !== CR) p++
        if (p >= n) break
      }
      if (region[p] === CR && p + 1 < n && region[p + 1] === LF) p++
      if (p + 1 >= n) break
      this.splitPiece(region.subarray(start, p + 1), out)
      start = p + 1
    }
    this.splitPiece(start === 0 ? region : region.subarray(start), out)
  }

  private splitPiece(region: Buffer, out: InputLine[]): void {
    if (isUtf8(region)) {
      // each line decoded on its own: a line is then a string of its own, so a value kept from it (an id, a name)
      // keeps that line alive at most, never the whole piece it was read with
      let start = 0
      const n = region.length
      const crs = region.indexOf(CR) >= 0 // a CR (alone or before LF) ends a line too
      while (start < n) {
        let end: number
        if (!crs) {
          end = region.indexOf(LF, start)
          if (end < 0) end = n
        } else {
          end = start
          while (end < n && region[end] !== LF && region[end] !== CR) end++
        }
        this.accept(pythonStrip(region.toString('utf8', start, end)), out)
        start = region[end] === CR && region[end + 1] === LF ? end + 2 : end + 1
      }
      return
    }
    let start = 0
    const n = region.length
    while (start < n) {
      let p = start
      while (p < n && region[p] !== LF && region[p] !== CR) p++
      const bytes = region.subarray(start, p)
      if (isUtf8(bytes)) this.accept(pythonStrip(bytes.toString('utf8')), out)
      else {
        this.linesRead++
        this.events.invalidUtf8?.(this.linesRead, pythonStrip(bytes.toString('utf8')))
      }
      if (p < n && region[p] === CR && region[p + 1] === LF) p++
      start = p + 1
    }
  }

  private accept(text: string, out: InputLine[]): void {
    this.linesRead++
    if (text.length === 0) this.blankLines++
    else out.push({lineNo: this.linesRead, text})
  }
}
