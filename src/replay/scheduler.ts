// The event clock of a replay (docs/storage-replay.md §4): a binary min-heap of events keyed by (time, seq).
import {BinaryHeap} from '../util/binary-heap.js'

export type EventId = number

/**
 * A periodic callback. It may return a function to say that nothing it looks at can change until another event runs
 * or the next record is due (§4.3): the firings until then are skipped, and the function is called with their number
 * so that it can count them as if they had run.
 */
export type PeriodicFn = () => void | ((skipped: number) => void)

interface Ev {
  time: number
  seq: number
  id: EventId
  kind: string
  fn: PeriodicFn
  periodic?: {period: number; firstAt: number; k: number}
}

export interface Scheduler {
  now(): number
  at(t: number, kind: string, fn: () => void): EventId
  after(dt: number, kind: string, fn: () => void): EventId
  every(period: number, firstAt: number, kind: string, fn: PeriodicFn): EventId
  cancel(id: EventId): void
}

/**
 * The firing after the k-th. Beyond 2^53 (a trace time of 285 million years, met only in a corrupt trace) k + 1 is k
 * again: step to the next representable count instead, so that time always moves on.
 */
function nextCount(k: number): number {
  const next = k + 1
  return next > k ? next : k + 2 ** (Math.floor(Math.log2(k)) - 52)
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

  every(period: number, firstAt: number, kind: string, fn: PeriodicFn): EventId {
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

  /** Runs every event with time ≤ t in (time, seq) order; the clock follows each event. */
  runUpTo(t: number, beforeEach?: (time: number) => void): void {
    while (this.runNext(t, beforeEach));
  }

  /** Runs one-shot events (periodic ones interleaved) until none is pending; then drops periodic events. */
  drain(beforeEach?: (time: number) => void): void {
    while (this.oneShots > 0 && this.runNext(Infinity, beforeEach));
    this.queue.clear()
  }

  /** Runs the earliest live event if its time is ≤ limit; false when there is none. */
  private runNext(limit: number, beforeEach?: (time: number) => void): boolean {
    this.dropCancelled()
    const top = this.queue.peek()
    if (top === undefined || top.time > limit) return false
    this.queue.pop()
    beforeEach?.(top.time)
    this.setNow(top.time)
    this.fire(top, limit)
    return true
  }

  /** Runs an event; `limit` is the time of the next record (nothing is due after it before the record runs). */
  private fire(e: Ev, limit: number): void {
    if (!e.periodic) {
      this.oneShots--
      e.fn()
      return
    }
    const p = e.periodic
    p.k = nextCount(p.k)
    // re-armed with a seq taken before running: FIFO among equal times, as if re-armed first
    const seq = this.seq++
    try {
      const idle = e.fn()
      if (typeof idle === 'function') {
        // idle: skip to the first firing at or after the next other event or record (cancelled ones only stop it
        // earlier); when there is neither, it fires on
        const until = Math.min(limit, this.queue.peek()?.time ?? Infinity)
        if (Number.isFinite(until)) {
          let k = Math.max(p.k, Math.ceil((until - p.firstAt) / p.period))
          // the division may round either way by a step
          for (let i = 0; i < 4 && p.firstAt + k * p.period < until; i++) k = nextCount(k)
          if (k - 1 > p.k && p.firstAt + (k - 1) * p.period >= until) k -= 1
          if (k > p.k) {
            idle(k - p.k)
            p.k = k
          }
        }
      }
    } finally {
      this.queue.push({...e, time: p.firstAt + p.k * p.period, seq})
    }
  }

  private dropCancelled(): void {
    while (this.queue.size > 0 && this.cancelled.has((this.queue.peek() as Ev).id)) {
      const e = this.queue.pop() as Ev
      if (!e.periodic) this.oneShots--
      this.cancelled.delete(e.id)
    }
  }
}
