import {inputReadHints, LCT_NOT_A_TRACE_HINT, LctError, lctError} from '../../errors.js'
import {pyBytesRepr} from '../../util/pyfmt.js'
import {ByteWindow, type LctSource} from './byte-source.js'
import {DEFAULT_MAX_FRAME_BYTES} from './constants.js'
import {decodeHeader, decodeRecordBody, FieldError} from './frame-decode.js'
import {MsgpackError, readU32} from './msgpack.js'
import {plainDecoding} from './record-decoding.js'
import {ARGS_DECODED, type MarkedRecord} from './record-args.js'
import type {
  DecodedRecordFields,
  LctFrame,
  LctHeader,
  LctReadOptions,
  LctReadState,
  LctRecord,
  LctWarning,
  TraceCount,
} from './types.js'

export type {LctSource}

const MAX_KEPT_WARNINGS = 1000
const BATCH_RECORDS = 128

function ioError(name: string, err: unknown): LctError {
  return lctError(
    'LCT_IO',
    {source: name, offset: 0, suggestions: inputReadHints(err, 'a trace')},
    (err as Error)?.message ?? String(err),
  )
}

/** A frame after the header, as the lenient reader sees it: its body is `buf[start, start + length)`. */
type RawFrame =
  | {kind: 'frame'; offset: number; length: number; buf: Buffer; start: number}
  | {kind: 'oversized'; offset: number; length: number}

type FrameRef = Extract<RawFrame, {kind: 'frame'}>

/**
 * The frame layer: strict header, then lenient frames (truncated tail = warning and stop, oversized = discarded
 * unbuffered). Shared by the record reader, the raw frame iterator and the counting path. Warnings wait in
 * `pending` until the reader delivers them, after the records read before them.
 */
class FrameSource {
  readonly state: LctReadState = {
    records: 0,
    framesSkipped: 0,
    truncated: false,
    endOffset: 0,
    warnings: [],
    warningCount: 0,
  }
  header!: LctHeader
  headerLength = 0
  headerBody!: Uint8Array
  private pending: LctWarning[] = []

  constructor(
    readonly window: ByteWindow,
    readonly name: string,
    readonly maxFrameBytes: number,
    private readonly onWarning?: (w: LctWarning) => void,
  ) {}

  warn(code: string, offset: number, message: string): void {
    const w = {code, offset, message}
    this.state.warningCount++
    if (this.state.warnings.length < MAX_KEPT_WARNINGS) this.state.warnings.push(w)
    this.pending.push(w)
  }

  get hasPendingWarnings(): boolean {
    return this.pending.length > 0
  }

  flushWarnings(): void {
    if (this.pending.length === 0) return
    const held = this.pending
    this.pending = []
    for (const w of held) this.onWarning?.(w)
  }

  private async ensure(n: number): Promise<boolean> {
    try {
      return await this.window.ensure(n)
    } catch (err) {
      throw ioError(this.name, err)
    }
  }

  async readHeader(): Promise<void> {
    const w = this.window
    if (!(await this.ensure(4))) {
      if (w.available === 0) throw lctError('LCT_EMPTY', {source: this.name, offset: 0})
      throw lctError('LCT_TRUNCATED', {source: this.name, offset: 0}, 0)
    }
    // text where the length prefix should be: no header frame is that large, so the file is not an .lct at all
    if (looksLikeText(w.buf, w.pos))
      throw lctError(
        'LCT_BAD_MAGIC',
        {source: this.name, offset: 0, suggestions: [LCT_TEXT_HINT]},
        pyBytesRepr(w.buf.subarray(w.pos, w.pos + 4)),
      )
    const n = readU32(w.buf, w.pos)
    if (n > this.maxFrameBytes)
      throw lctError(
        'LCT_FRAME_TOO_LARGE',
        {
          source: this.name,
          offset: 0,
          suggestions: ['if the file is an LMCache trace with a header that large, raise --max-frame-bytes'],
        },
        n,
        this.maxFrameBytes,
      )
    if (!(await this.ensure(4 + n)))
      throw lctError('LCT_TRUNCATED', {source: this.name, offset: 4}, 4, w.available - 4, n)
    const body = Uint8Array.prototype.slice.call(w.buf, w.pos + 4, w.pos + 4 + n) as Uint8Array
    w.consume(4 + n)
    this.header = decodeHeader(body, this.name)
    this.headerLength = n
    this.headerBody = body
    this.state.endOffset = w.offset
  }

