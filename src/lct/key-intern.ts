// Replay hot path: immutable value wrappers decoded once per distinct byte sequence (docs/lct.md §11).
import {decodeValue} from './codecs.js'
import {skipValid} from './fast-scan.js'
import {MAX_NESTING} from './constants.js'
import {familyOf, isKeyByte, MsgpackReader, type RawMap, type RawValue} from './msgpack.js'
import {MemoryLayoutDesc, ObjectKey} from './values.js'
import {canonicalKey, canonicalObjectKey, readCanonicalKey} from './object-key-wire.js'

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

/** the longest array (bytes, elements) {@link WrapperListMemo} keeps */
const MEMO_BYTES = 16 << 10
const MEMO_ELEMENTS = 512

/**
 * The last array of interned wrappers walked (an engine's key list recurs record after record: prefetch, read,
 * write): its bytes and the value of each element, so that the same bytes again are one memcmp, not a lookup per key.
 */
export class WrapperListMemo {
  private bytes = Buffer.allocUnsafe(MEMO_BYTES)
  private length = 0
  private count = 0
  private minId = 0
  private starts = new Int32Array(MEMO_ELEMENTS)
  private ends = new Int32Array(MEMO_ELEMENTS)
  private ids = new Float64Array(MEMO_ELEMENTS)
  private values: Array<ObjectKey | MemoryLayoutDesc | undefined> = new Array(MEMO_ELEMENTS).fill(undefined)
  // the array being recorded (committed by finish)
  private recording = false
  private recCount = 0
  private recMinId = 0
  private recStarts = new Int32Array(MEMO_ELEMENTS)
  private recEnds = new Int32Array(MEMO_ELEMENTS)
  private recIds = new Float64Array(MEMO_ELEMENTS)
  private recValues: Array<ObjectKey | MemoryLayoutDesc | undefined> = new Array(MEMO_ELEMENTS).fill(
    undefined,
  )
  private recAt = 0

  /**
   * If the bytes at `at` are the remembered array's and its values are all live, reports it to `sink` (as one
   * list when the array is a list of interned values the sink holds already, else by the spans of its values) and
   * returns the array's end; otherwise -1.
   */
  replay(buf: Uint8Array, at: number, end: number, liveFrom: number, sink: InternedSpanSink): number {
    const n = this.length
    if (n === 0 || at + n > end || this.minId < liveFrom || buf[at + n - 1] !== this.bytes[n - 1]) return -1
    if (this.bytes.compare(buf, at, at + n, 0, n) !== 0) return -1
    if (this.list >= 0 && sink.listRepeated?.(at, at + n, this.list) === true) return at + n
    if (this.list >= 0) sink.listDefined?.(at, this.list)
    for (let i = 0; i < this.count; i++)
      sink.interned(at + this.starts[i], at + this.ends[i], this.ids[i], this.values[i] as ObjectKey)
    return at + n
  }

  /** the number of the remembered array when each of its elements is an interned value itself (else -1) */
  private list = -1
  private nextList = 0
  /** whether every element of the array being recorded is an interned value itself (not a value holding one) */
  private recDirect = true

  /** Starts recording the array at `at` of `elements` elements (unless one is being recorded already). */
  begin(at: number, elements: number): boolean {
    if (this.recording || elements > MEMO_ELEMENTS || elements === 0) return false
    this.recording = true
    this.recAt = at
    this.recCount = 0
    this.recMinId = Infinity
    this.recDirect = true
    return true
  }

  /** The value of element `index` of the array being recorded (anything else ends the recording); `direct`: the
   * value is the element itself, not inside it. */
  add(
    index: number,
    start: number,
    end: number,
    id: number,
    value: ObjectKey | MemoryLayoutDesc,
    direct: boolean,
  ): void {
    if (!this.recording) return
    if (index !== this.recCount) {
      this.recording = false
      return
    }
    if (!direct) this.recDirect = false
    const i = this.recCount++
    this.recStarts[i] = start - this.recAt
    this.recEnds[i] = end - this.recAt
    this.recIds[i] = id
    this.recValues[i] = value
    if (id < this.recMinId) this.recMinId = id
  }

  /** Something not an interned value was met inside the array being recorded: it is not kept. */
  spoil(): void {
    this.recording = false
  }

