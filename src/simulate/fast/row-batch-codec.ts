// Trace rows as typed arrays on shared memory, so a sweep's worker threads see the rows held here without a
// structured clone per row. The strings (instances, query types) cross once each, in a table.
import type {RowType, TraceRow} from '../input/trace-rows.js'

const TYPES: RowType[] = ['get', 'write', 'request']
/** the mask of rows without a block_mask (and of writes): shared, as the byte scanner shares its own */
const NO_MASK: boolean[] = []

/** The arrays of one slot (on SharedArrayBuffers: both threads see the same bytes). */
export interface RowSlotArrays {
  type: Uint8Array
  instance: Int32Array
  query: Int32Array
  ts: BigInt64Array
  inputLen: Float64Array
  lineNo: Float64Array
  keyStart: Int32Array
  keys: Int32Array
  /** mask as an offset, or NaN when it is a list (then maskStart/maskBits hold it) */
  maskNum: Float64Array
  maskStart: Int32Array
  maskBits: Uint8Array
}

/** What a filled slot says besides its arrays: its row count, the new strings, and its arrays when they changed. */
export interface RowSlotBatch {
  n: number
  strings: string[]
  /** set when the slot's arrays were made or grown for this batch */
  arrays?: RowSlotArrays
}

const sharedU8 = (n: number) => new Uint8Array(new SharedArrayBuffer(Math.max(1, n)))
const sharedI32 = (n: number) => new Int32Array(new SharedArrayBuffer(Math.max(1, n) * 4))
const sharedF64 = (n: number) => new Float64Array(new SharedArrayBuffer(Math.max(1, n) * 8))

function slotArrays(rows: number, keys: number, maskBits: number): RowSlotArrays {
  return {
    type: sharedU8(rows),
    instance: sharedI32(rows),
    query: sharedI32(rows),
    ts: new BigInt64Array(new SharedArrayBuffer(Math.max(1, rows) * 8)),
    inputLen: sharedF64(rows),
    lineNo: sharedF64(rows),
    keyStart: sharedI32(rows + 1),
    keys: sharedI32(keys),
    maskNum: sharedF64(rows),
    maskStart: sharedI32(rows + 1),
    maskBits: sharedU8(maskBits),
  }
}

/** The encoding side's string table (instances and query types, by first use). */
export class StringTableWriter {
  private readonly index = new Map<string, number>()
  private fresh: string[] = []

  idOf(s: string): number {
    let i = this.index.get(s)
    if (i === undefined) {
      i = this.index.size
      this.index.set(s, i)
      this.fresh.push(s)
    }
    return i
  }

  /** The strings added since the last call. */
  takeFresh(): string[] {
    const f = this.fresh
    this.fresh = []
    return f
  }
}

/**
 * The encoding side of one slot: batches appended one after the other (so that each batch's row objects die young
 * on the parsing thread), its arrays grown (doubled, contents kept) when one does not fit.
 */
export class RowSlotWriter {
  private arrays: RowSlotArrays | undefined
  private rows = 0
  private keys = 0
  private maskBits = 0
  private grown = false

  /** Starts a new fill (the reading side must be done with the last one). */
  clear(): void {
    this.rows = 0
    this.keys = 0
    this.maskBits = 0
    this.grown = false
  }

  get size(): number {
    return this.rows
  }

