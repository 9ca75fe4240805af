// Per-key state of the StorageManager model, found from a key instance without a lookup by id when it recurs.
import type {ObjectKey} from '../../formats/lct/values.js'
import type {L1Entry} from './l1-entry.js'

/** What the model keeps for one key id: its L1 entry and its place in the LRU recency list. */
export class KeySlot {
  entry: L1Entry | undefined = undefined
  lruTracked = false
  lruPrev: KeySlot | undefined = undefined
  lruNext: KeySlot | undefined = undefined
  /** the newest instance of the key the LRU saw (what its eviction actions name) */
  lruKey: ObjectKey
  /** dropped from the table: a key instance still caching it must look its id up again */
  released = false

  constructor(
    readonly id: string,
    key: ObjectKey,
    /** the key's fingerprint (its bucket of live slots) */
    readonly fingerprint: number,
  ) {
    this.lruKey = key
  }
}

const CREATED_BUCKETS = 1 << 12
const BUCKET_MASK = CREATED_BUCKETS - 1
/** buckets of live slots by fingerprint: the table holds a few hundred slots at a time on an engine's trace */
const LIVE_BUCKETS = 1 << 16
const LIVE_MASK = LIVE_BUCKETS - 1

/**
 * The slots by key id. A slot exists while the key has an L1 entry or is tracked by the LRU, so the table is bounded
 * by the model's state; each key instance caches its slot (interned keys recur record after record).
 */
export class KeySlots {
  private readonly byId = new Map<string, KeySlot>()
  /**
   * Slots created so far, per bucket of key fingerprints: a key found absent while its bucket's count stood still
   * is absent yet (memoised as that count). Equal ids have equal fingerprints, so a slot for the key's id moves its
   * bucket; one run-wide count went stale at every creation (most misses were looked up again by id).
   */
  private readonly created = new Uint32Array(CREATED_BUCKETS)
  /**
   * Live slots per bucket of fingerprints: a key whose bucket holds none has no slot, known without its id (most
   * keys of an engine's trace never get a slot, and building an id string for each was a tenth of the collector's
   * survivors; a plain Map by id made a whole replay take 1.16x the CPU time and 1.19x the peak memory).
   */
  private readonly live = new Uint32Array(LIVE_BUCKETS)

  get size(): number {
    return this.byId.size
  }

  /** The slot of k's id, if it has one. */
  find(k: ObjectKey): KeySlot | undefined {
    const cached = k.memo(this) as KeySlot | number | undefined
    if (typeof cached === 'number' && cached === this.created[k.fingerprint & BUCKET_MASK]) return undefined
    if (cached instanceof KeySlot && !cached.released) return cached
    const fp = k.fingerprint
    const slot = this.live[fp & LIVE_MASK] === 0 ? undefined : this.byId.get(k.id)
    // a miss is remembered too: a key missing from L1 is usually asked about by every call of its request
    k.setMemo(this, slot ?? this.created[fp & BUCKET_MASK])
    return slot
  }

  /** The slot of k's id, created when missing. */
  of(k: ObjectKey): KeySlot {
    let slot = this.find(k)
    if (slot === undefined) {
      const fp = k.fingerprint
      slot = new KeySlot(k.id, k, fp)
      this.byId.set(slot.id, slot)
      this.created[fp & BUCKET_MASK]++
      this.live[fp & LIVE_MASK]++
      k.setMemo(this, slot)
    }
    return slot
  }

  /** Drops the slot once neither L1 nor the LRU uses it. */
  releaseIfUnused(slot: KeySlot): void {
    if (slot.entry !== undefined || slot.lruTracked || slot.released) return
    slot.released = true
    this.byId.delete(slot.id)
    this.live[slot.fingerprint & LIVE_MASK]--
  }
}
