import {join} from 'node:path'
import {BinaryHeap} from '../util/binary-heap.js'
import {bufferPerLine, type LineStore} from './lines.js'
import {BufferedWriter, type RunFile} from './run-files.js'

interface Item {
  ts: bigint
  /** emission order: ties on ts keep it */
  seq: number
  /** what the line store holds for the line (its newline included) */
  line: unknown
  /** bytes of the line (see LineStore.size) */
  size: number
}

export interface TraceSorterOptions {
  /** Private temporary directory for runs. */
  tempDir: string
  /** Unique prefix for this sorter's run files. */
  name: string
  /** When set, the first run is written here without a timestamp prefix (it may become the output as is). */
  directPath?: string
  /** Traces held back to absorb local disorder before the stream is declared unsorted. */
  windowSize?: number
  /** Line bytes held back at most in that window. */
  windowChars?: number
  /** Line bytes held in memory per spilled chunk once the input turned out unsorted. */
  chunkChars?: number
  /** Where the lines pushed come from and how they are written (default: a buffer per line). */
  lines?: LineStore
}

const byTimestamp = (a: Item, b: Item): number => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.seq - b.seq)
const before = (a: Item, b: Item): boolean => a.ts < b.ts || (a.ts === b.ts && a.seq < b.seq)

/**
 * Stable sort of one input's traces by `timestamp_ns` (ties keep emission order) in bounded memory.
 *
 * Traces pass through a window (the traces in time order as they came, and a heap of the ones that came late, so a
 * late trace costs O(log window)); when it is full its minimum is written to the first run. Time-sorted input
 * (or input with disorder smaller than the window) thus streams straight through. If a trace arrives that sorts
 * before one already written, the sorter switches to an external merge sort: the part written so far is the first
 * run, the window and later traces are sorted in chunks and spilled as further runs. Ties across runs resolve by run
 * order, which equals emission order, so merging the runs by (timestamp, run index) is the stable sort.
 */
export class TraceSorter {
  private readonly windowSize: number
  private readonly windowChars: number
  private windowText = 0
  private readonly chunkChars: number
  /** window traces that came in time order (ascending from head) */
  private window: Item[] = []
  private head = 0
  /** window traces that came before the last of `window` in time */
  private late = new BinaryHeap<Item>(before)
  private lastWritten: bigint | undefined
  private first: BufferedWriter | undefined
  private readonly firstRun: RunFile
  private spilling = false
  private chunk: Item[] = []
  private chunkSize = 0
  private readonly runs: RunFile[] = []
  private pendingCloses: Array<Promise<void>> = []
  private readonly lines: LineStore
  count = 0

  constructor(private readonly opts: TraceSorterOptions) {
    this.windowSize = opts.windowSize ?? 65_536
    this.windowChars = opts.windowChars ?? 8 << 20
    this.chunkChars = opts.chunkChars ?? 32 << 20
    this.lines = opts.lines ?? bufferPerLine
    const path = opts.directPath ?? join(opts.tempDir, `${opts.name}-run0.txt`)
    this.firstRun = {path, prefixed: opts.directPath === undefined, count: 0}
    this.first = new BufferedWriter(path)
    this.runs.push(this.firstRun)
  }

  /** True once the input proved unsorted beyond the window. */
  get spilled(): boolean {
    return this.spilling
  }

  /** Takes a line of the sorter's line store. */
  push(ts: bigint, line: unknown): void {
    this.pushItem({ts, seq: 0, line, size: this.lines.size(line)})
  }

  private pushItem(item: Item): void {
    const ts = item.ts
    item.seq = this.count++
    if (this.spilling) return this.pushChunk(item)
    if (this.lastWritten !== undefined && ts < this.lastWritten) {
      this.startSpilling()
      return this.pushChunk(item)
    }
    const w = this.window
    if (w.length === this.head || ts >= w[w.length - 1].ts) w.push(item)
    else this.late.push(item)
    this.windowText += item.size
    while (w.length - this.head + this.late.size > this.windowSize || this.windowText > this.windowChars) {
      const oldest = this.takeOldest()
      this.writeFirst(oldest)
      this.windowText -= oldest.size
    }
  }

  /** Removes and returns the window's first trace by (timestamp, emission order). */
  private takeOldest(): Item {
    const w = this.window
    const top = this.late.peek()
    if (top !== undefined && (this.head === w.length || before(top, w[this.head])))
      return this.late.pop() as Item
    const oldest = w[this.head]
    w[this.head++] = undefined as unknown as Item
    if (this.head === w.length) {
      w.length = 0
      this.head = 0
    } else if (this.head >= 4096 && this.head * 2 >= w.length) {
      w.splice(0, this.head)
      this.head = 0
    }
    return oldest
  }

  /** True when written data waits for the disk; the producer should await {@link settle}. */
  get backlogged(): boolean {
    return (this.first?.backlogged ?? false) || this.pendingCloses.length > 0
  }

  async settle(): Promise<void> {
    await this.first?.drain()
    const closing = this.pendingCloses
    this.pendingCloses = []
    await Promise.all(closing)
  }

  /** Ends the input; returns its sorted runs in run order. */
  async finish(): Promise<RunFile[]> {
    if (!this.spilling) {
      while (this.head < this.window.length || this.late.size > 0) this.writeFirst(this.takeOldest())
      this.closeFirst()
    } else if (this.chunk.length > 0) this.spillChunk()
    await this.settle()
    return this.runs
  }

  /** Releases open files after a failure (the caller removes the directory). */
  abandon(): void {
    this.first?.abandon()
    this.first = undefined
  }

  private writeFirst(item: Item): void {
    const w = this.first as BufferedWriter
    if (this.firstRun.prefixed) w.ascii(`${item.ts}\t`)
    this.lines.write(item.line, w)
    this.firstRun.count++
    this.lastWritten = item.ts
  }

  private closeFirst(): void {
    if (this.first) this.pendingCloses.push(this.first.close())
    this.first = undefined
  }

  private startSpilling(): void {
    this.spilling = true
    this.closeFirst()
    // (the chunk is sorted by timestamp and emission order: the order they go in does not matter)
    for (let i = this.head; i < this.window.length; i++) this.pushChunk(this.window[i])
    for (const item of this.late.items) this.pushChunk(item)
    this.window = []
    this.head = 0
    this.late.clear()
  }

  private pushChunk(item: Item): void {
    this.chunk.push(item)
    this.chunkSize += item.size + 24
    if (this.chunkSize >= this.chunkChars) this.spillChunk()
  }

  private spillChunk(): void {
    this.chunk.sort(byTimestamp)
    const run: RunFile = {
      path: join(this.opts.tempDir, `${this.opts.name}-run${this.runs.length}.txt`),
      prefixed: true,
      count: 0,
    }
    const w = new BufferedWriter(run.path)
    for (const item of this.chunk) {
      w.ascii(`${item.ts}\t`)
      this.lines.write(item.line, w) // nothing of the chunk's lines is needed once written here
    }
    this.pendingCloses.push(w.close())
    run.count = this.chunk.length
    this.runs.push(run)
    this.chunk = []
    this.chunkSize = 0
  }
}
