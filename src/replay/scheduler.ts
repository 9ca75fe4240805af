// The event clock of a replay (storage-replay.md §4): a binary min-heap of events keyed by (time, seq).

export type EventId = number

interface Ev {
  time: number
  seq: number
  id: EventId
  kind: string
  fn: () => void
  periodic?: {period: number; firstAt: number; k: number}
}

export interface Scheduler {
  now(): number
  at(t: number, kind: string, fn: () => void): EventId
  after(dt: number, kind: string, fn: () => void): EventId
  every(period: number, firstAt: number, kind: string, fn: () => void): EventId
  cancel(id: EventId): void
}

/** Virtual (discrete-event) and realtime pacing share this queue; realtime only waits before running. */
export class EventScheduler implements Scheduler {
  private current = 0
  private seq = 0
  private nextId = 1
  private readonly heap: Ev[] = []
  private readonly cancelled = new Set<EventId>()
  private oneShots = 0

  now(): number {
    return this.current
  }

  /** Moves the clock forward (never back). */
  setNow(t: number): void {
    if (t > this.current) this.current = t
  }

  at(t: number, kind: string, fn: () => void): EventId {
    const id = this.nextId++
    this.push({time: Math.max(t, this.current), seq: this.seq++, id, kind, fn})
    this.oneShots++
    return id
  }

  after(dt: number, kind: string, fn: () => void): EventId {
    return this.at(this.current + dt, kind, fn)
  }

  every(period: number, firstAt: number, kind: string, fn: () => void): EventId {
    const id = this.nextId++
    this.push({time: firstAt, seq: this.seq++, id, kind, fn, periodic: {period, firstAt, k: 0}})
    return id
  }

  cancel(id: EventId): void {
    this.cancelled.add(id)
  }

  /** Time of the earliest live event, or undefined. */
  peekTime(): number | undefined {
    this.dropCancelled()
    return this.heap[0]?.time
  }

  get pendingOneShots(): number {
    return this.oneShots
  }

  /** Runs every event with time ≤ t in (time, seq) order; the clock follows each event. */
  runUpTo(t: number, beforeEach?: (time: number) => void): void {
    for (;;) {
      this.dropCancelled()
      const top = this.heap[0]
      if (top === undefined || top.time > t) return
      this.pop()
      beforeEach?.(top.time)
      this.setNow(top.time)
      this.fire(top)
    }
  }

  /** Runs one-shot events (periodic ones interleaved) until none is pending; then drops periodic events. */
  drain(beforeEach?: (time: number) => void): void {
    while (this.oneShots > 0) {
      this.dropCancelled()
      const top = this.heap[0]
      if (top === undefined) break
      this.pop()
      beforeEach?.(top.time)
      this.setNow(top.time)
      this.fire(top)
    }
    this.heap.length = 0
  }

  /** Pending events as (time, kind), in (time, seq) order (for snapshots). */
  pending(): Array<{time: number; kind: string}> {
    return [...this.heap]
      .filter((e) => !this.cancelled.has(e.id))
      .sort((a, b) => a.time - b.time || a.seq - b.seq)
      .map((e) => ({time: e.time, kind: e.kind}))
  }

  private fire(e: Ev): void {
    if (e.periodic) {
      const p = e.periodic
      p.k++
      // re-armed before running, with a new seq: FIFO among equal times
      this.push({...e, time: p.firstAt + p.k * p.period, seq: this.seq++})
    } else this.oneShots--
    e.fn()
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.cancelled.has(this.heap[0].id)) {
      const e = this.pop()
      if (!e.periodic) this.oneShots--
      this.cancelled.delete(e.id)
    }
  }

  private less(a: Ev, b: Ev): boolean {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq)
  }

  private push(e: Ev): void {
    const h = this.heap
    h.push(e)
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.less(h[i], h[p])) break
      ;[h[i], h[p]] = [h[p], h[i]]
      i = p
    }
  }

  private pop(): Ev {
    const h = this.heap
    const top = h[0]
    const last = h.pop() as Ev
    if (h.length > 0) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && this.less(h[l], h[m])) m = l
        if (r < h.length && this.less(h[r], h[m])) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m], h[i]]
        i = m
      }
    }
    return top
  }
}
