/** Slabs kept for reuse at most (a run's sort window spans a handful of them). */
const SPARE_SLABS = 8

/**
 * Encoded lines live in large shared slabs rather than one Buffer each: the sort window holds thousands of lines,
 * and per-line buffers cost an allocation, a copy and garbage-collector time per trace. The arena counts the
 * lines of each slab; once every line of a filled slab has been {@link release}d (written out by the sorter), the
 * slab is reused for later lines instead of a new one: a long run allocates a few slabs, not one per MiB of output
 * left for the collector. A slab whose lines are never all released is left to the collector, as before.
 */
export class LineArena {
  private slab: Buffer
  private pos = 0
  /** lines committed and not yet released, per slab (the current one and filled ones still referred to) */
  private readonly live = new WeakMap<Buffer, number>()
  private readonly spares: Buffer[] = []

  constructor(private readonly slabBytes = 1 << 20) {
    this.slab = Buffer.allocUnsafe(slabBytes)
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

  /** Starts a line; returns the writer positioned at its first byte. */
  begin(): LineSlot {
    return this.slot.reset(this)
  }

  private readonly slot = new LineSlot()

  /** @internal room for `n` more bytes after `used` bytes of the line started at `start` */
  grow(start: number, used: number, n: number): {slab: Buffer; start: number} {
    const fits = used + n <= this.slabBytes
    const reused = fits ? this.spares.pop() : undefined
    const next = reused ?? Buffer.allocUnsafe(Math.max(this.slabBytes, (used + n) * 2))
    this.slab.copy(next, 0, start, start + used)
    if (!this.live.has(this.slab)) this.spare(this.slab) // every line of the filled slab is out already
    this.slab = next
    this.pos = 0
    return {slab: next, start: 0}
  }

  /** @internal */
  current(): {slab: Buffer; pos: number} {
    return {slab: this.slab, pos: this.pos}
  }

  /** @internal */
  commit(end: number): void {
    this.pos = end
    this.live.set(this.slab, (this.live.get(this.slab) ?? 0) + 1)
  }
}

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

const SHORT_PIECE = 48

/** Appends the pieces of one line to the arena (reused: one line at a time). */
export class LineSlot {
  private arena!: LineArena
  private slab!: FastBuffer
  private start = 0
  private position = 0

  reset(arena: LineArena): this {
    this.arena = arena
    const c = arena.current()
    this.slab = c.slab as FastBuffer
    this.start = c.pos
    this.position = c.pos
    return this
  }

  private reserve(n: number): void {
    if (this.position + n <= this.slab.length) return
    const used = this.position - this.start
    const g = this.arena.grow(this.start, used, n)
    this.slab = g.slab as FastBuffer
    this.start = 0
    this.position = used
  }

  /** Room for `n` more bytes at {@link pos} (see ByteSink.room). */
  room(n: number): Buffer {
    this.reserve(n)
    return this.slab
  }

  get pos(): number {
    return this.position
  }

  set pos(p: number) {
    this.position = p
  }

  /** ASCII-only text (digits, punctuation, field names); short pieces by a loop, cheaper than a runtime call. */
  ascii(s: string): void {
    const n = s.length
    this.reserve(n)
    if (n <= SHORT_PIECE) {
      const slab = this.slab
      let p = this.position
      for (let i = 0; i < n; i++) slab[p++] = s.charCodeAt(i)
      this.position = p
    } else this.position += this.slab.latin1Write(s, this.position)
  }

  text(s: string): void {
    this.reserve(s.length * 3)
    this.position += this.slab.utf8Write(s, this.position)
  }

  end(): StoredLine {
    this.arena.commit(this.position)
    return {slab: this.slab, start: this.start, end: this.position}
  }
}
