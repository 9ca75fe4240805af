// Replay hot path: immutable value wrappers decoded once per distinct byte sequence (docs/lct.md §11).
import {decodeValue} from '../codecs.js'
import {skipValid} from './fast-scan.js'
import {MAX_NESTING} from '../constants.js'
import {MsgpackReader, type RawMap, type RawValue} from '../msgpack.js'
import {MemoryLayoutDesc, ObjectKey} from '../values.js'
import {canonicalObjectKey} from './object-key-wire.js'

/** `{"__t__": <fixstr tag>, …}`: a two-entry map whose first key is the wrapper tag key. */
const PREFIX = Buffer.from([0x82, 0xa5, ...Buffer.from('__t__')])
/** Tags whose values are immutable and compared by value, so one instance may serve every occurrence. */
const INTERNED = [ObjectKey, MemoryLayoutDesc].map((c) => ({ctor: c, tag: Buffer.from(c.name, 'latin1')}))
/** entries kept before the cache starts afresh; the table has twice as many slots (load ≤ ½) */
const MAX_ENTRIES = 1 << 16
const SLOTS = MAX_ENTRIES * 2
/** bytes of wrappers kept before the cache starts afresh (a longer wrapper is decoded every time) */
const SLAB_BYTES = 8 << 20
/** bytes hashed: the wrapper head and, for ObjectKeys, the first bytes of the chunk hash */
const HASH_WINDOW = 64
const SHORT_SALT = 0x5bd1e995
/** the longest list {@link ObjectKeyInterner.rememberList} keeps (bytes) */
const LIST_BYTES = 16 << 10

function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start)
  let i = start
  // four bytes per step: the multiply, not the loads, is the cost
  for (; i + 4 <= end; i += 4) {
    h = Math.imul(h ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24)), 0x01000193)
    h ^= h >>> 15
  }
  for (; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193)
  return h
}

/**
 * A bounded cache of decoded wrappers by their wire bytes (started afresh when full): an open-addressing table of
 * typed arrays (hash, and the entry's number) over entries numbered in the order they were remembered (the bytes'
 * place in one slab, length, value) — no object per entry but the value, no string per lookup.
 */
export class ObjectKeyInterner {
  private readonly hashes = new Int32Array(SLOTS)
  /** the entry filed in a slot, + 1 (0 = an empty slot) */
  private readonly slots = new Int32Array(SLOTS)
  /** per entry, in the order remembered: where its bytes start in the slab (each entry's right after the last's) */
  private readonly offsets = new Int32Array(MAX_ENTRIES)
  private readonly lengths = new Int32Array(MAX_ENTRIES)
  private readonly values: Array<ObjectKey | MemoryLayoutDesc | undefined> = new Array(MAX_ENTRIES).fill(
    undefined,
  )
  private readonly slab = Buffer.allocUnsafe(SLAB_BYTES)
  private slabUsed = 0
  private size = 0
  /** the byte length of the value {@link lookup} returned last */
  found = 0

  /** The value whose bytes start at `start` (and end by `limit`), among those filed under `hash`; its length in `found`. */
  lookup(
    buf: Uint8Array,
    start: number,
    limit: number,
    hash: number,
  ): ObjectKey | MemoryLayoutDesc | undefined {
    const mask = SLOTS - 1
    for (let i = (hash ^ (hash >>> 17)) & mask; this.slots[i] !== 0; i = (i + 1) & mask) {
      if (this.hashes[i] !== hash) continue
      const e = this.slots[i] - 1
      const n = this.lengths[e]
      if (start + n <= limit && this.sameBytes(this.offsets[e], n, buf, start)) {
        this.found = n
        return this.values[e]
      }
    }
    return undefined
  }

  private sameBytes(off: number, n: number, buf: Uint8Array, start: number): boolean {
    // long runs by memcmp (one native call beats a byte loop from about 60 bytes on)
    if (n >= 64) return this.slab.compare(buf, start, start + n, off, off + n) === 0
    // wrappers of one kind share their first bytes: compare from the end
    const slab = this.slab
    for (let i = n - 1; i >= 0; i--) if (slab[off + i] !== buf[start + i]) return false
    return true
  }

  /** Caches `value` under its bytes (a value too long to cache is not kept). */
  remember(
    buf: Uint8Array,
    start: number,
    end: number,
    hash: number,
    value: ObjectKey | MemoryLayoutDesc,
  ): void {
    const n = end - start
    if (n > SLAB_BYTES) return
    if (this.size >= MAX_ENTRIES || this.slabUsed + n > SLAB_BYTES) this.clear()
    const mask = SLOTS - 1
    let i = (hash ^ (hash >>> 17)) & mask
    while (this.slots[i] !== 0) i = (i + 1) & mask
    const slab = this.slab
    const at = this.slabUsed
    // a key is ~110 bytes: one native copy (no view object) beats a byte loop from a few dozen bytes on
    if (n >= 64) Buffer.prototype.copy.call(buf, slab, at, start, end)
    else for (let i = 0; i < n; i++) slab[at + i] = buf[start + i]
    const e = this.size++
    this.hashes[i] = hash
    this.slots[i] = e + 1
    this.offsets[e] = at
    this.lengths[e] = n
    this.values[e] = value
    this.slabUsed += n
  }

