import {createReadStream} from 'node:fs'
import {compressionOf, decompressedChunks} from '../../util/compressed-input.js'
import {fileChunks} from '../file-chunks.js'
import {isUtf8} from 'node:buffer'
import type {Readable} from 'node:stream'
import {pythonStrip} from './trim.js'
import {type InputLine, type LineBatch, LineBatchBuilder, type LineBatchSpares} from './line-batch.js'

export type {InputLine}

export interface LineReaderEvents {
  /** A line whose bytes are not valid UTF-8; `preview` is its lossy decoding, trimmed. */
  invalidUtf8?(lineNo: number, preview: string): void
  /**
   * A line longer than the reader's limit, skipped without being held in memory; `preview` is the lossy decoding
   * of its first bytes, `bytes` its length.
   */
  tooLong?(lineNo: number, preview: string, bytes: number): void
  /** Called after every chunk with the running byte count. */
  progress?(bytesRead: number): void
}

const CHUNK = 1 << 20
/**
 * Longest line read by default: far beyond any real trace line (a conversation of a million tokens is a few MB),
 * well below V8's longest string (~512 MiB); a file without line breaks (a binary passed by mistake) is thus skipped
 * in bounded memory instead of being accumulated whole.
 */
export const MAX_LINE_BYTES = 64 << 20
const PREVIEW_BYTES = 512
/** below V8's large-object threshold (128 KiB), so decoded lines die young */
const DECODE_PIECE = 64 << 10
const LF = 0x0a
const CR = 0x0d

function firstTerminator(buf: Buffer): number {
  const lf = buf.indexOf(LF)
  const cr = buf.indexOf(CR)
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr)
}

/** A copy of the first bytes of an over-long line (given in parts), for its preview; the line itself is not kept. */
function firstBytes(parts: Buffer[]): Buffer {
  const out = Buffer.allocUnsafe(PREVIEW_BYTES)
  let n = 0
  for (const p of parts) {
    if (n === PREVIEW_BYTES) break
    n += p.copy(out, n, 0, Math.min(p.length, PREVIEW_BYTES - n))
  }
  return out.subarray(0, n)
}

function lastTerminator(buf: Buffer, from: number): number {
  if (from < 0) return -1
  return Math.max(buf.lastIndexOf(LF, from), buf.lastIndexOf(CR, from))
}

/** A line over a reader's limit, met by a reader that was given no `tooLong` handler. */
export class LineTooLongError extends Error {
  constructor(
    readonly lineNo: number,
    readonly bytes: number,
    readonly maxLineBytes: number,
  ) {
    super(`line ${lineNo} is ${bytes} bytes long; lines longer than ${maxLineBytes} bytes are not read`)
    this.name = 'LineTooLongError'
  }
}

/** The reason given for a line over the limit (convert's warnings, simulate's row errors). */
export function tooLongMessage(bytes: number, maxLineBytes: number): string {
  return `the line is ${bytes} bytes long; lines longer than ${maxLineBytes} bytes (${maxLineBytes / 2 ** 20} MiB) are not read`
}

/** Where the reader puts accepted lines: InputLine objects, or a byte batch builder. */
interface LineSink {
  text(lineNo: number, text: string): void
  /** a valid UTF-8 line region[start, end), trimmed and not blank (absent: every line comes as text) */
  bytes?(lineNo: number, region: Buffer, start: number, end: number): void
}

/** ASCII Python whitespace (the rest of Python's whitespace is beyond ASCII, so it takes the text path) */
function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)
}

/**
 * Streams the lines of a file with Python's universal newlines (`\n`, `\r\n`, lone `\r`), skipping a UTF-8 BOM at
 * the start. Reads ≥ 1 MiB chunks and splits them without `readline` (which is slower). Counts every line.
 */
