/** Slabs kept for reuse at most (a run's sort window spans a handful of them). */
const SPARE_SLABS = 8
/** pieces up to this length are copied by a loop (a runtime call costs more) */
const SHORT_PIECE = 48

/** A finished line: `slab[start, end)` */
export interface StoredLine {
  slab: Buffer
  start: number
  end: number
}

// Node's direct encoders (not in @types/node, stable for a decade): no argument juggling per call
type FastBuffer = Buffer & {
  latin1Write(s: string, offset: number): number
  utf8Write(s: string, offset: number): number
}

/**
 * Encoded lines live in large shared slabs rather than one Buffer each: the sort window holds thousands of lines,
 * and per-line buffers cost an allocation, a copy and garbage-collector time per trace. The arena counts the
 * lines of each slab; once every line of a filled slab has been {@link release}d (written out by the sorter), the
 * slab is reused for later lines instead of a new one: a long run allocates a few slabs, not one per MiB of output
 * left for the collector. A slab whose lines are never all released is left to the collector.
 *
 * One line is written at a time: {@link begin}, then its pieces, then {@link end}.
 */
export class LineArena {
  private slab: FastBuffer
  /** where the line being written starts in the slab */
  private start = 0
  /** the write position of the line being written (see ByteSink.pos) */
  pos = 0
  /** lines committed and not yet released, per slab (the current one and filled ones still referred to) */
  private readonly live = new WeakMap<Buffer, number>()
  private readonly spares: Buffer[] = []

  constructor(private readonly slabBytes = 1 << 20) {
    this.slab = Buffer.allocUnsafe(slabBytes) as FastBuffer
  }

  /**
   * A stored line is no longer needed (its bytes were copied out): its slab may be reused once it has none left.
   * Call it once per line (the sorter does, as it writes each line out).
   */
  release(line: StoredLine): void {
    const n = this.live.get(line.slab)
    if (n === undefined) return // a slab whose lines are all out already
    if (n > 1) this.live.set(line.slab, n - 1)
    else {
      this.live.delete(line.slab)
      if (line.slab !== this.slab) this.spare(line.slab)
    }
  }

  private spare(slab: Buffer): void {
    if (slab.length === this.slabBytes && this.spares.length < SPARE_SLABS) this.spares.push(slab)
  }

  /** Starts a line after the last one ended. */
  begin(): this {
    this.start = this.pos
    return this
  }

  /** Room for `n` more bytes at {@link pos} (see ByteSink.room): the line moves to a new slab when it needs one. */
  room(n: number): Buffer {
    if (this.pos + n <= this.slab.length) return this.slab
    const used = this.pos - this.start
    const reused = used + n <= this.slabBytes ? this.spares.pop() : undefined
    const next = reused ?? Buffer.allocUnsafe(Math.max(this.slabBytes, (used + n) * 2))
    this.slab.copy(next, 0, this.start, this.pos)
    if (!this.live.has(this.slab)) this.spare(this.slab) // every line of the filled slab is out already
    this.slab = next as FastBuffer
    this.start = 0
    this.pos = used
    return next
  }

  /** ASCII-only text (digits, punctuation, field names); short pieces by a loop, cheaper than a runtime call. */
  ascii(s: string): void {
    const n = s.length
    const slab = this.room(n)
    if (n <= SHORT_PIECE) {
      let p = this.pos
      for (let i = 0; i < n; i++) slab[p++] = s.charCodeAt(i)
      this.pos = p
    } else this.pos += this.slab.latin1Write(s, this.pos)
  }

  text(s: string): void {
    this.room(s.length * 3)
    this.pos += this.slab.utf8Write(s, this.pos)
  }

  /** Ends the line begun last. */
  end(): StoredLine {
    this.live.set(this.slab, (this.live.get(this.slab) ?? 0) + 1)
    return {slab: this.slab, start: this.start, end: this.pos}
  }
}