  /** the list of interned values read last, as bytes and values: a request's key list recurs record after record */
  private readonly listBytes = Buffer.allocUnsafe(LIST_BYTES)
  private listLength = 0
  private listValues: RawValue[] = []

  /**
   * A fresh array of the values of the list remembered last, when `buf[at…]` (by `limit`) starts with its bytes: a
   * msgpack value delimits itself, so the same bytes are the same list (its length in `found`); else undefined.
   */
  recentList(buf: Uint8Array, at: number, limit: number): RawValue[] | undefined {
    const n = this.listLength
    if (n === 0 || at + n > limit || this.listBytes.compare(buf, at, at + n, 0, n) !== 0) return undefined
    this.found = n
    return this.listValues.slice()
  }

  /** Remembers the list at `buf[start, end)` when each of its values is an interned one. */
  rememberList(buf: Uint8Array, start: number, end: number, values: RawValue[]): void {
    if (end - start > LIST_BYTES || values.length === 0) return
    for (const v of values) if (!(v instanceof ObjectKey) && !(v instanceof MemoryLayoutDesc)) return
    Buffer.prototype.copy.call(buf, this.listBytes, 0, start, end)
    this.listLength = end - start
    this.listValues = values.slice()
  }

  private clear(): void {
    this.slots.fill(0)
    this.values.fill(undefined)
    this.slabUsed = 0
    this.size = 0
  }
}

/** Which interned wrapper starts at `p` (index into INTERNED), or -1. */
function internedTagAt(buf: Uint8Array, p: number, end: number): number {
  if (buf[p] !== 0x82 || p + PREFIX.length + 1 > end) return -1
  for (let i = 1; i < PREFIX.length; i++) if (buf[p + i] !== PREFIX[i]) return -1
  const t = p + PREFIX.length
  const n = buf[t] - 0xa0
  for (let k = 0; k < INTERNED.length; k++) {
    const tag = INTERNED[k].tag
    if (tag.length !== n || t + 1 + n > end) continue
    let same = true
    for (let i = 0; i < n && same; i++) same = buf[t + 1 + i] === tag[i]
    if (same) return k
  }
  return -1
}

/**
 * A reader that returns ObjectKey and MemoryLayoutDesc wrappers as interned instances (so the value, its id and
 * its validation are computed once per distinct byte sequence). A wrapper whose payload does not decode stays a raw
 * map, so the record is skipped at argument decoding exactly as without interning.
 */
export class InterningReader extends MsgpackReader {
  constructor(
    buf: Uint8Array,
    start: number,
    end: number,
    private readonly interner: ObjectKeyInterner,
  ) {
    super(buf, start, end)
  }

  /** An array: the list read last again is one compare, not a lookup per key (interned payloads nest ≤ 4 deep). */
  protected override arrayBody(n: number, at: number): RawValue[] {
    const shortcut = this.depth + 8 < MAX_NESTING
    const again = shortcut ? this.interner.recentList(this.buf, at, this.end) : undefined
    if (again !== undefined) {
      this.pos = at + this.interner.found
      return again
    }
    const out = super.arrayBody(n, at)
    if (shortcut) this.interner.rememberList(this.buf, at, this.pos, out)
    return out
  }

  override value(): RawValue {
    const p = this.pos
    const buf = this.buf
    const k = internedTagAt(buf, p, this.end)
    if (k < 0) return super.value()
    // Long wrappers are filed by the hash of their first HASH_WINDOW bytes, so a known one is found before its end
    // is: bytes equal to a value already decoded are that value (an encoding delimits itself), valid without a
    // second look; interned payloads nest at most 4 deep, so away from the nesting limit the exact path would
    // accept them too. Shorter wrappers are filed by the hash of all their bytes, found once their end is known.
    let hash = 0
    if (p + HASH_WINDOW <= this.end) {
      hash = hashBytes(buf, p, p + HASH_WINDOW)
      const hit = this.depth + 8 < MAX_NESTING ? this.interner.lookup(buf, p, this.end, hash) : undefined
      if (hit) {
        this.pos = p + this.interner.found
        return hit as unknown as RawValue
      }
    }
    // validates the whole wrapper and finds its end: the fast lane, or the exact decoder for the precise error
    let end = skipValid(buf, p, this.end, this.depth + 1)
    if (end < 0) {
      super.value()
      end = this.pos
    }
    if (end - p < HASH_WINDOW) {
      hash = hashBytes(buf, p, end) ^ SHORT_SALT
      const hit = this.interner.lookup(buf, p, end, hash)
      if (hit) {
        this.pos = end
        return hit as unknown as RawValue
      }
    }
    // a new key in the usual layout: read straight from its bytes (its end is known and the bytes are valid)
    if (INTERNED[k].ctor === ObjectKey) {
      const key = canonicalObjectKey(buf, p, end)
      if (key !== undefined) {
        this.pos = end
        this.interner.remember(buf, p, end, hash, key)
        return key as unknown as RawValue
      }
    }
    this.pos = p
    const raw = super.value() as RawMap
    try {
      const value = decodeValue(raw)
      if (value instanceof INTERNED[k].ctor) {
        this.interner.remember(buf, p, end, hash, value)
        return value as unknown as RawValue
      }
    } catch {
      // an invalid payload: keep it raw; decodeArgs reports it
    }
    return raw
  }
}