  /** The next frame if its bytes are already buffered: a run of them is taken without a promise per frame. */
  nextBuffered(): FrameRef | undefined {
    const w = this.window
    if (w.available < 4) return undefined
    const n = readU32(w.buf, w.pos)
    if (n > this.maxFrameBytes || w.available < 4 + n) return undefined
    const f: FrameRef = {kind: 'frame', offset: w.offset, length: n, buf: w.buf, start: w.pos + 4}
    w.consume(4 + n)
    this.state.endOffset = w.offset
    return f
  }

  /**
   * The frames after the header in runs: each value is the first frame of a run, read in (undefined for the first
   * run), and the run's other frames follow from {@link nextBuffered}. A run's frames are valid until the next run.
   */
  async *runs(): AsyncGenerator<RawFrame | undefined> {
    let first: RawFrame | undefined
    do yield first
    while ((first = await this.awaitedFrame()) !== undefined)
  }

  /** The frame at the window's start once read in; undefined at the end (a cut-short tail is warned of). */
  private async awaitedFrame(): Promise<RawFrame | undefined> {
    const w = this.window
    const start = w.offset
    await this.ensure(4)
    if (w.available === 0) return undefined
    if (w.available < 4) {
      this.state.truncated = true
      this.warn('LMT_LCT_TRUNCATED_PREFIX', start, `truncated frame length prefix at offset ${start}`)
      w.consume(w.available)
      this.state.endOffset = w.offset
      return undefined
    }
    const n = readU32(w.buf, w.pos)
    let got: number
    if (n > this.maxFrameBytes) {
      this.warn(
        'LMT_LCT_OVERSIZED_FRAME',
        start,
        `skipping oversized frame at offset ${start}: declares ${n} bytes, above the frame limit of ${this.maxFrameBytes} bytes`,
      )
      w.consume(4)
      got = await w.discard(n)
      this.state.endOffset = w.offset
      if (got === n) {
        this.state.framesSkipped++
        return {kind: 'oversized', offset: start, length: n}
      }
    } else if (await this.ensure(4 + n)) return this.nextBuffered()
    else {
      got = w.available - 4
      w.consume(w.available)
      this.state.endOffset = w.offset
    }
    this.state.truncated = true
    this.warn(
      'LMT_LCT_TRUNCATED_BODY',
      start + 4,
      `truncated frame body at offset ${start + 4} (got ${got} of ${n})`,
    )
    return undefined
  }

  /** Counts and warns of a frame whose body does not decode ({@link isDecodeError}); returns the detail. */
  malformed(offset: number, length: number, err: unknown): string {
    const detail = (err as Error).message
    this.state.framesSkipped++
    this.warn(
      'LMT_LCT_MALFORMED_RECORD',
      offset,
      `skipping malformed record at offset ${offset} (frame length ${length}): ${detail}`,
    )
    return detail
  }
}

function isDecodeError(err: unknown): boolean {
  return err instanceof MsgpackError || err instanceof FieldError
}

/** A trace opened by {@link openTrace}: its header, and its records (or raw frames) read once, in order. */
export class TraceReader implements AsyncIterable<LctRecord> {
  readonly header: LctHeader
  readonly headerLength: number
  readonly headerBody: Uint8Array
  readonly state: LctReadState
  private started = false
  private closed = false

