// Decoded records handed from a reading thread to the replay thread (docs/storage-replay.md §3, our addition): the
// reading thread validates every frame and interns keys as the in-thread reader does; what crosses is compact —
// per record its numbers, and its args bytes with every interned value replaced by a reference to it.
import {decodeValue} from './codecs.js'
import {BytePool} from './byte-pool.js'
import {type InternedSpanSink, STAND_IN_KEY} from './key-intern.js'
import {canonicalKey, readCanonicalKey} from './object-key-wire.js'
import {MsgpackReader, nullProtoObject, type RawMap, type RawValue} from './msgpack.js'
import type {DecodedRecordFields} from './frame-decode.js'
import {ARGS_DECODED, type MarkedRecord} from './record-args.js'
import {MemoryLayoutDesc, ObjectKey} from './values.js'
import type {LctRecord, LctWarning} from './types.js'
import {grown} from '../util/grown.js'

/**
 * A reference to an interned value: 0xc1 (never valid msgpack, so never in a frame that decoded) + a 48-bit id.
 * With the id's top bit set it is a list mark instead: 2 × list (+ 1) — the array that follows is list `list`
 * (its values referenced one by one), or (+ 1) list `list` again, the array itself left out.
 */
const REF = 0xc1
const REF_BYTES = 7
const LIST_MARK = 0x8000
/** numbers per record in {@link TapeBatch.nums} and {@link TapeBatch.ints} */
const NUMS = 4
const INTS = 5
/** ObjectKey given by its fields, or any value by its wire bytes */
const DEF_KEY = 0
const DEF_BYTES = 1
/** per definition: id, kind, bytes start, bytes end, model string, salt string, object group, kv rank */
const DEF_NUMS = 8
/** distinct model names and salts sent as strings; beyond that keys travel as bytes */
const MAX_STRINGS = 4096
/** distinct qualnames numbered once; beyond that (a pathological trace) each record carries its own */
const MAX_QUALNAMES = 4096

/** One batch of records, with the values and names they introduce (its buffers are transferred, not copied). */
export interface TapeBatch {
  count: number
  /** per record: t_mono, t_wall, frame offset, index */
  nums: Float64Array
  /** per record: qualname number, body length, args start, args end (in `bytes`), 1 if args need codec decoding */
  ints: Int32Array
  bytes: Uint8Array
  /** new qualnames, numbered after the previous ones */
  qualnames: string[]
  /** qualnames given once, for records whose qualname number is negative (−1 is the first) */
  ownQualnames: string[]
  /** new model names and salts, numbered after the previous ones */
  strings: string[]
  defCount: number
  defs: Float64Array
  /** warnings and the number of records of this batch read before each */
  warnings: Array<{before: number; warning: LctWarning}>
  /** values with a smaller id are never referenced again */
  liveFrom: number
}

class Growable {
  bytes = new Uint8Array(1 << 20)
  used = 0

  reserve(n: number): void {
    if (this.used + n <= this.bytes.length) return
    let size = this.bytes.length * 2
    while (size < this.used + n) size *= 2
    this.bytes = grown(this.bytes, size, this.used)
  }

  copy(src: Uint8Array, start: number, end: number): void {
    const n = end - start
    this.reserve(n)
    const out = this.bytes
    let at = this.used
    if (n <= 64) for (let i = start; i < end; i++) out[at++] = src[i]
    else out.set(src.subarray(start, end), at)
    this.used += n
  }
}

/** Numbers appended to a typed array kept from batch to batch (a fresh array per batch would regrow every time). */
class Column<A extends Float64Array | Int32Array> {
  length = 0

  constructor(private data: A) {}

  push(v: number): void {
    if (this.length === this.data.length) this.data = grown(this.data, this.data.length * 2)
    this.data[this.length++] = v
  }

  /** A copy of the numbers so far (then starts afresh). */
  take(): A {
    const out = this.data.slice(0, this.length) as A
    this.length = 0
    return out
  }
}

