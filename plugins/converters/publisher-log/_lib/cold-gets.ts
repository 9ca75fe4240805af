// Gets of a publisher log that stay pending long after their batch, kept as rows of typed-array columns with their
// keys in the spill file: a log's gets that are never written wait until the end of the input, and as objects (a
// pending get, its BigInts, its index entry and pass-through values) each cost the heap ~500 bytes, so the heap grew
// with the input's length. A row costs ~70 bytes and the
// index a few more. Only the usual get goes cold: int64 keys (at least two), a timestamp and input length in int64,
// pass-through values among the first MAX_TAILS distinct ones; any other stays an object (publisher-pending-gets.ts).
import {KeyList, serializeJson} from 'lmt'
import {type KeySpill, SpilledKeys} from './key-spill.js'

/** The pass-through values of a get, shared by every cold get that has the same ones. */
export interface GetTail {
  queryType: unknown
  blockMask: unknown
  swSize: unknown
  locationSpecNames: unknown
}

/** A cold get read back out of its row (its keys still in the spill file). */
export interface ColdGet extends GetTail {
  seq: number
  instance: string
  ts: bigint
  keys: SpilledKeys
  inputLen: bigint
}

const MAX_TAILS = 1 << 16
const MIN_ROWS = 1024
const inInt64 = (v: bigint) => BigInt.asIntN(64, v) === v

/**
 * A first key's two 32-bit halves, as the index compares them: the key is stored here and its halves read back
 * (no BigInt arithmetic and no array per write).
 */
const firstKey = new BigInt64Array(1)
const firstHalves = new Int32Array(firstKey.buffer)

/** One part of a tail's interning key: primitives tagged by type, anything else by its exact JSON text. */
function tailPart(v: unknown): string {
  if (typeof v === 'string') return 's' + JSON.stringify(v)
  if (Object.is(v, -0)) return 'n-0'
  if (v === null || typeof v !== 'object') return typeof v + String(v)
  return Array.isArray(v) && v.length === 0 ? 'j[]' : 'j' + serializeJson(v)
}

/** Column i of row r holds field i of the r-th get that went cold (rows in the order of their seq). */
const COLUMNS = {
  seq: Float64Array,
  ts: BigInt64Array,
  inputLen: BigInt64Array,
  offset: Float64Array,
  prefixHash: Float64Array,
  nKeys: Int32Array,
  textBytes: Int32Array,
  instance: Int32Array,
  tail: Int32Array,
  firstLo: Int32Array,
  firstHi: Int32Array,
  /** the next older row with the same instance and first key, or -1 */
  older: Int32Array,
  live: Uint8Array,
}
type Columns = {readonly [K in keyof typeof COLUMNS]: InstanceType<(typeof COLUMNS)[K]>} & {capacity: number}
const NAMES = Object.keys(COLUMNS) as Array<keyof typeof COLUMNS>

function newColumns(capacity: number): Columns {
  const c: Record<string, unknown> = {capacity}
  for (const name of NAMES) c[name] = new COLUMNS[name](capacity)
  return c as Columns
}

/** Copies row `from` of `src` into row `to` of `dst` (the chain too, though the index rebuilds it). */
function copyRow(src: Columns, from: number, dst: Columns, to: number): void {
  for (const name of NAMES) (dst[name] as Record<number, unknown>)[to] = src[name][from]
}

/**
 * The cold gets: rows in the order they went cold (which is the order of their seq), an open-addressing index from
 * (instance, first key) to the newest row, each row linked to the next older one with the same pair. A matched row is
 * only marked dead; once dead rows outnumber live ones, the live ones are copied into new columns.
 */
export class ColdGets {
  private cols = newColumns(MIN_ROWS)
  private rows = 0
  private dead = 0
  /** row + 1 of the newest row of each (instance, first key); 0: empty */
  private slots = new Int32Array(2 * MIN_ROWS)
  private entries = 0
  private readonly instanceIds = new Map<string, number>()
  private readonly instances: string[] = []
  private readonly tailIds = new Map<string, number>()
  private readonly tails: GetTail[] = []
  private lastTail = -1

  constructor(private readonly spill: KeySpill) {}

  /** Live rows. */
  get size(): number {
    return this.rows - this.dead
  }

  /**
   * Adds a get if it can go cold (see the file's comment; its seq above every row's) and says whether it did; its
   * keys go to the spill file.
   */
  tryAdd(g: Omit<ColdGet, 'keys'>, keys: KeyList | unknown[]): boolean {
    if (!(keys instanceof KeyList) || keys.length < 2) return false
    if (!inInt64(g.ts) || !inInt64(g.inputLen)) return false
    const tail = this.tailId(g)
    if (tail < 0) return false
    // full: the dead rows go, and the room doubles only if the live ones fill more than half of it
    if (this.rows === this.cols.capacity) this.regrow(Math.max(MIN_ROWS, 2 * this.size))
    const h = this.spill.put(keys)
    const c = this.cols
    const r = this.rows++
    c.seq[r] = g.seq
    c.ts[r] = g.ts
    c.inputLen[r] = g.inputLen
    c.offset[r] = h.offset
    c.prefixHash[r] = h.prefixHash
    c.nKeys[r] = h.length
    c.textBytes[r] = h.textBytes
    c.instance[r] = this.instanceId(g.instance)
    c.tail[r] = tail
    firstKey[0] = keys.words()[0]
    c.firstLo[r] = firstHalves[0]
    c.firstHi[r] = firstHalves[1]
    c.live[r] = 1
    this.link(r)
    return true
  }