  /** Appends `rows` to the fill. */
  append(rows: readonly TraceRow[], strings: StringTableWriter): void {
    let keyCount = 0
    let maskCount = 0
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]
      keyCount += r.keys.length
      if (Array.isArray(r.mask)) maskCount += r.mask.length
    }
    this.ensure(this.rows + rows.length, this.keys + keyCount, this.maskBits + maskCount)
    const e = this.arrays as RowSlotArrays
    let k = this.keys
    let m = this.maskBits
    let i = this.rows
    for (let j = 0; j < rows.length; j++, i++) {
      const r = rows[j]
      e.type[i] = TYPES.indexOf(r.type)
      e.instance[i] = strings.idOf(r.instance)
      e.query[i] = strings.idOf(r.queryType)
      e.ts[i] = r.ts
      e.inputLen[i] = r.inputLen
      e.lineNo[i] = r.lineNo
      e.keyStart[i] = k
      const ids = r.keys
      for (let x = 0; x < ids.length; x++) e.keys[k++] = ids[x]
      e.maskStart[i] = m
      const mask = r.mask
      if (Array.isArray(mask)) {
        e.maskNum[i] = NaN
        for (let x = 0; x < mask.length; x++) e.maskBits[m++] = mask[x] ? 1 : 0
      } else e.maskNum[i] = mask
    }
    this.rows = i
    this.keys = e.keyStart[i] = k
    this.maskBits = e.maskStart[i] = m
  }

  /** What the reading side needs besides the slot's arrays (they too when they changed since the last fill). */
  batch(strings: StringTableWriter): RowSlotBatch {
    return {n: this.rows, strings: strings.takeFresh(), arrays: this.grown ? this.arrays : undefined}
  }

  /** Makes room for the fill so far and more, keeping what is in it. */
  private ensure(rows: number, keys: number, maskBits: number): void {
    const a = this.arrays
    if (a && a.type.length >= rows && a.keys.length >= keys && a.maskBits.length >= maskBits) return
    const grow = (have: number, need: number) => (have >= need ? have : Math.max(need, 2 * have))
    const b = slotArrays(
      grow(a?.type.length ?? 0, Math.max(rows, 1024)),
      grow(a?.keys.length ?? 0, Math.max(keys, 1 << 14)),
      grow(a?.maskBits.length ?? 0, maskBits),
    )
    if (a) copyFill(a, b, this.rows, this.keys, this.maskBits)
    this.arrays = b
    this.grown = true
  }
}

/** The first `rows` rows (with their keys and mask bits) of `from` into `to`. */
function copyFill(
  from: RowSlotArrays,
  to: RowSlotArrays,
  rows: number,
  keys: number,
  maskBits: number,
): void {
  to.type.set(from.type.subarray(0, rows))
  to.instance.set(from.instance.subarray(0, rows))
  to.query.set(from.query.subarray(0, rows))
  to.ts.set(from.ts.subarray(0, rows))
  to.inputLen.set(from.inputLen.subarray(0, rows))
  to.lineNo.set(from.lineNo.subarray(0, rows))
  to.maskNum.set(from.maskNum.subarray(0, rows))
  to.keyStart.set(from.keyStart.subarray(0, rows + 1))
  to.maskStart.set(from.maskStart.subarray(0, rows + 1))
  to.keys.set(from.keys.subarray(0, keys))
  to.maskBits.set(from.maskBits.subarray(0, maskBits))
}

/**
 * Rows `start` … `end` - 1 of a filled slot, as the row reader makes them (keys in a plain array of small integers,
 * the shared empty mask); `table` is the decoding side's string table. The rows share
 * no memory with the slot, which may be refilled once its last rows are read.
 */
export function readRowSlot(
  e: RowSlotArrays,
  start: number,
  end: number,
  table: readonly string[],
): TraceRow[] {
  const rows = new Array<TraceRow>(end - start)
  const {keys, keyStart} = e
  for (let i = start; i < end; i++) {
    const from = keyStart[i]
    const n = keyStart[i + 1] - from
    const ids = new Array<number>(n)
    for (let j = 0; j < n; j++) ids[j] = keys[from + j]
    rows[i - start] = {
      type: TYPES[e.type[i]],
      instance: table[e.instance[i]],
      ts: e.ts[i],
      keys: ids,
      inputLen: e.inputLen[i],
      mask: maskOf(e, i),
      queryType: table[e.query[i]],
      lineNo: e.lineNo[i],
    }
  }
  return rows
}

function maskOf(e: RowSlotArrays, i: number): boolean[] | number {
  const maskNum = e.maskNum[i]
  if (!Number.isNaN(maskNum)) return maskNum
  const m0 = e.maskStart[i]
  const m1 = e.maskStart[i + 1]
  if (m1 === m0) return NO_MASK
  const bits = new Array<boolean>(m1 - m0)
  for (let j = 0; j < bits.length; j++) bits[j] = e.maskBits[m0 + j] === 1
  return bits
}