  /**
   * Ends the recording of the array that ended at `endPos`: kept when each of its elements was one interned value;
   * a list of interned values is numbered and defined to `sink`.
   */
  finish(buf: Uint8Array, endPos: number, elements: number, sink: InternedSpanSink): void {
    if (!this.recording) return
    this.recording = false
    const n = endPos - this.recAt
    if (this.recCount !== elements || n > MEMO_BYTES) return
    // a key list is ~1 KiB: one native copy (no view object) beats a byte loop from a few dozen bytes on
    if (n >= 64) Buffer.prototype.copy.call(buf, this.bytes, 0, this.recAt, endPos)
    else for (let i = 0; i < n; i++) this.bytes[i] = buf[this.recAt + i]
    ;[this.starts, this.recStarts] = [this.recStarts, this.starts]
    ;[this.ends, this.recEnds] = [this.recEnds, this.ends]
    ;[this.ids, this.recIds] = [this.recIds, this.ids]
    ;[this.values, this.recValues] = [this.recValues, this.values]
    this.length = n
    this.count = elements
    this.minId = this.recMinId
    this.list = this.recDirect ? this.nextList++ : -1
    if (this.list >= 0) sink.listDefined?.(this.recAt, this.list)
  }

  /** Drops a recording left unfinished (the record it was in failed to decode). */
  reset(): void {
    this.recording = false
  }
}

