// The `mock` L2 adapter: FIFO eviction skipping locked keys, bandwidth delays (docs/storage-replay.md §6.9).
import type {ObjectKey} from '../../formats/lct/values.js'
import type {Scheduler} from '../scheduler.js'
import type {MockL2Config} from './config.js'

export class MockL2 {
  readonly objects = new Map<string, number>()
  fifo: string[] = []
  readonly locks = new Map<string, number>()
  used = 0
  readonly counters = {
    store_tasks: 0,
    store_failed_tasks: 0,
    stored_keys: 0,
    stored_bytes: 0,
    store_skipped_existing: 0,
    store_skipped_too_large: 0,
    fifo_evicted_keys: 0,
    fifo_evicted_bytes: 0,
    lookup_keys: 0,
    lookup_hits: 0,
    load_tasks: 0,
    loaded_keys: 0,
    loaded_bytes: 0,
  }

  constructor(
    readonly index: number,
    readonly config: MockL2Config,
    private readonly scheduler: Scheduler,
  ) {}

  private delay(bytes: number): number {
    return this.config.bandwidthBytesPerS > 0 ? bytes / this.config.bandwidthBytesPerS : 0
  }

  private evict(required: number): boolean {
    let checks = this.fifo.length
    while (this.used + required > this.config.capacityBytes && checks > 0) {
      checks--
      const id = this.fifo.shift() as string
      if ((this.locks.get(id) ?? 0) > 0) {
        this.fifo.push(id)
        continue
      }
      const size = this.objects.get(id) ?? 0
      this.objects.delete(id)
      this.used -= size
      this.counters.fifo_evicted_keys++
      this.counters.fifo_evicted_bytes += size
    }
    return this.used + required <= this.config.capacityBytes
  }

  /** Stores keys; `done(ok)` runs when the transfer completes. */
  submitStore(keys: ObjectKey[], sizes: number[], done: (ok: boolean) => void): void {
    this.counters.store_tasks++
    this.scheduler.after(0, 'l2_store', () => {
      let total = 0
      let ok = true
      for (let i = 0; i < keys.length; i++) {
        const id = keys[i].id
        const size = sizes[i]
        if (size > this.config.capacityBytes) {
          this.counters.store_skipped_too_large++
          continue
        }
        if (this.objects.has(id)) {
          this.counters.store_skipped_existing++
          continue
        }
        if (!this.evict(size)) {
          ok = false
          break
        }
        this.objects.set(id, size)
        this.fifo.push(id)
        this.used += size
        total += size
        this.counters.stored_keys++
        this.counters.stored_bytes += size
      }
      this.scheduler.after(this.delay(total), 'l2_store_done', () => {
        if (!ok) this.counters.store_failed_tasks++
        done(ok)
      })
    })
  }

  /** Bitmap of present keys; each present key is locked. `done` runs in the same event. */
  submitLookupAndLock(keys: ObjectKey[], done: (found: boolean[]) => void): void {
    this.scheduler.after(0, 'l2_lookup', () => {
      const found = keys.map((k) => {
        const present = this.objects.has(k.id)
        this.counters.lookup_keys++
        if (present) {
          this.counters.lookup_hits++
          this.locks.set(k.id, (this.locks.get(k.id) ?? 0) + 1)
        }
        return present
      })
      done(found)
    })
  }

  submitUnlock(keys: ObjectKey[]): void {
    if (keys.length === 0) return
    this.scheduler.after(0, 'l2_unlock', () => this.unlockNow(keys))
  }

  private unlockNow(keys: ObjectKey[]): void {
    for (const k of keys) {
      const c = this.locks.get(k.id)
      if (c === undefined) continue
      if (c <= 1) this.locks.delete(k.id)
      else this.locks.set(k.id, c - 1)
    }
  }

  submitLoad(keys: ObjectKey[], done: (loaded: boolean[]) => void): void {
    this.counters.load_tasks++
    this.scheduler.after(0, 'l2_load', () => {
      let total = 0
      const loaded = keys.map((k) => {
        const size = this.objects.get(k.id)
        if (size === undefined) return false
        total += size
        this.counters.loaded_keys++
        this.counters.loaded_bytes += size
        return true
      })
      this.scheduler.after(this.delay(total), 'l2_load_done', () => done(loaded))
    })
  }
}