/** What {@link LineReader} carries from one chunk to the next. */
interface ChunkState {
  /** the start of a line whose end has not come yet */
  carry?: Buffer
  /** an unterminated line's later pieces, joined once its end arrives (joining at every piece is quadratic) */
  pending: Buffer[]
  pendingBytes: number
  /** a line over the limit: its first bytes (for the preview) and its length so far, while the rest is dropped */
  skipping?: {first: Buffer; bytes: number}
  /** the skipped line ended with CR at the end of a piece: an LF starting the next piece belongs to it */
  afterCr: boolean
  atStart: boolean
  /** the chunks are read into reused buffers: what is kept beyond the next read is copied out */
  reusing: boolean
}

/** `b`, or a copy of it when the read buffer it lies in is reused by the next read. */
function keep(b: Buffer, st: ChunkState): Buffer {
  return st.reusing ? Buffer.from(b) : b
}

/**
 * The carried start of a line and its pending pieces joined with `piece` (the state's carry taken): `head` is split
 * first, then `rest`. Only the piece up to its first LF (which always ends a line) is copied into `head`; the rest
 * stays where it was read, so a chunk read costs no new chunk-sized buffer.
 */
function joinCarry(piece: Buffer, st: ChunkState): {head: Buffer; rest: Buffer | undefined} {
  let head = piece
  let rest: Buffer | undefined
  if (st.carry) {
    const lf = piece.indexOf(LF)
    const cut = lf < 0 ? piece.length : lf + 1
    head = Buffer.concat([st.carry, ...st.pending, piece.subarray(0, cut)])
    if (cut < piece.length) rest = piece.subarray(cut)
  }
  st.carry = undefined
  st.pending.length = 0
  st.pendingBytes = 0
  return {head, rest}
}

export class LineReader {
  linesRead = 0
  blankLines = 0
  bytesRead = 0
  /** lines skipped for exceeding {@link maxLineBytes} */
  tooLong = 0
  readonly maxLineBytes: number
  /** bytes per read of a file (a smaller chunk holds less memory in flight) */
  readonly chunkBytes: number
  /** a file is read into two buffers in turn, not a new one per chunk (see {@link fileChunks}) */
  readonly reuseReadBuffers: boolean

  constructor(
    private readonly source: string | Readable,
    private readonly events: LineReaderEvents = {},
    options: {maxLineBytes?: number; chunkBytes?: number; reuseReadBuffers?: boolean} = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES
    this.chunkBytes = options.chunkBytes ?? CHUNK
    this.reuseReadBuffers = options.reuseReadBuffers ?? false
  }

  async *lines(): AsyncGenerator<InputLine> {
    for await (const batch of this.batches()) for (let i = 0; i < batch.length; i++) yield batch[i]
  }

  /** The lines in the batches they were read in (one per chunk read; never empty): one resumption per batch. */
  async *batches(): AsyncGenerator<InputLine[]> {
    let out: InputLine[] = []
    const sink: LineSink = {text: (lineNo, text) => out.push({lineNo, text})}
    for await (const _ of this.read(sink)) {
      if (out.length === 0) continue
      yield out
      out = []
    }
  }

  /**
   * The lines as byte batches (see {@link LineBatch}): the same lines, numbers and counts as {@link batches}, but
   * no string is made for a line unless its text is read (or it needs decoding to be trimmed).
   */
  async *lineBatches(
    options: {maxLines?: number; maxBytes?: number; recycle?: boolean; spares?: LineBatchSpares} = {},
  ): AsyncGenerator<LineBatch> {
    const builder = new LineBatchBuilder(options.maxLines, options.maxBytes, options.spares)
    const sink: LineSink = {
      text: (lineNo, text) => builder.addText(lineNo, text),
      bytes: (lineNo, region, start, end) => builder.addBytes(lineNo, region, start, end),
    }
    // `recycle`: the caller is done with a batch when it asks for the next one, whose buffers it may then be
    // `spares`: batches are built in the buffers of batches handed back there (when the caller is done with a batch
    // only later, e.g. after a trip to a worker thread)
    for await (const _ of this.read(sink)) {
      builder.seal()
      for (const b of builder.take()) {
        yield b
        if (options.recycle) builder.recycle(b)
      }
    }
    builder.seal()
    for (const b of builder.take()) yield b
  }

