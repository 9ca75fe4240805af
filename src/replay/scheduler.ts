// The event clock of a replay (storage-replay.md §4): a binary min-heap of events keyed by (time, seq).
import {BinaryHeap} from '../util/binary-heap.js'

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
  /** a min-heap by (time, seq): FIFO among equal times */
  private readonly queue = new BinaryHeap<Ev>(
    (a, b) => a.time < b.time || (a.time === b.time && a.seq < b.seq),
  )
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
    this.queue.push({time: Math.max(t, this.current), seq: this.seq++, id, kind, fn})
    this.oneShots++
    return id
  }

  after(dt: number, kind: string, fn: () => void): EventId {
    return this.at(this.current + dt, kind, fn)
  }

  every(period: number, firstAt: number, kind: string, fn: () => void): EventId {
    const id = this.nextId++
    this.queue.push({time: firstAt, seq: this.seq++, id, kind, fn, periodic: {period, firstAt, k: 0}})
    return id
  }

  cancel(id: EventId): void {
    this.cancelled.add(id)
  }

  /** Time of the earliest live event, or undefined. */
  peekTime(): number | undefined {
    this.dropCancelled()
    return this.queue.peek()?.time
  }

  get pendingOneShots(): number {
    return this.oneShots
  }

  /** Runs every event with time ≤ t in (time, seq) order; the clock follows each event. */
  runUpTo(t: number, beforeEach?: (time: number) => void): void {
    for (;;) {
      this.dropCancelled()
      const top = this.queue.peek()
      if (top === undefined || top.time > t) return
      this.queue.pop()
      beforeEach?.(top.time)
      this.setNow(top.time)
      this.fire(top)
    }
  }

  /** Runs one-shot events (periodic ones interleaved) until none is pending; then drops periodic events. */
  drain(beforeEach?: (time: number) => void): void {
    while (this.oneShots > 0) {
      this.dropCancelled()
      const top = this.queue.peek()
      if (top === undefined) break
      this.queue.pop()
      beforeEach?.(top.time)
      this.setNow(top.time)
      this.fire(top)
    }
    this.queue.clear()
  }

  /** Pending events as (time, kind), in (time, seq) order (for snapshots). */
  pending(): Array<{time: number; kind: string}> {
    return [...this.queue.items]
      .filter((e) => !this.cancelled.has(e.id))
      .sort((a, b) => a.time - b.time || a.seq - b.seq)
      .map((e) => ({time: e.time, kind: e.kind}))
  }

  private fire(e: Ev): void {
    if (e.periodic) {
      const p = e.periodic
      p.k++
      // re-armed before running, with a new seq: FIFO among equal times
      this.queue.push({...e, time: p.firstAt + p.k * p.period, seq: this.seq++})
    } else this.oneShots--
    e.fn()
  }

  private dropCancelled(): void {
    while (this.queue.size > 0 && this.cancelled.has((this.queue.peek() as Ev).id)) {
      const e = this.queue.pop() as Ev
      if (!e.periodic) this.oneShots--
      this.cancelled.delete(e.id)
    }
  }
}
