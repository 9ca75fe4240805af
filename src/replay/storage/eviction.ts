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

/** A tracked key in recency order (an intrusive list: a touch relinks, it does not re-hash). */
interface LruNode {
  key: ObjectKey
  prev: LruNode | undefined
  next: LruNode | undefined
}

export class LruPolicy implements EvictionPolicy {
  readonly name = 'LRU'
  /** key id → its node; the list runs from the least recent (head) to the most recent (tail) */
  private readonly nodes = new Map<string, LruNode>()
  private head: LruNode | undefined
  private tail: LruNode | undefined

  constructor(private readonly reversed: boolean) {}

  private unlink(n: LruNode): void {
    if (n.prev) n.prev.next = n.next
    else this.head = n.next
    if (n.next) n.next.prev = n.prev
    else this.tail = n.prev
  }

  private append(n: LruNode): void {
    n.prev = this.tail
    n.next = undefined
    if (this.tail) this.tail.next = n
    else this.head = n
    this.tail = n
  }

  /** Makes k the most recent key (tracking it unless `onlyTracked`); the node keeps the newest key instance. */
  private touch(k: ObjectKey, onlyTracked: boolean): void {
    const id = k.id
    const n = this.nodes.get(id)
    if (n) {
      n.key = k
      if (n !== this.tail) {
        this.unlink(n)
        this.append(n)
      }
    } else if (!onlyTracked) {
      const fresh: LruNode = {key: k, prev: undefined, next: undefined}
      this.nodes.set(id, fresh)
      this.append(fresh)
    }
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
      const id = keys[i].id
      const n = this.nodes.get(id)
      if (n) {
        this.nodes.delete(id)
        this.unlink(n)
      }
    }
  }

  actions(ratio: number): ObjectKey[][] {
    if (this.nodes.size === 0) return []
    const r = Math.min(1, Math.max(0, ratio))
    let n = Math.floor(this.nodes.size * r)
    if (r > 0) n = Math.max(1, n)
    if (n === 0) return []
    const out: ObjectKey[] = []
    for (let node = this.head; node && out.length < n; node = node.next) out.push(node.key)
    return [out]
  }

  order(): string[] {
    const ids: string[] = []
    for (let node = this.head; node; node = node.next) ids.push(node.key.id)
    return ids
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
      const outcome = this.l1.evict(keys)
      this.counters.evicted_keys += outcome.deleted
      this.counters.evicted_bytes += outcome.bytes
      this.counters.refused_locked_keys += outcome.locked
    }
  }
}