  /**
   * The newest live row of `instance` with the first key `first` that is newer than the get `newerThan` (a seq), at
   * or before `ts` and whose keys `matches`; or -1.
   */
  match(
    instance: string,
    first: bigint,
    ts: bigint,
    newerThan: number,
    matches: (keys: SpilledKeys) => boolean,
  ): number {
    const id = this.instanceIds.get(instance)
    if (id === undefined) return -1
    firstKey[0] = first
    const c = this.cols
    for (let r = this.slots[this.find(id, firstHalves[0], firstHalves[1])] - 1; r >= 0; r = c.older[r]) {
      if (c.live[r] !== 1) continue
      if (c.seq[r] < newerThan) return -1
      if (c.ts[r] <= ts && matches(this.keysOf(r))) return r
    }
    return -1
  }

  keysOf(row: number): SpilledKeys {
    const c = this.cols
    return new SpilledKeys(c.offset[row], c.nKeys[row], c.textBytes[row], c.prefixHash[row])
  }

  /** Marks the row matched and reads it back. */
  take(row: number): ColdGet {
    const g = this.read(row)
    this.cols.live[row] = 0
    this.dead++
    if (this.dead > this.size && this.rows >= MIN_ROWS) this.regrow(Math.max(MIN_ROWS, 2 * this.size))
    return g
  }

  /** The live rows in the order of their seq, read back one at a time; empties the store as it goes. */
  *drain(): Generator<ColdGet> {
    for (let r = 0; r < this.rows; r++) if (this.cols.live[r] === 1) yield this.read(r)
    this.cols = newColumns(MIN_ROWS)
    this.rows = this.dead = this.entries = 0
    this.slots = new Int32Array(2 * MIN_ROWS)
  }

  private read(row: number): ColdGet {
    const c = this.cols
    return {
      seq: c.seq[row],
      instance: this.instances[c.instance[row]],
      ts: c.ts[row],
      keys: this.keysOf(row),
      inputLen: c.inputLen[row],
      ...this.tails[c.tail[row]],
    }
  }

  private instanceId(instance: string): number {
    let id = this.instanceIds.get(instance)
    if (id === undefined) {
      id = this.instances.push(instance) - 1
      this.instanceIds.set(instance, id)
    }
    return id
  }

  /** The id of the get's pass-through values (the last one's again when they are the same), or -1: too many. */
  private tailId(g: GetTail): number {
    const last = this.tails[this.lastTail]
    if (last !== undefined && sameTail(last, g)) return this.lastTail
    const key = tailKey(g)
    let id = this.tailIds.get(key)
    if (id === undefined) {
      if (this.tails.length >= MAX_TAILS) return -1
      const {queryType, blockMask, swSize, locationSpecNames} = g
      id = this.tails.push({queryType, blockMask, swSize, locationSpecNames}) - 1
      this.tailIds.set(key, id)
    }
    return (this.lastTail = id)
  }

  /** The slot of (instance, lo, hi): its own, or the empty one where it would go. */
  private find(instance: number, lo: number, hi: number): number {
    const mask = this.slots.length - 1
    let i =
      (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1) ^ Math.imul(instance, 0x85ebca6b), 0x27d4eb2f) >>> 7) & mask
    const c = this.cols
    for (;;) {
      const s = this.slots[i]
      if (s === 0) return i
      const r = s - 1
      if (c.firstLo[r] === lo && c.firstHi[r] === hi && c.instance[r] === instance) return i
      i = (i + 1) & mask
    }
  }

  /** Makes row r the newest of its pair. */
  private link(r: number): void {
    const c = this.cols
    const i = this.find(c.instance[r], c.firstLo[r], c.firstHi[r])
    c.older[r] = this.slots[i] - 1
    if (this.slots[i] === 0 && ++this.entries * 2 > this.slots.length) {
      this.slots[i] = r + 1
      this.reindex(this.slots.length * 2)
      return
    }
    this.slots[i] = r + 1
  }

  /** New columns of `capacity` rows holding the live rows in order; the dead ones go. */
  private regrow(capacity: number): void {
    const from = this.cols
    const to = newColumns(Math.max(capacity, this.size))
    let n = 0
    for (let r = 0; r < this.rows; r++) if (from.live[r] === 1) copyRow(from, r, to, n++)
    this.cols = to
    this.rows = n
    this.dead = 0
    let slots = 2 * MIN_ROWS
    while (slots < 2 * n) slots *= 2
    this.reindex(slots)
  }

  /** Rebuilds the index and the chains in `size` slots. */
  private reindex(size: number): void {
    this.slots = new Int32Array(size)
    this.entries = 0
    const c = this.cols
    for (let r = 0; r < this.rows; r++) {
      const i = this.find(c.instance[r], c.firstLo[r], c.firstHi[r])
      if (this.slots[i] === 0) this.entries++
      c.older[r] = this.slots[i] - 1
      this.slots[i] = r + 1
    }
  }
}

/** The same value as the worker gives it: equal primitives, or both an empty list (a new one per get). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null) return Object.is(a, b)
  return Array.isArray(a) && a.length === 0 && Array.isArray(b) && b.length === 0
}

const TAIL_FIELDS = ['queryType', 'blockMask', 'swSize', 'locationSpecNames'] as const

const sameTail = (a: GetTail, b: GetTail): boolean => TAIL_FIELDS.every((f) => sameValue(a[f], b[f]))

const tailKey = (g: GetTail): string => TAIL_FIELDS.map((f) => tailPart(g[f])).join('\u0000')
