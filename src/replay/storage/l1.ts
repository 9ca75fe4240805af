// L1: entries with TTL read/write locks on top of the allocator (docs/storage-replay.md §6.5–§6.7).
import type {MemoryLayoutDesc, ObjectKey} from '../../formats/lct/values.js'
import {Allocator} from './allocator.js'
import type {KeySlots} from './key-slots.js'
import type {L1Entry} from './l1-entry.js'
import {TtlLock} from './ttl-lock.js'

export type L1Code =
  | 'SUCCESS'
  | 'KEY_NOT_EXIST'
  | 'KEY_NOT_READABLE'
  | 'KEY_NOT_WRITABLE'
  | 'KEY_IN_WRONG_STATE'
  | 'KEY_IS_LOCKED'
  | 'OUT_OF_MEMORY'

export type {L1Entry} from './l1-entry.js'

export interface L1Listener {
  writeFinished?(keys: ObjectKey[]): void
  readFinished?(keys: ObjectKey[]): void
  writeFinishedAndReadReserved?(keys: ObjectKey[]): void
  deletedByManager?(keys: ObjectKey[]): void
}

export interface L1Options {
  sizeInBytes: number
  alignBytes: number
  writeTtl: number
  readTtl: number
  allocMode: 'all-or-nothing' | 'largest-prefix'
  writePendingReadable: boolean
  now: () => number
  warn: (code: string, key: string, message: string) => void
  /** the model's per-key state, shared with the eviction policy */
  slots: KeySlots
}

/** One code per position of the keys given (a key given twice reports, like LMCache's dict, its last outcome). */
export type Results = L1Code[]

/** positions of the keys by fingerprint, for {@link hasDuplicateIds}: a slot is in use when its stamp is current */
let dupSlots = new Int32Array(64)
let dupStamps = new Int32Array(64)
let dupStamp = 0

/** Whether two of the keys share an id (then outcomes are kept by id, as in LMCache's dict). */
export function hasDuplicateIds(keys: readonly ObjectKey[]): boolean {
  const n = keys.length
  if (n < 2) return false
  // ids are compared only where fingerprints agree: an open-addressing table reused call after call, no allocation
  // (a Set of the ids made a whole replay of an engine's trace take 1.26x the CPU time and 1.2x the peak memory)
  if (dupSlots.length < 2 * n) {
    let size = dupSlots.length
    while (size < 2 * n) size *= 2
    dupSlots = new Int32Array(size)
    dupStamps = new Int32Array(size)
    dupStamp = 0
  }
  if (++dupStamp === 0x7fffffff) {
    dupStamps.fill(0)
    dupStamp = 1
  }
  const mask = dupSlots.length - 1
  for (let i = 0; i < n; i++) {
    const k = keys[i]
    const fp = k.fingerprint
    let h = fp & mask
    for (; dupStamps[h] === dupStamp; h = (h + 1) & mask) {
      const other = keys[dupSlots[h]]
      if (other === k || (other.fingerprint === fp && other.id === k.id)) return true
    }
    dupStamps[h] = dupStamp
    dupSlots[h] = i
  }
  return false
}

/**
 * The outcomes of one batch call. Without repeated keys every position is set once and counted as it is set; with
 * them the codes are kept by id (the last set wins) and counted once per id at the end, exactly as a dict would.
 */
class Outcomes {
  readonly codes: L1Code[]
  private readonly byId: Map<string, L1Code> | undefined

  constructor(
    private readonly keys: readonly ObjectKey[],
    private readonly errors: Record<string, Record<string, number>>,
    private readonly op: string,
    /** the caller knows no id repeats (an eviction policy names each key once) */
    distinct: boolean,
  ) {
    this.codes = new Array<L1Code>(keys.length)
    this.byId = !distinct && hasDuplicateIds(keys) ? new Map() : undefined
  }

  set(i: number, code: L1Code): void {
    if (this.byId !== undefined) this.byId.set(this.keys[i].id, code)
    else {
      this.codes[i] = code
      if (code !== 'SUCCESS') this.count(code, 1)
    }
  }

  /** this op's error counts, once looked up (most keys of a call under pressure fail alike) */
  private counts: Record<string, number> | undefined = undefined

  /** error counts by op are created on first use, as LMCache's are */
  private count(code: L1Code, n: number): void {
    const m = (this.counts ??= this.errors[this.op] ??= {})
    m[code] = (m[code] ?? 0) + n
  }

