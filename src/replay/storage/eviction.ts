// LRU and noop eviction policies and the watermark controller (docs/storage-replay.md §6.8).
import type {ObjectKey} from '../../formats/lct/values.js'
import type {Scheduler} from '../scheduler.js'
import type {KeySlot, KeySlots} from './key-slots.js'
import type {L1, L1Listener} from './l1.js'

export interface EvictionPolicy extends L1Listener {
  readonly name: 'LRU' | 'noop'
  /** keys to discard, least recent first */
  actions(ratio: number): ObjectKey[]
  order(): string[]
}

export class LruPolicy implements EvictionPolicy {
  readonly name = 'LRU'
  /** tracked keys from the least recent (head) to the most recent (tail), linked through their slots */
  private head: KeySlot | undefined
  private tail: KeySlot | undefined
  private tracked = 0

  constructor(
    private readonly reversed: boolean,
    private readonly slots: KeySlots,
  ) {}

  private unlink(s: KeySlot): void {
    if (s.lruPrev) s.lruPrev.lruNext = s.lruNext
    else this.head = s.lruNext
    if (s.lruNext) s.lruNext.lruPrev = s.lruPrev
    else this.tail = s.lruPrev
    s.lruPrev = s.lruNext = undefined
  }

  private append(s: KeySlot): void {
    s.lruPrev = this.tail
    s.lruNext = undefined
    if (this.tail) this.tail.lruNext = s
    else this.head = s
    this.tail = s
  }

  /** Makes k the most recent key (tracking it unless `onlyTracked`); the newest key instance is kept. */
  private touch(k: ObjectKey, onlyTracked: boolean): void {
    const s = onlyTracked ? this.slots.find(k) : this.slots.of(k)
    if (s === undefined) return
    if (s.lruTracked) {
      if (s !== this.tail) {
        this.unlink(s)
        this.append(s)
      }
    } else if (onlyTracked) return
    else {
      s.lruTracked = true
      this.tracked++
      this.append(s)
    }
    s.lruKey = k
  }

  private walk(keys: ObjectKey[], onlyTracked: boolean): void {
    if (this.reversed) for (let i = keys.length - 1; i >= 0; i--) this.touch(keys[i], onlyTracked)
    else for (let i = 0; i < keys.length; i++) this.touch(keys[i], onlyTracked)
  }

  writeFinished(keys: ObjectKey[]): void {
    this.walk(keys, false)
  }

  writeFinishedAndReadReserved(keys: ObjectKey[]): void {
    this.walk(keys, false)
  }

  readFinished(keys: ObjectKey[]): void {
    this.walk(keys, true)
  }

  deletedByManager(keys: ObjectKey[]): void {
    for (let i = 0; i < keys.length; i++) {
      const s = this.slots.find(keys[i])
      if (s === undefined || !s.lruTracked) continue
      this.unlink(s)
      s.lruTracked = false
      this.tracked--
      this.slots.releaseIfUnused(s)
    }
  }

  actions(ratio: number): ObjectKey[] {
    const r = Math.min(1, Math.max(0, ratio))
    const n = this.tracked > 0 && r > 0 ? Math.max(1, Math.floor(this.tracked * r)) : 0
    const out: ObjectKey[] = []
    for (let s = this.head; s && out.length < n; s = s.lruNext) out.push(s.lruKey)
    return out
  }

  order(): string[] {
    const ids: string[] = []
    for (let s = this.head; s; s = s.lruNext) ids.push(s.id)
    return ids
  }
}

export class NoopPolicy implements EvictionPolicy {
  readonly name = 'noop'
  actions(): ObjectKey[] {
    return []
  }
  order(): string[] {
    return []
  }
}

/** The 1 s periodic controller: at usage ≥ watermark, delete the policy's actions. */
export class EvictionController {
  readonly counters = {
    ticks: 0,
    triggered_ticks: 0,
    evicted_keys: 0,
    evicted_bytes: 0,
    refused_locked_keys: 0,
  }

  constructor(
    private readonly l1: L1,
    private readonly policy: EvictionPolicy,
    private readonly watermark: number,
    private readonly ratio: number,
    scheduler: Scheduler,
  ) {
    scheduler.every(1, 1, 'eviction_tick', () => this.tick())
  }

  /** One tick; returns how to count skipped ticks when nothing can change until the next event or record. */
  tick(): ((skipped: number) => void) | undefined {
    this.counters.ticks++
    if (this.l1.allocator.usage < this.watermark) return this.countIdle
    this.counters.triggered_ticks++
    const keys = this.policy.actions(this.ratio)
    if (keys.length === 0) return this.countIdleTriggered
    const outcome = this.l1.evict(keys)
    this.counters.evicted_keys += outcome.deleted
    this.counters.evicted_bytes += outcome.bytes
    this.counters.refused_locked_keys += outcome.locked
    return undefined
  }

  // below the watermark, or above it with nothing to evict: later ticks would do the same until something happens
  private readonly countIdle = (skipped: number): void => {
    this.counters.ticks += skipped
  }

  private readonly countIdleTriggered = (skipped: number): void => {
    this.counters.ticks += skipped
    this.counters.triggered_ticks += skipped
  }
}