/** The reading side: collects records into batches (also the sink of interned spans during decoding). */
export class TapeWriter implements InternedSpanSink {
  private tape = new Growable()
  private readonly nums = new Column(new Float64Array(NUMS * 2048))
  private readonly ints = new Column(new Int32Array(INTS * 2048))
  private readonly defs = new Column(new Float64Array(DEF_NUMS * 1024))
  private newQualnames: string[] = []
  private ownQualnames: string[] = []
  private newStrings: string[] = []
  private warnings: TapeBatch['warnings'] = []
  private readonly qualnameIds = new Map<string, number>()
  private readonly stringIds = new Map<string, number>()
  private definedUpTo = -1
  /** interned spans of the record being decoded: start, end, id (`spanCount` numbers; kept, not shrunk, between
   * records: an array emptied by `length = 0` lets its storage go and regrows it record after record) */
  private spans = new Float64Array(3 * 64)
  private spanCount = 0
  count = 0

  /** whether the record being decoded holds a wrapper that was not interned */
  private wrappers = false

  beginRecord(): void {
    this.spanCount = 0
    this.wrappers = false
  }

  wrapperLeft(): void {
    this.wrappers = true
  }

  /** The buffer the record being decoded lives in (spans are positions in it). */
  setSource(buf: Uint8Array): void {
    this.source = buf
  }

  private source: Uint8Array = new Uint8Array(0)

  interned(start: number, end: number, id: number, value: ObjectKey | MemoryLayoutDesc): void {
    if (id > this.definedUpTo) this.define(id, value, start, end)
    // a value decoded inside one that is also interned is covered by it
    while (this.spanCount > 0 && this.spans[this.spanCount - 3] >= start) this.spanCount -= 3
    this.pushSpan(start, end, id)
  }

  private pushSpan(start: number, end: number, id: number): void {
    if (this.spanCount + 3 > this.spans.length) {
      this.spans = grown(this.spans, this.spans.length * 2)
    }
    const spans = this.spans
    spans[this.spanCount] = start
    spans[this.spanCount + 1] = end
    spans[this.spanCount + 2] = id
    this.spanCount += 3
  }

  /** the list the tape defined last (the replaying side holds its array); lists are numbered in walk order */
  private tapeList = -1

  listDefined(start: number, list: number): void {
    // a mark before the array: placed before the spans of its values (reported before it, when it was recorded)
    let at = this.spanCount
    while (at > 0 && this.spans[at - 3] >= start) at -= 3
    this.pushSpan(0, 0, 0)
    this.spans.copyWithin(at + 3, at, this.spanCount - 3)
    this.spans[at] = start
    this.spans[at + 1] = start
    this.spans[at + 2] = -(2 * list + 1)
  }

  listRepeated(start: number, end: number, list: number): boolean {
    // only a list the tape defined in an earlier record: a definition in this one might not reach the tape
    if (list !== this.tapeList) return false
    this.pushSpan(start, end, -(2 * list + 2))
    return true
  }

  private stringId(s: string): number {
    let id = this.stringIds.get(s)
    if (id === undefined) {
      if (this.stringIds.size >= MAX_STRINGS) return -1
      id = this.stringIds.size
      this.stringIds.set(s, id)
      this.newStrings.push(s)
    }
    return id
  }

  /** A value seen for the first time: an ObjectKey by its fields, anything else by its wire bytes. */
  private define(id: number, value: ObjectKey | MemoryLayoutDesc, start: number, end: number): void {
    this.definedUpTo = id
    const tape = this.tape
    const at = tape.used
    const k = canonicalKey
    // a key in the usual layout: its fields are read from its bytes (just read by the walk that found it)
    if (
      value === STAND_IN_KEY &&
      ((k.start === start && k.buf === this.source) || readCanonicalKey(this.source, start, end))
    ) {
      const model = this.stringId(k.model)
      const salt = model < 0 ? -1 : this.stringId(k.salt)
      if (salt >= 0) {
        tape.copy(this.source, k.hashStart, k.hashEnd)
        this.pushDef(id, DEF_KEY, at, tape.used, model, salt, k.group, k.rank)
        return
      }
    } else if (value instanceof ObjectKey && typeof value.kvRank === 'number') {
      const model = this.stringId(value.modelName)
      const salt = model < 0 ? -1 : this.stringId(value.cacheSalt)
      if (salt >= 0) {
        tape.copy(value.chunkHash, 0, value.chunkHash.length)
        this.pushDef(id, DEF_KEY, at, tape.used, model, salt, value.objectGroupId, value.kvRank)
        return
      }
    }
    tape.copy(this.source, start, end)
    this.pushDef(id, DEF_BYTES, at, tape.used, 0, 0, 0, 0)
  }