  /** The input's chunks, and whether they are read into reused buffers. */
  private chunks(): {stream: AsyncIterable<Buffer>; reusing: boolean} {
    if (typeof this.source !== 'string') return {stream: this.source, reusing: false}
    const compression = compressionOf(this.source)
    if (compression !== undefined)
      return {stream: decompressedChunks(this.source, compression, this.chunkBytes), reusing: false}
    if (this.reuseReadBuffers) return {stream: fileChunks(this.source, this.chunkBytes), reusing: true}
    return {stream: createReadStream(this.source, {highWaterMark: this.chunkBytes}), reusing: false}
  }

  /** Reads the input chunk by chunk into `sink`; yields (nothing) after each chunk. */
  private async *read(sink: LineSink): AsyncGenerator<void> {
    const {stream, reusing} = this.chunks()
    const st: ChunkState = {pending: [], pendingBytes: 0, afterCr: false, atStart: true, reusing}
    for await (const chunk of stream) {
      this.bytesRead += chunk.length
      const piece = this.pastSkippedLine(this.pastLoneLf(chunk, st), st)
      if (piece === undefined || this.heldUnterminated(piece, st)) {
        this.events.progress?.(this.bytesRead)
        continue
      }
      const {head, rest} = joinCarry(piece, st)
      const buf = this.pastBom(head, st)
      if (buf === undefined) continue // might still become a BOM (then `head` is the whole piece)
      this.splitComplete(buf, st, sink)
      if (rest !== undefined) this.splitComplete(rest, st, sink) // `head` ended with an LF: nothing is carried
      this.events.progress?.(this.bytesRead)
      yield
    }
    if (st.skipping) this.skipTooLong(st.skipping.first, 0, st.skipping.first.length, st.skipping.bytes)
    else if (st.pending.length > 0) st.carry = Buffer.concat([st.carry as Buffer, ...st.pending])
    let carry = st.carry
    if (carry && carry.length > 0) {
      if (st.atStart && carry[0] === 0xef && carry[1] === 0xbb && carry[2] === 0xbf) carry = carry.subarray(3)
      this.split(carry, sink) // the unterminated tail at end of file is a line too
      yield
    }
    this.events.progress?.(this.bytesRead)
  }

  /** An LF that starts a piece after a skipped line's CR belongs to that line. */
  private pastLoneLf(piece: Buffer, st: ChunkState): Buffer {
    if (!st.afterCr || piece.length === 0) return piece
    st.afterCr = false
    return piece[0] === LF ? piece.subarray(1) : piece
  }

  /** While a line over the limit is being dropped: the rest of the piece after its end, or undefined. */
  private pastSkippedLine(piece: Buffer, st: ChunkState): Buffer | undefined {
    const skipping = st.skipping
    if (!skipping) return piece
    const t = firstTerminator(piece)
    if (t < 0) {
      skipping.bytes += piece.length
      return undefined
    }
    skipping.bytes += t
    this.skipTooLong(skipping.first, 0, skipping.first.length, skipping.bytes)
    st.skipping = undefined
    if (piece[t] === CR && t + 1 === piece.length) st.afterCr = true
    return piece.subarray(piece[t] === CR && piece[t + 1] === LF ? t + 2 : t + 1)
  }

  /** Still no end of line: the piece is kept aside (true), unless the line is now too long to keep. */
  private heldUnterminated(piece: Buffer, st: ChunkState): boolean {
    const carry = st.carry
    if (!carry || carry[carry.length - 1] === CR || piece.indexOf(LF) >= 0 || piece.indexOf(CR) >= 0)
      return false
    st.pending.push(keep(piece, st))
    st.pendingBytes += piece.length
    if (carry.length + st.pendingBytes > this.maxLineBytes) {
      st.skipping = {first: firstBytes([carry, ...st.pending]), bytes: carry.length + st.pendingBytes}
      st.atStart = false
      st.carry = undefined
      st.pending.length = 0
      st.pendingBytes = 0
    }
    return true
  }

