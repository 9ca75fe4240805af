// Lines as bytes: a batch of the reader's non-blank trimmed lines in one buffer with their offsets and numbers.
// It crosses to worker threads as four buffers (no string per line on either side), and a line becomes a string
// only when someone reads its text.

import {grown} from '../../util/grown.js'

/** A non-blank input line: 1-based number (blank lines counted) and its trimmed text. */
export interface InputLine {
  readonly lineNo: number
  readonly text: string
}

/** What a batch is made of (also its form on a worker thread, after structured cloning). */
export interface LineBatchData {
  /**
   * the lines' UTF-8 bytes, valid and trimmed, one after another, each followed by a 0 byte (a sentinel that ends
   * every JSON item, so scanners need no bounds checks; see fast/json-scan-bytes.ts)
   */
  bytes: Uint8Array
  /** line i is bytes[starts[i], ends[i]) */
  starts: Int32Array
  ends: Int32Array
  /** 1-based line numbers (blank lines counted) */
  lineNos: Int32Array
  count: number
}

const decoder = new TextDecoder('utf-8')

/** One line of a batch; its text is decoded when first read. */
class BatchLine implements InputLine {
  private decoded: string | undefined

  constructor(
    private readonly batch: LineBatch,
    private readonly index: number,
    readonly lineNo: number,
  ) {}

  get text(): string {
    return (this.decoded ??= this.batch.text(this.index))
  }
}

export class LineBatch implements LineBatchData {
  constructor(
    readonly bytes: Uint8Array,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
    readonly lineNos: Int32Array,
    readonly count: number,
  ) {}

  /** A batch over data received from another thread. */
  static of(d: LineBatchData): LineBatch {
    return new LineBatch(d.bytes, d.starts, d.ends, d.lineNos, d.count)
  }

  /** The batch's fields, to post to another thread (copied, or moved when {@link buffers} are transferred). */
  data(): LineBatchData {
    return {bytes: this.bytes, starts: this.starts, ends: this.ends, lineNos: this.lineNos, count: this.count}
  }

  /** The batch's buffers (to transfer: this batch is then unusable here until they come back). */
  buffers(): ArrayBuffer[] {
    const all = [
      this.bytes.buffer,
      this.starts.buffer,
      this.ends.buffer,
      this.lineNos.buffer,
    ] as ArrayBuffer[]
    return [...new Set(all)]
  }

  /** Line i's text. */
  text(i: number): string {
    return decoder.decode(this.bytes.subarray(this.starts[i], this.ends[i]))
  }

  /** Line i as an InputLine (for skip, drop, converted and warnings); its text is decoded only if read. */
  line(i: number): InputLine {
    return new BatchLine(this, i, this.lineNos[i])
  }
}

const encoder = new TextEncoder()

/** A done batch's buffers, whole, to build another batch in (its lines are overwritten). */
function spareOf(batch: LineBatch): LineBatchData {
  const whole = <T extends Uint8Array | Int32Array>(a: T): T =>
    new (a.constructor as new (b: ArrayBufferLike) => T)(a.buffer)
  return {
    bytes: whole(batch.bytes),
    starts: whole(batch.starts),
    ends: whole(batch.ends),
    lineNos: whole(batch.lineNos),
    count: 0,
  }
}

/** Buffers of batches their reader is done with, handed back from wherever the batches went (a few kept). */
export class LineBatchSpares {
  private readonly kept: LineBatchData[] = []

  constructor(private readonly most = 4) {}

  /** A batch nobody reads any more (its lines, texts included, are read already). */
  give(batch: LineBatch): void {
    if (this.kept.length < this.most) this.kept.push(spareOf(batch))
  }

  take(): LineBatchData | undefined {
    return this.kept.pop()
  }
}

/** Collects lines into batches of about {@link LineBatchBuilder.maxLines} lines or {@link maxBytes} bytes. */
export class LineBatchBuilder {
  private bytes: Uint8Array = new Uint8Array(0)
  private used = 0
  private starts: Int32Array = new Int32Array(0)
  private ends: Int32Array = new Int32Array(0)
  private lineNos: Int32Array = new Int32Array(0)
  private n = 0
  private readonly sealed: LineBatch[] = []
  /** the buffers of a batch its reader is done with, for the next batch (no new, zero-filled buffer per batch) */
  private spare: LineBatchData | undefined

  constructor(
    readonly maxLines = 512,
    readonly maxBytes = 512 << 10,
    /** where batches handed back after their trip come from (see {@link LineBatchSpares}) */
    private readonly spares?: LineBatchSpares,
  ) {}

  /** Batches complete so far (taken, so each is handed out once). */
  take(): LineBatch[] {
    return this.sealed.splice(0)
  }

  /** Appends the bytes region[start, end) as line `lineNo` (valid UTF-8, trimmed, not blank). */
  addBytes(lineNo: number, region: Uint8Array, start: number, end: number): void {
    const len = end - start
    this.room(len + 1)
    this.bytes.set(region.subarray(start, end), this.used)
    this.push(lineNo, len)
  }

  /** Appends a line given as text (trimmed, not blank). */
  addText(lineNo: number, text: string): void {
    this.room(text.length * 3 + 1)
    const {written} = encoder.encodeInto(text, this.bytes.subarray(this.used))
    this.push(lineNo, written)
  }

  /** Ends the open batch (at the end of a chunk or of the input). */
  seal(): void {
    if (this.n === 0) return
    this.sealed.push(
      new LineBatch(
        this.bytes.subarray(0, this.used),
        this.starts.subarray(0, this.n),
        this.ends.subarray(0, this.n),
        this.lineNos.subarray(0, this.n),
        this.n,
      ),
    )
    // the next batch gets buffers of its own (a spare one's, or new): a sealed batch may live on while the next
    // is built
    const spare = this.spare ?? this.spares?.take()
    this.spare = undefined
    this.bytes = spare?.bytes ?? new Uint8Array(0)
    this.used = 0
    this.starts = spare?.starts ?? new Int32Array(0)
    this.ends = spare?.ends ?? new Int32Array(0)
    this.lineNos = spare?.lineNos ?? new Int32Array(0)
    this.n = 0
  }

  /**
   * Hands back a batch this builder made, which nobody reads any more (its lines, texts included, are read
   * already): the next batch is built in its buffers, overwriting it.
   */
  recycle(batch: LineBatch): void {
    this.spare = spareOf(batch)
  }

  private room(len: number): void {
    if (this.n === this.starts.length) {
      const cap = Math.max(this.maxLines, this.n * 2)
      this.starts = grown(this.starts, cap)
      this.ends = grown(this.ends, cap)
      this.lineNos = grown(this.lineNos, cap)
    }
    if (this.used + len > this.bytes.length) {
      const size = Math.max(this.maxBytes + (64 << 10), 2 * this.bytes.length, this.used + len)
      this.bytes = grown(this.bytes, size, this.used)
    }
  }

  private push(lineNo: number, len: number): void {
    this.starts[this.n] = this.used
    this.used += len
    this.ends[this.n] = this.used
    this.bytes[this.used++] = 0 // the sentinel
    this.lineNos[this.n] = lineNo
    this.n++
    if (this.n >= this.maxLines || this.used >= this.maxBytes) this.seal()
  }
}