  private pushDef(...fields: [number, number, number, number, number, number, number, number]): void {
    for (let i = 0; i < DEF_NUMS; i++) this.defs.push(fields[i])
  }

  /** A warning of the reader, placed before the next record. */
  warn(warning: LctWarning): void {
    this.warnings.push({before: this.count, warning})
  }

  /** Adds the record decoded from the source (spans reported since {@link beginRecord} are inside its args). */
  addRecord(f: DecodedRecordFields, offset: number, length: number, index: number): void {
    const buf = this.source
    let q = this.qualnameIds.get(f.qualname)
    if (q === undefined) {
      if (this.qualnameIds.size < MAX_QUALNAMES) {
        q = this.qualnameIds.size
        this.qualnameIds.set(f.qualname, q)
        this.newQualnames.push(f.qualname)
      } else q = -this.ownQualnames.push(f.qualname)
    }
    const tape = this.tape
    const argsStart = tape.used
    let at = f.argsStart
    const spans = this.spans
    for (let s = 0; s < this.spanCount; s += 3) {
      const start = spans[s]
      const end = spans[s + 1]
      if (start < f.argsStart || end > f.argsEnd) continue // a repeated args key: an earlier value's spans
      tape.copy(buf, at, start)
      tape.reserve(REF_BYTES)
      let id = spans[s + 2]
      let next = end
      if (id < 0) {
        // a list mark: its number, and (defining it) the array after it
        const list = Math.floor((-id - 1) / 2)
        if (-id % 2 === 1) {
          this.tapeList = list
          next = start
        }
        id = LIST_MARK * 0x100000000 + (-id - 1)
      }
      const out = tape.bytes
      const hi = Math.floor(id / 0x100000000)
      const lo = id >>> 0
      out[tape.used] = REF
      out[tape.used + 1] = hi >>> 8
      out[tape.used + 2] = hi & 0xff
      out[tape.used + 3] = lo >>> 24
      out[tape.used + 4] = (lo >>> 16) & 0xff
      out[tape.used + 5] = (lo >>> 8) & 0xff
      out[tape.used + 6] = lo & 0xff
      tape.used += REF_BYTES
      at = next
    }
    tape.copy(buf, at, f.argsEnd)
    const nums = this.nums
    nums.push(f.tMono)
    nums.push(f.tWall)
    nums.push(offset)
    nums.push(index)
    const ints = this.ints
    ints.push(q)
    ints.push(length)
    ints.push(argsStart)
    ints.push(tape.used)
    ints.push(this.wrappers ? 1 : 0)
    this.count++
  }

  get bytesUsed(): number {
    return this.tape.used
  }

  /** Whether {@link take} has anything to hand over (records or warnings). */
  get pending(): boolean {
    return this.count > 0 || this.warnings.length > 0
  }

  /** The batch so far (then starts a new one). */
  take(liveFrom: number): TapeBatch {
    const batch: TapeBatch = {
      count: this.count,
      nums: this.nums.take(),
      ints: this.ints.take(),
      bytes: this.tape.bytes.slice(0, this.tape.used),
      qualnames: this.newQualnames,
      ownQualnames: this.ownQualnames,
      strings: this.newStrings,
      defCount: this.defs.length / DEF_NUMS,
      defs: this.defs.take(),
      warnings: this.warnings,
      liveFrom,
    }
    this.tape.used = 0
    this.newQualnames = []
    this.ownQualnames = []
    this.newStrings = []
    this.warnings = []
    this.count = 0
    return batch
  }
}

/**
 * The values the reading side may still reference, by id. Ids only grow, and those below `liveFrom` are never used
 * again, so the live ones (usually at most two generations of the reading side's cache, 2 × 65,536) fit a ring; a
 * record with more new keys than that makes it grow.
 */
class ValueRing {
  private values: Array<ObjectKey | MemoryLayoutDesc | undefined>
  private ids: Float64Array
  /** ids below this were cleared */
  private clearedTo = 0
  private highest = -1