  /** At the start of the input: the buffer without a UTF-8 BOM, or undefined while it might still become one. */
  private pastBom(buf: Buffer, st: ChunkState): Buffer | undefined {
    if (!st.atStart) return buf
    if (
      buf.length < 3 &&
      buf.length > 0 &&
      Buffer.from([0xef, 0xbb, 0xbf]).subarray(0, buf.length).equals(buf)
    ) {
      st.carry = keep(buf, st)
      return undefined
    }
    st.atStart = false
    return buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.subarray(3) : buf
  }

  /** Complete lines end at the last terminator (a trailing CR waits for a possible LF); the rest is carried. */
  private splitComplete(buf: Buffer, st: ChunkState, out: LineSink): void {
    let end = lastTerminator(buf, buf.length - 1)
    if (end === buf.length - 1 && buf[end] === CR) end = lastTerminator(buf, end - 1)
    if (end < 0) {
      st.carry = keep(buf, st)
    } else {
      this.split(buf.subarray(0, end + 1), out)
      if (end + 1 < buf.length) st.carry = Buffer.from(buf.subarray(end + 1))
    }
    // (a carry ending with CR is a whole line and its CR)
    const carry = st.carry
    if (carry && carry.length - (carry[carry.length - 1] === CR ? 1 : 0) > this.maxLineBytes) {
      if (carry[carry.length - 1] === CR) {
        // complete already (its CR waited for a possible LF, which would belong to it)
        this.skipTooLong(carry, 0, carry.length - 1)
        st.afterCr = true
      } else st.skipping = {first: firstBytes([carry]), bytes: carry.length}
      st.carry = undefined
    }
  }

  /**
   * Splits a region that ends with a terminator (or the tail at end of file), in pieces of about
   * {@link DECODE_PIECE} bytes cut at line ends, so that one UTF-8 check covers many lines.
   */
  private split(region: Buffer, out: LineSink): void {
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

  private splitPiece(region: Buffer, out: LineSink): void {
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
        if (end - start > this.maxLineBytes) this.skipTooLong(region, start, end)
        else if (out.bytes !== undefined) this.acceptBytes(region, start, end, out)
        else this.accept(pythonStrip(region.toString('utf8', start, end)), out)
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
      if (p - start > this.maxLineBytes) this.skipTooLong(region, start, p)
      else if (isUtf8(bytes)) this.accept(pythonStrip(bytes.toString('utf8')), out)
      else {
        this.linesRead++
        this.events.invalidUtf8?.(this.linesRead, pythonStrip(bytes.toString('utf8')))
      }
      if (p < n && region[p] === CR && region[p + 1] === LF) p++
      start = p + 1
    }
  }

  /**
   * Counts and reports a line over the limit, given as its first bytes and its length (or as a whole). Without a
   * `tooLong` handler such a line is an error: no reader drops a line silently.
   */
  private skipTooLong(first: Buffer, start = 0, end = first.length, bytes = end - start): void {
    this.linesRead++
    this.tooLong++
    if (!this.events.tooLong) throw new LineTooLongError(this.linesRead, bytes, this.maxLineBytes)
    this.events.tooLong(
      this.linesRead,
      pythonStrip(first.toString('utf8', start, Math.min(end, start + PREVIEW_BYTES))),
      bytes,
    )
  }

  private accept(text: string, out: LineSink): void {
    this.linesRead++
    if (text.length === 0) this.blankLines++
    else out.text(this.linesRead, text)
  }

  /** {@link accept} for a valid UTF-8 line given as bytes: trimmed in place unless it may end in non-ASCII space. */
  private acceptBytes(region: Buffer, start: number, end: number, out: LineSink): void {
    let s = start
    let e = end
    while (s < e && isAsciiSpace(region[s])) s++
    while (e > s && isAsciiSpace(region[e - 1])) e--
    if (s < e && (region[s] >= 0x80 || region[e - 1] >= 0x80))
      return this.accept(pythonStrip(region.toString('utf8', s, e)), out)
    this.linesRead++
    if (s === e) this.blankLines++
    else (out.bytes as NonNullable<LineSink['bytes']>)(this.linesRead, region, s, e)
  }
}