/**
 * A bounded cache of decoded wrappers by their wire bytes (started afresh when full): an open-addressing table of
 * typed arrays (hash, and the entry's number) over entries numbered in the order they were remembered (the bytes'
 * place in one slab, length, id, value) — no object per entry but the value, no string per lookup.
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
  /** every value gets a number when first remembered, never reused (a decoding thread names values by it) */
  private readonly ids = new Float64Array(MAX_ENTRIES)
  /**
   * per entry: how many entries from it on were met in a row last time a run was matched from it (-1: not even
   * itself), see {@link matchRun}
   */
  private readonly runs = new Int32Array(MAX_ENTRIES)
  private readonly slab = Buffer.allocUnsafe(SLAB_BYTES)
  private slabUsed = 0
  private size = 0
  private nextId = 0
  /** the first id of the values now cached: older ones are never returned again */
  liveFrom = 0
  /** the byte length of the value {@link lookup} returned last */
  found = 0
  /** the id of the value {@link lookup} returned last */
  foundId = 0
  /** the entry {@link lookup} found or {@link remember} made last (-1: none made) */
  lastEntry = -1
  /** the last array of interned values walked */
  readonly lists = new WrapperListMemo()

  /** `matchRuns`: whether {@link matchRun} matches anything (tests turn it off to compare with the plain path) */
  constructor(private readonly matchRuns = true) {}

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
        this.foundId = this.ids[e]
        this.lastEntry = e
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

  /** Caches `value` under its bytes; returns its id (a value too long to cache gets one too, used once). */
  remember(
    buf: Uint8Array,
    start: number,
    end: number,
    hash: number,
    value: ObjectKey | MemoryLayoutDesc,
  ): number {
    const id = this.nextId++
    const n = end - start
    this.lastEntry = -1
    if (n > SLAB_BYTES) return id
    if (this.size >= MAX_ENTRIES || this.slabUsed + n > SLAB_BYTES) this.clear(id)
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
    this.ids[e] = id
    this.runs[e] = 0
    this.slabUsed += n
    this.lastEntry = e
    return id
  }

  /**
   * How many entries from `from` on (at most `max`, each a key {@link STAND_IN_KEY} stands in for) have their bytes
   * one after the other at `buf[at…]` (by `limit`). A list of keys that recurs (a shared prompt's) was remembered in
   * order, so its keys are consecutive entries, one run of slab bytes: one compare of the run learned last time,
   * else one compare per entry. Bytes equal to an entry's are that entry's value, as a lookup would find it: a
   * stand-in is remembered by walks only, which take any entry their lookup finds, so no earlier entry has its bytes.
   */
  matchRun(buf: Uint8Array, at: number, limit: number, from: number, max: number): number {
    if (!this.matchRuns || from < 0 || from >= this.size) return 0
    const learned = this.runs[from]
    if (learned < 0) return 0
    const k = Math.min(learned, max, this.size - from)
    if (k > 0) {
      const off = this.offsets[from]
      const n = this.offsets[from + k - 1] + this.lengths[from + k - 1] - off
      if (at + n <= limit && this.slab.compare(buf, at, at + n, off, off + n) === 0) return k
    }
    let r = 0
    for (let p = at; r < max && from + r < this.size; r++) {
      const e = from + r
      const n = this.lengths[e]
      if (this.values[e] !== STAND_IN_KEY || p + n > limit || !this.sameBytes(this.offsets[e], n, buf, p))
        break
      p += n
    }
    this.runs[from] = r > 0 ? r : -1
    return r
  }

  /** entry `e`'s length, id and value (for a run {@link matchRun} matched) */
  entryLength(e: number): number {
    return this.lengths[e]
  }

  entryId(e: number): number {
    return this.ids[e]
  }

  entryValue(e: number): ObjectKey | MemoryLayoutDesc {
    return this.values[e] as ObjectKey | MemoryLayoutDesc
  }

  private clear(nextId: number): void {
    this.slots.fill(0)
    this.values.fill(undefined)
    this.slabUsed = 0
    this.size = 0
    this.liveFrom = nextId
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
/** Told where each interned value was read: its bytes `[start, end)` and its id. */
export interface InternedSpanSink {
  interned(start: number, end: number, id: number, value: ObjectKey | MemoryLayoutDesc): void
  /** {@link InterningReader.walk} passed a wrapper that codec decoding will still have to decode */
  wrapperLeft(): void
  /** the array starting at `start` is a list of interned values, numbered `list` (its values are reported too) */
  listDefined?(start: number, list: number): void
  /** list `list` again at `[start, end)`: true when the sink takes it as one (its values are then not reported) */
  listRepeated?(start: number, end: number, list: number): boolean
}

/**
 * What a reading thread's walk interns for a key in the usual layout: no ObjectKey of its own (the replaying thread
 * builds the key from the bytes' fields), so the reading side keeps no object, hash copy or id per distinct key.
 */
export const STAND_IN_KEY = new ObjectKey(new Uint8Array(0), '', 0)

/** Whether the map key at `p` is the str "__t__" (in any str encoding): its map is a codec wrapper. */
function isWrapKeyAt(buf: Uint8Array, p: number): boolean {
  const b = buf[p]
  const at =
    b === 0xa5
      ? p + 1
      : b === 0xd9 && buf[p + 1] === 5
        ? p + 2
        : b === 0xda && buf[p + 1] === 0 && buf[p + 2] === 5
          ? p + 3
          : b === 0xdb && buf[p + 1] === 0 && buf[p + 2] === 0 && buf[p + 3] === 0 && buf[p + 4] === 5
            ? p + 5
            : -1
  if (at < 0) return false
  for (let i = 0; i < 5; i++) if (buf[at + i] !== WRAP_KEY[i]) return false
  return true
}

const WRAP_KEY = Buffer.from('__t__', 'latin1')

export class InterningReader extends MsgpackReader {
  constructor(
    buf: Uint8Array,
    start: number,
    end: number,
    private readonly interner: ObjectKeyInterner,
    private readonly spans?: InternedSpanSink,
  ) {
    super(buf, start, end)
    interner.lists.reset() // a recording a failed record left
  }

  /**
   * Validates the value at pos exactly as `skip()` does (same checks, same errors), building nothing but the interned
   * wrappers inside it (reported to the span sink): the reading side of a threaded replay, whose values are rebuilt
   * from bytes on the other side.
   */
  walk(): void {
    const at = this.pos
    const b = this.buf[at]
    if (b === 0x82 && internedTagAt(this.buf, at, this.end) >= 0) {
      this.walking = this.spans !== undefined
      const v = this.value()
      this.walking = false
      if (!(v instanceof ObjectKey) && !(v instanceof MemoryLayoutDesc)) this.leftWrapper()
      return
    }
    if ((b >= 0x80 && b <= 0x9f) || (b >= 0xdc && b <= 0xdf)) {
      const isMap = b <= 0x8f || b >= 0xde
      const lists = this.interner.lists
      // the bytes of the array last walked: valid as they were (away from the nesting limit), the same values
      if (!isMap && this.spans !== undefined && this.depth + 8 < MAX_NESTING) {
        const end = lists.replay(this.buf, at, this.end, this.interner.liveFrom, this.spans)
        if (end >= 0) {
          this.pos = end
          return
        }
      }
      this.u8()
      const n = b <= 0x9f ? b & 0x0f : b === 0xdc || b === 0xde ? this.u16() : this.u32()
      if ((isMap ? n * 2 : n) > this.end - this.pos) this.fail('truncated value')
      this.enter(at)
      const recording = !isMap && this.spans !== undefined && lists.begin(at, n)
      for (let i = 0; i < n; i++) {
        if (isMap) {
          if (!isKeyByte(this.peek())) this.fail(`unsupported map key type ${familyOf(this.peek())}`)
          if (isWrapKeyAt(this.buf, this.pos)) this.leftWrapper()
          this.skip()
        }
        // the keys that followed the previous one when it was first remembered, as one run (a shared prefix)
        if (recording && this.runAt === this.pos && this.depth + 8 < MAX_NESTING) {
          const r = this.interner.matchRun(this.buf, this.pos, this.end, this.runFrom, n - i)
          if (r > 0) {
            this.reportRun(i, r)
            i += r - 1
            continue
          }
        }
        if (recording) {
          this.element = i
          this.elementAt = this.pos
        }
        this.walk()
      }
      if (recording) {
        this.element = -1
        lists.finish(this.buf, this.pos, n, this.spans as InternedSpanSink)
      }
      this.depth--
      return
    }
    this.skip()
  }

  /** a wrapper is being walked: a key in the usual layout is interned as {@link STAND_IN_KEY} */
  private walking = false

  /** the element of the array being recorded that is walked now, and where it starts */
  private element = -1
  private elementAt = -1

  private leftWrapper(): void {
    this.spans?.wrapperLeft()
    this.interner.lists.spoil()
  }

  /** Tells the span sink (and the array being recorded) where an interned value was read. */
  private report(start: number, end: number, id: number, value: ObjectKey | MemoryLayoutDesc): void {
    if (this.spans === undefined) return
    this.spans.interned(start, end, id, value)
    if (this.element >= 0)
      this.interner.lists.add(this.element, start, end, id, value, start === this.elementAt)
    const e = this.interner.lastEntry
    this.runFrom = value === STAND_IN_KEY && e >= 0 ? e + 1 : -1
    this.runAt = this.runFrom >= 0 ? end : -1
  }

  /**
   * the entry that may come next (the one remembered after the stand-in reported last) and where (-1: none): the
   * walk of an array tries the run of entries from there before a lookup per element
   */
  private runFrom = -1
  private runAt = -1

  /** Elements `i…i + r - 1` of the array being recorded are the entries of the run `matchRun` matched. */
  private reportRun(i: number, r: number): void {
    const interner = this.interner
    const from = this.runFrom
    for (let j = 0; j < r; j++) {
      const start = this.pos
      const end = start + interner.entryLength(from + j)
      this.element = i + j
      this.elementAt = start
      this.pos = end
      interner.lastEntry = from + j
      this.report(start, end, interner.entryId(from + j), interner.entryValue(from + j))
    }
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
    const shortcut = this.depth + 8 < MAX_NESTING
    let hash = 0
    if (p + HASH_WINDOW <= this.end) {
      hash = hashBytes(buf, p, p + HASH_WINDOW)
      const hit = shortcut ? this.interner.lookup(buf, p, this.end, hash) : undefined
      // a stand-in serves walks only (anything else, an odd `type` field, gets the key itself)
      if (hit && (hit !== STAND_IN_KEY || this.walking)) {
        this.pos = p + this.interner.found
        this.report(p, this.pos, this.interner.foundId, hit)
        return hit as unknown as RawValue
      }
    }
    // a new key in the usual layout, away from the nesting limit and long enough to have been looked up by its head:
    // its reading finds its end and validates it (the layout is valid msgpack), so it is not skipped first
    if (shortcut && this.walking && p + HASH_WINDOW <= this.end && INTERNED[k].ctor === ObjectKey) {
      if (readCanonicalKey(buf, p, this.end, true)) {
        const end = canonicalKey.end
        this.pos = end
        const id = this.interner.remember(buf, p, end, hash, STAND_IN_KEY)
        this.report(p, end, id, STAND_IN_KEY)
        return STAND_IN_KEY as unknown as RawValue
      }
    }
    // validates the whole wrapper and finds its end: the fast lane, or the exact skipper for the precise error
    let end = skipValid(buf, p, this.end, this.depth + 1)
    if (end < 0) {
      this.skip()
      end = this.pos
    }
    if (end - p < HASH_WINDOW) {
      hash = hashBytes(buf, p, end) ^ SHORT_SALT
      const hit = this.interner.lookup(buf, p, end, hash)
      if (hit && (hit !== STAND_IN_KEY || this.walking)) {
        this.pos = end
        this.report(p, end, this.interner.foundId, hit)
        return hit as unknown as RawValue
      }
    }
    // a new key in the usual layout: read straight from its bytes (its end is known and the bytes are valid)
    if (INTERNED[k].ctor === ObjectKey && this.walking) {
      if (readCanonicalKey(buf, p, end)) {
        this.pos = end
        const id = this.interner.remember(buf, p, end, hash, STAND_IN_KEY)
        this.report(p, end, id, STAND_IN_KEY)
        return STAND_IN_KEY as unknown as RawValue
      }
    } else if (INTERNED[k].ctor === ObjectKey) {
      const key = canonicalObjectKey(buf, p, end)
      if (key !== undefined) {
        this.pos = end
        const id = this.interner.remember(buf, p, end, hash, key)
        this.report(p, end, id, key)
        return key as unknown as RawValue
      }
    }
    this.pos = p
    const raw = super.value() as RawMap
    try {
      const value = decodeValue(raw)
      if (value instanceof INTERNED[k].ctor) {
        const id = this.interner.remember(buf, p, end, hash, value)
        this.report(p, end, id, value)
        return value as unknown as RawValue
      }
    } catch {
      // an invalid payload: keep it raw; decodeArgs reports it
    }
    return raw
  }
}