  constructor(private size: number) {
    this.values = new Array<ObjectKey | MemoryLayoutDesc | undefined>(size).fill(undefined)
    this.ids = new Float64Array(size).fill(-1)
  }

  set(id: number, value: ObjectKey | MemoryLayoutDesc): void {
    let at = id % this.size
    if (this.values[at] !== undefined && this.ids[at] >= this.clearedTo && this.ids[at] !== id) {
      this.grow(id)
      at = id % this.size
    }
    this.values[at] = value
    this.ids[at] = id
    if (id > this.highest) this.highest = id
  }

  get(id: number): ObjectKey | MemoryLayoutDesc {
    const at = id % this.size
    const v = this.values[at]
    if (v === undefined || this.ids[at] !== id) throw new Error(`record tape: value ${id} was never defined`)
    return v
  }

  /** Drops the values below `liveFrom` (they are never referenced again). */
  forgetBelow(liveFrom: number): void {
    const to = Math.min(liveFrom, this.highest + 1)
    for (let id = Math.max(this.clearedTo, to - this.size); id < to; id++) {
      const at = id % this.size
      if (this.ids[at] === id) this.values[at] = undefined
    }
    if (to > this.clearedTo) this.clearedTo = to
  }

  /** A ring large enough for every live id and `id` (no two of them share a place). */
  private grow(id: number): void {
    const {values, ids} = this
    const span = Math.max(id, this.highest) - this.clearedTo + 1
    while (this.size <= span) this.size *= 2
    this.values = new Array<ObjectKey | MemoryLayoutDesc | undefined>(this.size).fill(undefined)
    this.ids = new Float64Array(this.size).fill(-1)
    for (let i = 0; i < values.length; i++) {
      const v = values[i]
      if (v === undefined || ids[i] < this.clearedTo) continue
      this.values[ids[i] % this.size] = v
      this.ids[ids[i] % this.size] = ids[i]
    }
  }
}

/** the arrays handed to several records (never changed, by the consumer's promise) */
const sharedLists = new WeakSet<object>()

/** Whether `list` is an array the tape hands to several records: what is learnt of it holds for all of them. */
export function isSharedList(list: readonly unknown[]): boolean {
  return sharedLists.has(list)
}

/**
 * The list of interned values the tape defined last. Shared, its array is handed to every record that repeats it
 * (its elements are immutable values; the consumer promised not to change the array); else each gets a copy. Not
 * frozen: V8's slice, map and filter take a slow path on frozen arrays (the model thread lost ~20 %).
 */
class TapeList {
  number = -1
  items: RawValue[] = []

  constructor(readonly shared: boolean) {}

  define(list: number, items: RawValue): RawValue {
    if (!Array.isArray(items)) throw new Error(`record tape: list ${list} is not an array`)
    this.number = list
    this.items = items
    if (!this.shared) return items.slice()
    sharedLists.add(items)
    return items
  }

  again(list: number): RawValue {
    if (list !== this.number) throw new Error(`record tape: list ${list} was never defined`)
    return this.shared ? this.items : this.items.slice()
  }
}

/** Tape bytes: a reference is the value it names; everything else is msgpack exactly as it was in the frame. */
class TapeValueReader extends MsgpackReader {
  constructor(
    buf: Uint8Array,
    start: number,
    end: number,
    private readonly values: ValueRing,
    private readonly list: TapeList,
  ) {
    super(buf, start, end)
  }

  override value(): RawValue {
    const p = this.pos
    const buf = this.buf
    if (buf[p] !== REF) return super.value()
    const hi = (buf[p + 1] << 8) | buf[p + 2]
    const lo = ((buf[p + 3] << 24) | (buf[p + 4] << 16) | (buf[p + 5] << 8) | buf[p + 6]) >>> 0
    this.pos = p + REF_BYTES
    if (hi >= LIST_MARK) return this.listMark((hi - LIST_MARK) * 0x100000000 + lo)
    return this.values.get(hi * 0x100000000 + lo) as unknown as RawValue
  }

  private listMark(mark: number): RawValue {
    const list = Math.floor(mark / 2)
    return mark % 2 === 0 ? this.list.define(list, this.value()) : this.list.again(list)
  }

