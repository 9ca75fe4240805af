// Trace rows as typed arrays on shared memory, so a sweep's worker threads see the rows held here without a
// structured clone per row. The strings (instances, query types) cross once each, in a table.
import type {RowType, TraceRow} from '../input/trace-rows.js'

const TYPES: RowType[] = ['get', 'write', 'request']
/** the mask of rows without a block_mask (and of writes): shared, as the row readers share their own */
const NO_MASK: boolean[] = []

/** The rows' arrays (on SharedArrayBuffers: every thread sees the same bytes) and their string table. */
export interface EncodedRows {
  n: number
  strings: string[]
  type: Uint8Array
  instance: Int32Array
  query: Int32Array
  ts: BigInt64Array
  inputLen: Float64Array
  lineNo: Float64Array
  /** the rows' `ttl_us` (0: none, which a tiered play reads as 0); empty when no row has one (untiered rows) */
  ttlUs: BigInt64Array
  keyStart: Int32Array
  keys: Int32Array
  /** mask as an offset, or NaN when it is a list (then maskStart/maskBits hold it) */
  maskNum: Float64Array
  maskStart: Int32Array
  maskBits: Uint8Array
}

const shared = <T>(make: new (b: SharedArrayBuffer) => T, bytes: number, n: number): T =>
  new make(new SharedArrayBuffer(Math.max(1, n) * bytes))

/**
 * `rows` encoded, into the arrays of `reuse` where they are large enough (the parse thread refills a slot the
 * reading side is done with: fresh shared memory for every batch would cost a page fault per 4 KiB), else into new
 * ones with room to spare for the next fill.
 */
export function encodeRows(rows: readonly TraceRow[], reuse?: EncodedRows): EncodedRows {
  let keyCount = 0
  let maskCount = 0
  let ttls = false
  for (const r of rows) {
    keyCount += r.keys.length
    if (Array.isArray(r.mask)) maskCount += r.mask.length
    if (r.ttlUs !== undefined) ttls = true
  }
  const n = rows.length
  const index = new Map<string, number>()
  const strings: string[] = []
  const idOf = (s: string): number => {
    let i = index.get(s)
    if (i === undefined) index.set(s, (i = strings.push(s) - 1))
    return i
  }
  const room = reuse === undefined ? 1 : 1.25
  const fit = <T extends {length: number}>(
    old: T | undefined,
    make: new (b: SharedArrayBuffer) => T,
    bytes: number,
    need: number,
  ): T => (old !== undefined && old.length >= need ? old : shared(make, bytes, Math.ceil(need * room)))
  const e: EncodedRows = {
    n,
    strings,
    type: fit(reuse?.type, Uint8Array, 1, n),
    instance: fit(reuse?.instance, Int32Array, 4, n),
    query: fit(reuse?.query, Int32Array, 4, n),
    ts: fit(reuse?.ts, BigInt64Array, 8, n),
    inputLen: fit(reuse?.inputLen, Float64Array, 8, n),
    lineNo: fit(reuse?.lineNo, Float64Array, 8, n),
    // never refilled: its length says whether the rows have one (a parse thread's rows never do)
    ttlUs: shared(BigInt64Array, 8, ttls ? n : 0),
    keyStart: fit(reuse?.keyStart, Int32Array, 4, n + 1),
    keys: fit(reuse?.keys, Int32Array, 4, keyCount),
    maskNum: fit(reuse?.maskNum, Float64Array, 8, n),
    maskStart: fit(reuse?.maskStart, Int32Array, 4, n + 1),
    maskBits: fit(reuse?.maskBits, Uint8Array, 1, maskCount),
  }
  let k = 0
  let m = 0
  for (let i = 0; i < n; i++) {
    const r = rows[i]
    e.type[i] = TYPES.indexOf(r.type)
    e.instance[i] = idOf(r.instance)
    e.query[i] = idOf(r.queryType)
    e.ts[i] = r.ts
    e.inputLen[i] = r.inputLen
    e.lineNo[i] = r.lineNo
    if (ttls) e.ttlUs[i] = r.ttlUs ?? 0n
    e.keyStart[i] = k
    for (const id of r.keys) e.keys[k++] = id
    e.maskStart[i] = m
    const mask = r.mask
    if (Array.isArray(mask)) {
      e.maskNum[i] = NaN
      for (const bit of mask) e.maskBits[m++] = bit ? 1 : 0
    } else e.maskNum[i] = mask
  }
  e.keyStart[n] = k
  e.maskStart[n] = m
  return e
}

/**
 * Rows `start` … `end` - 1, as the row reader makes them (keys in a plain array of small integers, the shared empty
 * mask). The rows share no memory with the encoding.
 */
export function decodeRows(e: EncodedRows, start: number, end: number): TraceRow[] {
  const rows = new Array<TraceRow>(end - start)
  const {keys, keyStart} = e
  const ttls = e.ttlUs.length === e.n // else no row has one
  for (let i = start; i < end; i++) {
    const from = keyStart[i]
    const ids = new Array<number>(keyStart[i + 1] - from)
    for (let j = 0; j < ids.length; j++) ids[j] = keys[from + j]
    rows[i - start] = {
      type: TYPES[e.type[i]],
      instance: e.strings[e.instance[i]],
      ts: e.ts[i],
      keys: ids,
      inputLen: e.inputLen[i],
      mask: maskOf(e, i),
      queryType: e.strings[e.query[i]],
      lineNo: e.lineNo[i],
      ttlUs: ttls && e.ttlUs[i] !== 0n ? e.ttlUs[i] : undefined,
    }
  }
  return rows
}

function maskOf(e: EncodedRows, i: number): boolean[] | number {
  const maskNum = e.maskNum[i]
  if (!Number.isNaN(maskNum)) return maskNum
  const m0 = e.maskStart[i]
  const m1 = e.maskStart[i + 1]
  if (m1 === m0) return NO_MASK
  const bits = new Array<boolean>(m1 - m0)
  for (let j = 0; j < bits.length; j++) bits[j] = e.maskBits[m0 + j] === 1
  return bits
}