  /** The codes by position, counted. */
  settle(): Results {
    const byId = this.byId
    if (byId === undefined) return this.codes
    for (let i = 0; i < this.keys.length; i++) this.codes[i] = byId.get(this.keys[i].id) as L1Code
    for (const code of byId.values()) if (code !== 'SUCCESS') this.count(code, 1)
    return this.codes
  }
}

/** Raw and aligned size of an object of this layout (§6.2); throws for zero or negative sizes. */
export function objectSize(layout: MemoryLayoutDesc, align: number): {raw: number; aligned: number} {
  for (const s of layout.shapes) for (const d of s) if (d < 0) throw new Error('negative dimension')
  const raw = layout.rawSizeBytes()
  if (!(raw > 0)) throw new Error('zero-size layout')
  return {raw, aligned: Math.ceil(raw / align) * align}
}

/** The per-key operations of {@link L1}'s `eachKey`, and the names their errors are counted under. */
const FINISH_WRITE = 0
const RESERVE_READ = 1
const UNSAFE_READ = 2
const FINISH_READ = 3
const FINISH_WRITE_AND_RESERVE_READ = 4
const DELETE = 5
/** a delete by the eviction controller: its bytes are summed */
const EVICT = 6
const FINISH_WRITE_AND_DELETE = 7
type KeyOp = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7
const OP_NAMES: readonly string[] = [
  'finish_write',
  'reserve_read',
  'unsafe_read',
  'finish_read',
  'finish_write_and_reserve_read',
  'delete',
  'delete',
  'finish_write_and_delete',
]

export class L1 {
  readonly entries = new Map<string, L1Entry>()
  readonly allocator: Allocator
  readonly listeners: L1Listener[] = []
  readonly errors: Record<string, Record<string, number>> = {}
  expiredWriteLocks = 0
  expiredReadLocks = 0
  leakedDuplicateBytes = 0
  peakUsed = 0
  peakAt = 0

  private readonly slots: KeySlots

  constructor(private readonly o: L1Options) {
    this.allocator = new Allocator(o.sizeInBytes)
    this.slots = o.slots
  }

  /** The outcomes of a call of `op`. */
  private outcomes(op: string, keys: readonly ObjectKey[], distinct = false): Outcomes {
    return new Outcomes(keys, this.errors, op, distinct)
  }

  private notify(event: keyof L1Listener, keys: ObjectKey[]): void {
    if (keys.length === 0) return
    for (const l of this.listeners) l[event]?.(keys)
  }

  /** Looks the entry of k's id up and drops its leaked locks whose TTL passed (counted). */
  private get(k: ObjectKey, now: number): L1Entry | undefined {
    const e = this.slots.find(k)?.entry
    if (e) this.expireLocks(e, now)
    return e
  }

  private expireLocks(e: L1Entry, now: number): void {
    if (e.writeLock.expire(now)) this.expiredWriteLocks++
    if (e.readLock.expire(now)) this.expiredReadLocks++
  }

  /** The entry of k's id as it stands (no lock expiry). */
  entryOf(k: ObjectKey): L1Entry | undefined {
    return this.slots.find(k)?.entry
  }

  private total(extra: number | bigint): number {
    const v = Number(extra)
    if (v < 0 || v > 127) this.o.warn('extra_clamped', String(v), `extra_count=${v} clamped`)
    return 1 + Math.min(127, Math.max(0, v))
  }

  writeLocked(e: L1Entry): boolean {
    return e.writeLock.isLocked(this.o.now())
  }

  readLocked(e: L1Entry): boolean {
    return e.readLock.isLocked(this.o.now())
  }

  private writable(e: L1Entry): boolean {
    return !this.writeLocked(e) && !this.readLocked(e) && !e.temporary
  }

  private remove(e: L1Entry): void {
    this.entries.delete(e.key.id)
    const slot = this.slots.find(e.key)
    if (slot !== undefined && slot.entry === e) {
      slot.entry = undefined
      this.slots.releaseIfUnused(slot)
    }
    this.allocator.release(e.block)
  }

