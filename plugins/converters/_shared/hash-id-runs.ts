// A decoded batch of hash-id rows as the framework's encoded runs: each row whose timestamps come out as the
// worker assumed (the row's and one more: above everything the instance used) hands over the get and write lines
// the worker wrote; a row whose timestamps collide gets its lines written here around the worker's key text; an
// exact-path row is made into records the usual way, in its place.
import type {GetTrace, InputContext, Trace} from '../../../src/index.js'
import {
  DEFAULT_GET_TAIL_BYTES,
  EncodedTraces,
  lineHeadPieces,
  putGetTail,
  putLineHead,
  putWriteTail,
  usualLineRoom,
} from '../../../src/scan.js'
import type {HashIdRows} from './hash-id-input.js'

/** How a row's records are made (the converter's methods: timestamps are allocated as they are called). */
export interface HashIdRecordMaker {
  get(rows: HashIdRows): GetTrace
  write(rows: HashIdRows, get: GetTrace): Trace
}

/** How a converter takes a row's lines encoded ahead (see HashIdTraceMaker.encoded). */
export interface EncodedLinesOf {
  instanceId: string
  /** Allocates the row's two timestamps, base and base + 1, when they are free and above all used; else false. */
  allocateRun(base: bigint): boolean
  /** Allocates one timestamp from `base` (the converter's allocateTimestamp). */
  allocate(base: bigint): bigint
}

/** The kinds of a get and its write. */
const GET_WRITE = Uint8Array.of(0, 1)

/**
 * A row whose timestamps collide with earlier ones: its two timestamps allocated one by one (the get's first, as
 * the records would be made) and its lines written here around the keys' text the worker formatted.
 */
function collidingRow(
  rows: HashIdRows,
  text: Buffer,
  lines: EncodedLinesOf,
  pieces: LinePieces,
): EncodedTraces {
  const b = rows.batch
  const i = rows.index
  const getTs = lines.allocate(rows.ts)
  const writeTs = lines.allocate(rows.ts + 1n)
  const getText = getTs.toString()
  const writeText = writeTs.toString()
  const lenText = String(rows.inputLen)
  const keyStart = b.textStart[i]
  const keyEnd = b.textEnd[i]
  const keys = keyEnd - keyStart
  const out = Buffer.allocUnsafe(
    usualLineRoom(pieces.get, getText, lenText, DEFAULT_GET_TAIL_BYTES) +
      usualLineRoom(pieces.write, writeText, '', undefined) +
      2 * keys,
  )
  let p = putLineHead(out, 0, pieces.get, getText)
  text.copy(out, p, keyStart, keyEnd)
  p = putGetTail(out, p + keys, lenText, DEFAULT_GET_TAIL_BYTES)
  const getEnd = p
  p = putLineHead(out, p, pieces.write, writeText)
  text.copy(out, p, keyStart, keyEnd)
  p = putWriteTail(out, p + keys)
  return new EncodedTraces(out, 0, Int32Array.of(getEnd, p), [getTs, writeTs], GET_WRITE, lines.instanceId)
}

type LinePieces = ReturnType<typeof lineHeadPieces>

/** get, write, get, write … */
function alternatingKinds(pairs: number): Uint8Array {
  const kinds = new Uint8Array(2 * pairs)
  for (let k = 1; k < kinds.length; k += 2) kinds[k] = 1
  return kinds
}

/**
 * The traces of one batch, in row order: runs of encoded lines, and records for the rows they cannot carry (an
 * exact-path row, a timestamp that collides); bad rows skipped and converted rows counted in `ctx` on the way.
 */
export function batchTraces(
  rows: HashIdRows,
  ctx: InputContext,
  make: HashIdRecordMaker,
  lines: EncodedLinesOf,
): Array<EncodedTraces | Trace> {
  const out: Array<EncodedTraces | Trace> = []
  const {lineEnd, text} = rows.batch
  const textBytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength)
  const pieces = lineHeadPieces(lines.instanceId)
  let first = -1 // the first row of the run being gathered
  let stamps: bigint[] = []
  let lastRun = -1
  const close = (end: number): void => {
    if (first < 0) return
    const start = first === 0 ? 0 : lineEnd[2 * first - 1]
    const ends = lineEnd.subarray(2 * first, 2 * end)
    lastRun = out.length
    out.push(
      new EncodedTraces(textBytes, start, ends, stamps, alternatingKinds(end - first), lines.instanceId),
    )
    first = -1
    stamps = []
  }
  while (rows.next()) {
    const i = rows.index
    if (rows.problem) {
      close(i)
      ctx.skip(rows.line(), rows.problem.skip, rows.problem.message)
      continue
    }
    if (rows.batch.kind[i] === 1) {
      close(i)
      const get = make.get(rows)
      out.push(get, make.write(rows, get))
    } else if (lineEnd[2 * i + 1] > lineEnd[2 * i] && lines.allocateRun(rows.ts)) {
      if (first < 0) first = i
      stamps.push(rows.ts, rows.ts + 1n)
    } else {
      close(i)
      out.push(collidingRow(rows, textBytes, lines, pieces))
    }
    ctx.converted(rows.line())
  }
  close(rows.index + 1)
  // the batch's runs ascend in time (each lies above all used before it): once the last is written, the text is free
  if (lastRun >= 0) {
    const r = out[lastRun] as EncodedTraces
    out[lastRun] = new EncodedTraces(
      r.bytes,
      r.start,
      r.ends,
      r.timestamps,
      r.kinds,
      r.instanceId,
      rows.recycleText,
    )
  }
  return out
}
