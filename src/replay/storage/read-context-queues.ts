// The open read contexts of a run, queued per key tuple in order of entry (docs/storage-replay.md §5.3). Tuples are
// found by a hash of their keys' fingerprints and compared key by key, not by a joined id string: an engine's tuple
// is ~19 keys (a ~900-character string built, hashed and dropped twice per context, the largest cost of the model
// thread on engine-shaped traces; a Map keyed by keyTupleId made a whole replay take 1.3× the CPU time). Same
// answers as that Map, in the same order (pinned by a test).
import type {ObjectKey} from '../../formats/lct/values.js'

/** One key tuple with open contexts (T: what is queued, a read context in the replay). */
interface TupleQueue<T> {
  readonly keys: readonly ObjectKey[]
  readonly hash: number
  readonly queue: T[]
}

function tupleHash(keys: readonly ObjectKey[]): number {
  let h = 0x811c9dc5 ^ keys.length
  for (let i = 0; i < keys.length; i++) h = Math.imul(h ^ keys[i].fingerprint, 0x01000193)
  return h
}

function sameTuple(a: readonly ObjectKey[], b: readonly ObjectKey[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && a[i].id !== b[i].id) return false
  return true
}

export class ReadContextQueues<T> {
  /** tuples by hash (a list where hashes collide) */
  private readonly byHash = new Map<number, TupleQueue<T>[]>()
  /** every tuple with an open context, in order of insertion (a tuple emptied and entered again goes last) */
  private readonly order = new Set<TupleQueue<T>>()

  private find(keys: readonly ObjectKey[], hash: number): TupleQueue<T> | undefined {
    const list = this.byHash.get(hash)
    if (list) for (const t of list) if (sameTuple(t.keys, keys)) return t
    return undefined
  }

  /** queues `item` behind the open contexts of the tuple `keys` */
  push(keys: readonly ObjectKey[], item: T): void {
    const hash = tupleHash(keys)
    const t = this.find(keys, hash)
    if (t) {
      t.queue.push(item)
      return
    }
    // a copy: the caller's array may be reused for the next record
    const fresh: TupleQueue<T> = {keys: keys.slice(), hash, queue: [item]}
    const list = this.byHash.get(hash)
    if (list) list.push(fresh)
    else this.byHash.set(hash, [fresh])
    this.order.add(fresh)
  }

  /** the oldest open context of the tuple `keys`, taken off its queue; undefined when none is open */
  shift(keys: readonly ObjectKey[]): T | undefined {
    const hash = tupleHash(keys)
    const t = this.find(keys, hash)
    if (!t) return undefined
    const item = t.queue.shift() as T
    if (t.queue.length === 0) this.remove(t)
    return item
  }

  private remove(t: TupleQueue<T>): void {
    const list = this.byHash.get(t.hash) as TupleQueue<T>[]
    if (list.length === 1) this.byHash.delete(t.hash)
    else list.splice(list.indexOf(t), 1)
    this.order.delete(t)
  }

  /** the queues, in order of their first enter */
  *queues(): IterableIterator<readonly T[]> {
    for (const t of this.order) yield t.queue
  }

  clear(): void {
    this.byHash.clear()
    this.order.clear()
  }
}
