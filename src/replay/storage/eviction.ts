// LRU and noop eviction policies and the watermark controller (storage-replay.md §6.8).
import type {ObjectKey} from '../../lct/values.js'
import type {Scheduler} from '../scheduler.js'
import type {L1, L1Listener} from './l1.js'

export interface EvictionPolicy extends L1Listener {
  readonly name: 'LRU' | 'noop'
  /** keys to discard, least recent first */
  actions(ratio: number): ObjectKey[][]
  order(): string[]
}

export class LruPolicy implements EvictionPolicy {
  readonly name = 'LRU'
  /** key id → key; insertion order = recency (first = least recent) */
  private readonly map = new Map<string, ObjectKey>()

  constructor(private readonly reversed: boolean) {}

  private walk(keys: ObjectKey[], onlyTracked: boolean): void {
    const step = (k: ObjectKey) => {
      const id = k.id
      // delete reports whether the key was tracked: one lookup fewer for the read path
      if (!this.map.delete(id) && onlyTracked) return
      this.map.set(id, k)
    }
    if (this.reversed) for (let i = keys.length - 1; i >= 0; i--) step(keys[i])
    else for (const k of keys) step(k)
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
    for (const k of keys) this.map.delete(k.id)
  }

  actions(ratio: number): ObjectKey[][] {
    if (this.map.size === 0) return []
    const r = Math.min(1, Math.max(0, ratio))
    let n = Math.floor(this.map.size * r)
    if (r > 0) n = Math.max(1, n)
    if (n === 0) return []
    const out: ObjectKey[] = []
    for (const k of this.map.values()) {
      if (out.length >= n) break
      out.push(k)
    }
    return [out]
  }

  order(): string[] {
    return [...this.map.keys()]
  }
}

export class NoopPolicy implements EvictionPolicy {
  readonly name = 'noop'
  actions(): ObjectKey[][] {
    return []
  }
  order(): string[] {
    return []
  }
}

export interface EvictionCounters {
  ticks: number
  triggered_ticks: number
  evicted_keys: number
  evicted_bytes: number
  refused_locked_keys: number
}

/** The 1 s periodic controller: at usage ≥ watermark, delete the policy's actions. */
export class EvictionController {
  readonly counters: EvictionCounters = {
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

  tick(): void {
    this.counters.ticks++
    if (this.l1.allocator.usage < this.watermark) return
    this.counters.triggered_ticks++
    for (const keys of this.policy.actions(this.ratio)) {
      const sizes = new Map(keys.map((k) => [k.id, this.l1.entries.get(k.id)?.block.size ?? 0]))
      const results = this.l1.delete(keys)
      for (const [id, code] of results) {
        if (code === 'SUCCESS') {
          this.counters.evicted_keys++
          this.counters.evicted_bytes += sizes.get(id) ?? 0
        } else if (code === 'KEY_IS_LOCKED') this.counters.refused_locked_keys++
      }
    }
  }
}