  /** The args map (its keys were checked to be str when the frame was read). */
  args(): RawMap {
    const n = this.mapHeader()
    const out = nullProtoObject<RawMap>()
    for (let i = 0; i < n; i++) {
      const key = this.mapKey()
      out[key] = this.value()
    }
    return out
  }
}

/** The replaying side: turns batches back into the records the in-thread reader would have yielded. */
export class TapeDecoder {
  private readonly values: ValueRing

  private readonly list: TapeList

  /**
   * `shareLists`: records that repeat a list of keys get one array (for consumers that never change the arrays of
   * the args they are given), else each a copy; `ringSize`: the places for values at first (tests give a small one to
   * see it grow)
   */
  constructor({shareLists = false, ringSize = 1 << 18}: {shareLists?: boolean; ringSize?: number} = {}) {
    this.values = new ValueRing(ringSize)
    this.list = new TapeList(shareLists)
  }
  private readonly qualnames: string[] = []
  private readonly strings: string[] = []
  private readonly hashes = new BytePool()

  /** the tape bytes of the batch opened last, as a Buffer view */
  private buf: Buffer = Buffer.alloc(0)

  /** Every record of `batch`. */
  records(batch: TapeBatch): LctRecord[] {
    this.open(batch)
    const out = this.range(batch, 0, batch.count)
    this.close(batch)
    return out
  }

  /** Takes in the names and values `batch` introduces (before any of its records is decoded). */
  open(batch: TapeBatch): void {
    for (const q of batch.qualnames) this.qualnames.push(q)
    for (const s of batch.strings) this.strings.push(s)
    // a Buffer view, as the frame was: bytes values are then copied out as the in-thread reader copies them
    const buf = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength)
    this.buf = buf
    const d = batch.defs
    for (let i = 0; i < batch.defCount; i++) {
      const o = i * DEF_NUMS
      const id = d[o]
      const start = d[o + 2]
      const end = d[o + 3]
      const value =
        d[o + 1] === DEF_KEY
          ? this.key(buf, start, end, this.strings[d[o + 4]], d[o + 7], d[o + 6], this.strings[d[o + 5]])
          : (decodeValue(new MsgpackReader(buf, start, end).value()) as ObjectKey | MemoryLayoutDesc)
      this.values.set(id, value)
    }
  }

  /** A key defined by its fields, its hash `buf[start, end)` copied into the pool (no view of its own until asked). */
  private key(
    buf: Buffer,
    start: number,
    end: number,
    model: string,
    rank: number,
    group: number,
    salt: string,
  ): ObjectKey {
    const hashes = this.hashes
    const at = hashes.place(buf, start, end)
    if (at < 0) return new ObjectKey(hashes.copy(buf, start, end), model, rank, group, salt)
    return ObjectKey.inPool(hashes.chunk, at, end - start, model, rank, group, salt)
  }

  /**
   * Records `[from, to)` of the batch opened last. Decoded a few at a time as they are replayed, records are
   * garbage by the next collection; a whole batch decoded at once was copied by every collection meeting it.
   */
  range(batch: TapeBatch, from: number, to: number): LctRecord[] {
    const {nums, ints} = batch
    const buf = this.buf
    const out: LctRecord[] = new Array<LctRecord>(to - from)
    for (let i = from; i < to; i++) {
      const n = i * NUMS
      const k = i * INTS
      const args = new TapeValueReader(buf, ints[k + 2], ints[k + 3], this.values, this.list).args()
      const record: MarkedRecord = {
        tMono: nums[n],
        tWall: nums[n + 1],
        qualname: ints[k] >= 0 ? this.qualnames[ints[k]] : batch.ownQualnames[-ints[k] - 1],
        args,
        offset: nums[n + 2],
        length: ints[k + 1],
        index: nums[n + 3],
        // every wrapper in them was an interned key or layout, rebuilt already: codec decoding would change nothing
        [ARGS_DECODED]: ints[k + 4] === 0,
      }
      out[i - from] = record
    }
    return out
  }

  /** After the last record of `batch`: the values it was the last to reference are let go. */
  close(batch: TapeBatch): void {
    this.values.forgetBelow(batch.liveFrom)
    this.buf = Buffer.alloc(0)
  }
}