  reserveWrite(
    keys: readonly ObjectKey[],
    temporary: readonly boolean[],
    layout: MemoryLayoutDesc,
    mode: string,
  ): Results {
    const {raw, aligned} = objectSize(layout, this.o.alignBytes)
    const now = this.o.now()
    const results = this.outcomes('reserve_write', keys)
    const toAlloc: number[] = []
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      const e = this.get(k, now)
      if (!e) toAlloc.push(i)
      else if (mode === 'new' || !this.writable(e)) results.set(i, 'KEY_NOT_WRITABLE')
      else {
        e.writeLock.lock(now)
        e.writePending = true
        results.set(i, 'SUCCESS')
      }
    }
    if (toAlloc.length > 0) {
      if (mode === 'update') for (const i of toAlloc) results.set(i, 'KEY_NOT_WRITABLE')
      else {
        let n = toAlloc.length
        let blocks = this.allocator.allocateBatch(n, aligned)
        if (!blocks && this.o.allocMode === 'largest-prefix' && n > 1) {
          const k = Math.min(n, this.allocator.capacityFor(aligned))
          if (k > 0) {
            blocks = this.allocator.allocateBatch(k, aligned)
            this.o.warn(
              'partial_l1_allocation',
              `${k}/${n}`,
              `partial L1 allocation: ${k}/${n} objects (prefix) allocated`,
            )
            for (const i of toAlloc.slice(k)) results.set(i, 'OUT_OF_MEMORY')
            n = k
          }
        }
        if (!blocks) for (const i of toAlloc) results.set(i, 'OUT_OF_MEMORY')
        else {
          for (let j = 0; j < n; j++) {
            const k = keys[toAlloc[j]]
            const slot = this.slots.of(k)
            const old = slot.entry
            if (old) this.leakedDuplicateBytes += old.block.size // the first allocation is never freed, as in LMCache
            const writeLock = new TtlLock(this.o.writeTtl)
            writeLock.lock(now)
            const entry: L1Entry = {
              key: k,
              block: blocks[j],
              rawSize: raw,
              writeLock,
              readLock: new TtlLock(this.o.readTtl),
              temporary: temporary[toAlloc[j]] ?? false,
              writePending: true,
            }
            slot.entry = entry
            this.entries.set(slot.id, entry)
            results.set(toAlloc[j], 'SUCCESS')
          }
          if (this.allocator.used > this.peakUsed) {
            this.peakUsed = this.allocator.used
            this.peakAt = now
          }
        }
      }
    }
    return results.settle()
  }

  /**
   * The shape LMCache's per-key L1 operations share: a missing key is KEY_NOT_EXIST, {@link refusal} gives the error
   * of a key in the wrong state, {@link apply} changes the entry; results are counted under the op's name and the
   * keys that succeeded are announced as `event`. The op is a number switched on per key, not two closures made per
   * call and called through one megamorphic site.
   */
  private eachKey(
    op: KeyOp,
    event: keyof L1Listener | undefined,
    keys: readonly ObjectKey[],
    total = 0,
    distinct = false,
  ): Results {
    const results = this.outcomes(OP_NAMES[op], keys, distinct)
    const ok: ObjectKey[] = []
    const now = this.o.now() // the clock does not move within one call
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      const e = this.get(k, now)
      const error = e === undefined ? 'KEY_NOT_EXIST' : this.refusal(op, e, now)
      if (error !== undefined) {
        results.set(i, error)
        continue
      }
      this.apply(op, e as L1Entry, k, now, total)
      results.set(i, 'SUCCESS')
      ok.push(k)
    }
    const codes = results.settle()
    if (event !== undefined) this.notify(event, ok)
    return codes
  }

  /** The error of `op` on an entry in its state at `now` (undefined: go ahead). */
  private refusal(op: KeyOp, e: L1Entry, now: number): L1Code | undefined {
    switch (op) {
      case RESERVE_READ:
        return this.readableAt(e, now) ? undefined : 'KEY_NOT_READABLE'
      case UNSAFE_READ:
        return e.readLock.isLocked(now) ? undefined : 'KEY_NOT_READABLE'
      case FINISH_READ:
        return e.writeLock.isLocked(now) || !e.readLock.isLocked(now) ? 'KEY_IN_WRONG_STATE' : undefined
      case DELETE:
      case EVICT:
        return e.readLock.isLocked(now) || e.writeLock.isLocked(now) ? 'KEY_IS_LOCKED' : undefined
      default:
        // the finishes of a write: a write-locked, not read-locked entry
        return !e.writeLock.isLocked(now) || e.readLock.isLocked(now) ? 'KEY_IN_WRONG_STATE' : undefined
    }
  }

  /** what the finish_read running frees (its temporaries), and the bytes the eviction running deletes */
  private freed: ObjectKey[] = []
  private evictedBytes = 0

  /** `op` on the entry of key k, which {@link refusal} let through; `total`: the read locks taken or given back */
  private apply(op: KeyOp, e: L1Entry, k: ObjectKey, now: number, total: number): void {
    switch (op) {
      case FINISH_WRITE:
        e.writeLock.unlock(now)
        e.writePending = false
        return
      case RESERVE_READ:
        for (let i = 0; i < total; i++) e.readLock.lock(now)
        return
      case UNSAFE_READ:
        return
      case FINISH_READ:
        for (let i = 0; i < total; i++) e.readLock.unlock(now)
        if (e.temporary && !e.readLock.isLocked(now)) {
          this.remove(e)
          this.freed.push(k)
        }
        return
      case FINISH_WRITE_AND_RESERVE_READ:
        e.writeLock.unlock(now)
        e.writePending = false
        for (let i = 0; i < total; i++) e.readLock.lock(now)
        return
      case EVICT:
        this.evictedBytes += e.block.size
        this.remove(e)
        return
      case DELETE:
        this.remove(e)
        return
      case FINISH_WRITE_AND_DELETE:
        e.writeLock.unlock(now)
        this.remove(e)
    }
  }

  private readableAt(e: L1Entry, now: number): boolean {
    return !e.writeLock.isLocked(now) && !(this.o.writePendingReadable && e.writePending)
  }

  finishWrite(keys: readonly ObjectKey[]): Results {
    return this.eachKey(FINISH_WRITE, 'writeFinished', keys)
  }

  reserveRead(keys: readonly ObjectKey[], extra: number | bigint): Results {
    return this.eachKey(RESERVE_READ, undefined, keys, this.total(extra))
  }

  unsafeRead(keys: readonly ObjectKey[]): Results {
    return this.eachKey(UNSAFE_READ, undefined, keys)
  }

  finishRead(keys: readonly ObjectKey[], extra: number | bigint): Results {
    const total = this.total(extra)
    const freed: ObjectKey[] = []
    this.freed = freed
    const results = this.eachKey(FINISH_READ, 'readFinished', keys, total)
    this.notify('deletedByManager', freed)
    return results
  }

  finishWriteAndReserveRead(keys: readonly ObjectKey[], extra: number | bigint): Results {
    return this.eachKey(
      FINISH_WRITE_AND_RESERVE_READ,
      'writeFinishedAndReadReserved',
      keys,
      this.total(extra),
    )
  }

  delete(keys: readonly ObjectKey[]): Results {
    return this.eachKey(DELETE, 'deletedByManager', keys)
  }

  /**
   * {@link delete} for the eviction controller, whose policy names each key once (no id repeats): the same checks,
   * counts and events, returning how many keys went (and their aligned bytes) and how many were refused as locked.
   */
  evict(keys: readonly ObjectKey[]): {deleted: number; bytes: number; locked: number} {
    this.evictedBytes = 0
    const results = this.eachKey(EVICT, 'deletedByManager', keys, 0, true)
    const bytes = this.evictedBytes
    let deleted = 0
    let locked = 0
    for (const code of results) {
      if (code === 'SUCCESS') deleted++
      else if (code === 'KEY_IS_LOCKED') locked++
    }
    return {deleted, bytes, locked}
  }

  finishWriteAndDelete(keys: readonly ObjectKey[]): Results {
    return this.eachKey(FINISH_WRITE_AND_DELETE, 'deletedByManager', keys)
  }

  /** End of replay: drop expired leaked locks (counted) and report what is still held. */
  finalScan(): {writeLocked: number; readLocked: number; temporary: number} {
    let writeLocked = 0
    let readLocked = 0
    let temporary = 0
    const now = this.o.now()
    for (const e of this.entries.values()) {
      this.expireLocks(e, now)
      if (this.writeLocked(e)) writeLocked++
      if (this.readLocked(e)) readLocked++
      if (e.temporary) temporary++
    }
    return {writeLocked, readLocked, temporary}
  }
}