  constructor(
    private readonly fs: FrameSource,
    private readonly decode: (body: Uint8Array, start: number, end: number) => DecodedRecordFields,
  ) {
    ;({
      header: this.header,
      headerLength: this.headerLength,
      headerBody: this.headerBody,
      state: this.state,
    } = fs)
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<LctRecord> {
    return this.records()
  }

  private begin(): void {
    if (this.closed) throw lctError('LCT_CLOSED', {source: this.fs.name, offset: this.fs.state.endOffset})
    if (this.started) throw new Error('a trace reader can be iterated once')
    this.started = true
  }

  private toRecord(f: FrameRef): LctRecord | undefined {
    try {
      const r = this.decode(f.buf, f.start, f.start + f.length)
      const record: MarkedRecord = {
        tMono: r.tMono,
        tWall: r.tWall,
        qualname: r.qualname,
        args: r.args,
        offset: f.offset,
        length: f.length,
        index: this.fs.state.records++,
        [ARGS_DECODED]: false,
      }
      return record
    } catch (err) {
      if (!isDecodeError(err)) throw err
      this.fs.malformed(f.offset, f.length, err)
      return undefined
    }
  }

  async *records(): AsyncIterableIterator<LctRecord> {
    for await (const batch of this.batches()) yield* batch
  }

  /** The records in batches; a warning reaches onWarning after the records read before it, and before those after. */
  async *batches(): AsyncIterableIterator<LctRecord[]> {
    this.begin()
    const fs = this.fs
    try {
      for await (const first of fs.runs()) {
        fs.flushWarnings() // an oversized frame or a truncated tail
        let batch: LctRecord[] = []
        for (let f = first ?? fs.nextBuffered(); f !== undefined; f = fs.nextBuffered()) {
          if (f.kind !== 'frame') continue
          const r = this.toRecord(f)
          if (fs.hasPendingWarnings) {
            if (batch.length > 0) yield batch
            batch = []
            fs.flushWarnings()
          }
          if (r) batch.push(r)
          // small batches: few decoded records are alive at once, so a collection has little to copy
          if (batch.length === BATCH_RECORDS) {
            yield batch
            batch = []
          }
        }
        if (batch.length > 0) yield batch
      }
      fs.flushWarnings()
    } finally {
      await this.close()
    }
  }

  async *frames(): AsyncIterableIterator<LctFrame> {
    this.begin()
    const fs = this.fs
    let index = 0
    try {
      for await (const first of fs.runs()) {
        fs.flushWarnings()
        for (let f = first ?? fs.nextBuffered(); f !== undefined; f = fs.nextBuffered()) {
          index++
          if (f.kind === 'oversized') {
            yield {index, offset: f.offset, length: f.length, kind: 'oversized'}
            continue
          }
          const body = Uint8Array.prototype.slice.call(f.buf, f.start, f.start + f.length) as Uint8Array
          try {
            decodeRecordBody(body, 0, body.length)
            fs.state.records++
            yield {index, offset: f.offset, length: f.length, body, kind: 'record'}
          } catch (err) {
            if (!isDecodeError(err)) throw err
            const detail = fs.malformed(f.offset, f.length, err)
            fs.flushWarnings()
            yield {index, offset: f.offset, length: f.length, body, kind: 'malformed', error: detail}
          }
        }
      }
      fs.flushWarnings()
    } finally {
      await this.close()
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.fs.window.close()
  }
}

async function openFrames(source: LctSource, opts: LctReadOptions): Promise<FrameSource> {
  const name = opts.name ?? (typeof source === 'string' ? source : '<stream>')
  const window = ByteWindow.open(source)
  const fs = new FrameSource(window, name, opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, opts.onWarning)
  try {
    await fs.readHeader()
  } catch (err) {
    await window.close()
    throw err
  }
  return fs
}

/** Opens a trace: reads and validates the header strictly (rejects with LctError), records follow lazily. */
export async function openTrace(source: LctSource, opts: LctReadOptions = {}): Promise<TraceReader> {
  return new TraceReader(await openFrames(source, opts), (opts.decoding ?? plainDecoding).decoder())
}

/**
 * Counts records per qualname and the largest t_mono without building argument values, with exactly the
 * validation, skips and warnings of {@link openTrace} (docs/lct.md §4.7).
 */
export async function countTrace(
  source: LctSource,
  opts: LctReadOptions & {
    /** after each chunk read: bytes read so far, records counted */
    onProgress?: (bytes: number, records: number) => void
  } = {},
): Promise<TraceCount> {
  const fs = await openFrames(source, opts)
  const tally = (opts.decoding ?? plainDecoding).tally()
  try {
    for await (const first of fs.runs()) {
      for (let f = first ?? fs.nextBuffered(); f !== undefined; f = fs.nextBuffered()) {
        if (f.kind !== 'frame') continue
        try {
          tally.add(f.buf, f.start, f.start + f.length)
          fs.state.records++
        } catch (err) {
          if (!isDecodeError(err)) throw err
          fs.malformed(f.offset, f.length, err)
        }
      }
      fs.flushWarnings()
      opts.onProgress?.(fs.state.endOffset, fs.state.records)
    }
    fs.flushWarnings()
  } finally {
    await fs.window.close()
  }
  return {
    header: fs.header,
    totalRecords: fs.state.records,
    byQualname: tally.byQualname(),
    maxTMono: tally.maxTMono,
    framesSkipped: fs.state.framesSkipped,
    truncated: fs.state.truncated,
    warnings: fs.state.warnings,
    warningCount: fs.state.warningCount,
    bytesRead: fs.state.endOffset,
  }
}

/** Whether the 4 bytes at `pos` are printable ASCII (a JSONL or text file given where an .lct is expected). */
const LCT_TEXT_HINT = `the file starts with text, so it is not an LMCache trace (.lct); ${LCT_NOT_A_TRACE_HINT}`

function looksLikeText(buf: Uint8Array, pos: number): boolean {
  for (let i = pos; i < pos + 4; i++) if (buf[i] < 0x20 || buf[i] > 0x7e) return false
  return true
}
