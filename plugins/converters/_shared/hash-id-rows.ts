// The order-independent part of a Qwen-Bailian / Mooncake row: parse, validate, hash the block ids and format the
// keys. Runs on worker threads through the framework's byte-batch mapper (see hash-id-input.ts).
import type {InputLine} from '../../../src/index.js'
// a worker thread's module: the light entry, not all of lmt (src/values.ts)
import {JsonFloat, KeyList, type LineBatch, plainPaths, pythonInt} from '../../../src/values.js'
import {type LineProblem, parseObjectLine} from './rows.js'
import {ScannedHashIdRow, scanHashIdRowBytes} from './hash-id-scan.js'
import {BatchSlabs} from './batch-slabs.js'
import {
  DEFAULT_GET_TAIL_BYTES,
  lineHeadPieces,
  putGetTailUint,
  putLineHeadUint64,
  putWriteTail,
  usualLineRoom,
} from '../../../src/scan.js'

export interface HashIdRowConfig {
  blockSize: number
  /** ns per unit of an integer timestamp, and the double factor for a float one */
  intScale: bigint
  floatScale: number
  /**
   * When set, the byte lane also writes each row's get and write lines for this instance id, as if their
   * timestamps were the row's and one more (see {@link HashIdBatch.lineEnd}).
   */
  linesOf?: string
}

export interface HashIdRow {
  ts: bigint
  inputLen: bigint
  /** the keys as int64 words and as their JSON text (so the main thread need not format them) */
  words: BigInt64Array
  json: Uint8Array
}

export type HashIdRowResult = HashIdRow | LineProblem

/** A row's timestamp in ns, or undefined when it is not a usable number. */
export function scaledTimestamp(value: unknown, intScale: bigint, floatScale: number): bigint | undefined {
  if (value === undefined) return 0n
  if (typeof value === 'number') return BigInt(value) * intScale // the parser yields integer literals as numbers
  if (typeof value === 'bigint') return value * intScale
  if (typeof value === 'boolean') return value ? intScale : 0n
  if (value instanceof JsonFloat) {
    const product = value.value * floatScale
    return Number.isFinite(product) ? BigInt(Math.trunc(product)) : undefined
  }
  return undefined
}

/** Checks run in the original's order; the first failure decides the reason (docs/convert.md §8.2). */
export function decodeHashIdRow(text: string, config: HashIdRowConfig): HashIdRowResult {
  const row = parseObjectLine(text)
  if (!(row instanceof Map)) return row
  if (!row.has('input_length')) return {skip: 'missing_input_length', message: 'missing input_length'}
  const inputLen = pythonInt(row.get('input_length'))
  if (inputLen === undefined) return {skip: 'invalid_input_length', message: 'input_length is not an integer'}
  if (inputLen <= 0n)
    return {skip: 'nonpositive_input_length', message: `input_length must be positive (got ${inputLen})`}
  const hashIds = row.has('hash_ids') ? row.get('hash_ids') : []
  if (!Array.isArray(hashIds)) return {skip: 'invalid_hash_ids', message: 'hash_ids is not an array'}
  const fullBlocks = inputLen / BigInt(config.blockSize)
  const n = fullBlocks < BigInt(hashIds.length) ? Number(fullBlocks) : hashIds.length
  for (let i = 0; i < n; i++) {
    const t = typeof hashIds[i]
    if (t !== 'number' && t !== 'bigint' && t !== 'boolean')
      return {skip: 'invalid_hash_ids', message: `hash_ids[${i}] is not an integer`}
  }
  const keys = KeyList.prefixHash(hashIds as Array<number | bigint | boolean>, n)
  const ts = scaledTimestamp(row.get('timestamp'), config.intScale, config.floatScale)
  if (ts === undefined) return {skip: 'invalid_timestamp', message: 'timestamp is not a finite number'}
  return {ts, inputLen, words: keys.words(), json: keys.toJsonBytes()}
}

/** The per-line form, for `ctx.mapLines` (the exact path; the converters use the byte lane below). */
export function createLineMapper(config: HashIdRowConfig): (line: InputLine) => HashIdRowResult {
  return (line) => decodeHashIdRow(line.text, config)
}

/**
 * The rows of one LineBatch as columns (what {@link createLineBatchMapper} returns): a fast-lane row is a timestamp,
 * an input length and a slice of the key words and JSON text; any other line's result is in `exact`, in line order.
 */
export interface HashIdBatch {
  /** per line: 0 = a row in the columns, 1 = the next entry of `exact` */
  kind: Uint8Array
  ts: BigInt64Array
  inputLen: Float64Array
  /** line i's keys are words[2·keyEnd[i−1], 2·keyEnd[i]) (halves, platform order), its text text[textStart[i], textEnd[i]) */
  keyEnd: Int32Array
  textStart: Int32Array
  textEnd: Int32Array
  /** empty when the batch has its lines (`linesOf`): the keys are then read from their text when needed */
  words: Uint32Array
  /**
   * The keys' texts; with `linesOf`, the rows' lines, the keys' texts inside them: a fast-lane row's get line is
   * text[lineEnd[2i−1], lineEnd[2i]) (its timestamp the row's), its write line text[lineEnd[2i], lineEnd[2i+1])
   * (the row's + 1 ns); any other line has none (empty ranges). Without `linesOf`, lineEnd is empty.
   */
  text: Uint8Array
  lineEnd: Int32Array
  exact: HashIdRowResult[]
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const scannedBytes = new ScannedHashIdRow()
const scratchSlabs = new BatchSlabs()

/** where the last row's keys' text lies in its get line (set by writeRowLines) */
const keyText = {start: 0, end: 0}

/** Where the rows' get and write lines start: the instance's head pieces, and the room of both lines' keys aside. */
interface LinePieces {
  get: Uint8Array
  write: Uint8Array
  room: number
}

/** As long as the longest timestamp (20 digits) and input length (15 digits) written from numbers. */
const TS_ROOM = '0'.repeat(20)
const LEN_ROOM = '0'.repeat(15)

function linePieces(instanceId: string): LinePieces {
  const {get, write} = lineHeadPieces(instanceId)
  const room =
    usualLineRoom(get, TS_ROOM, LEN_ROOM, DEFAULT_GET_TAIL_BYTES) +
    usualLineRoom(write, TS_ROOM, '', undefined)
  return {get, write, room}
}

const TWO32 = 4294967296
/** 2^53: below it, the product of two integers is exact as a double */
const EXACT = 9007199254740992
/** 2^63: a non-negative integer-valued double below it fits an int64 */
const INT64_BOUND = 9223372036854775808
const EXACT_BIG = BigInt(EXACT)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const LO = LITTLE_ENDIAN ? 0 : 1
const HI = LITTLE_ENDIAN ? 1 : 0

/**
 * Writes a fast-lane row's get and write lines into the slabs' text (the keys formatted once, into the get line,
 * and copied into the write line); sets {@link keyText}. The bytes are the record encoder's for the records
 * `createGetTrace(ts, keys, id, {inputLen})` and `createWriteTrace(ts + 1n, keys, id)` would make, the row's
 * timestamp ts = hi·2^32 + lo (unsigned) written from its halves: no BigInt or string per row.
 */
function writeRowLines(
  slabs: BatchSlabs,
  word: number,
  n: number,
  hi: number,
  lo: number,
  inputLength: number,
  pieces: LinePieces,
  lineEnd: Int32Array,
  i: number,
): void {
  slabs.reserveText(pieces.room + 2 * (n * 24 + 4))
  const out = slabs.text
  let p = putLineHeadUint64(out, slabs.textLength, pieces.get, hi, lo)
  const keyStart = p
  p = KeyList.writeJson(slabs.words, word, n, out, p)
  const keyEnd = p
  p = putGetTailUint(out, p, inputLength, DEFAULT_GET_TAIL_BYTES)
  lineEnd[2 * i] = p
  // ts + 1, a carry into hi when lo is 2^32 − 1 (ts < 2^63: ts + 1 ≤ 2^63 has the BigInt's digits too)
  p =
    lo === 0xffffffff
      ? putLineHeadUint64(out, p, pieces.write, hi + 1, 0)
      : putLineHeadUint64(out, p, pieces.write, hi, lo + 1)
  out.copyWithin(p, keyStart, keyEnd)
  p = putWriteTail(out, p + keyEnd - keyStart)
  lineEnd[2 * i + 1] = p
  slabs.textLength = p
  keyText.start = keyStart
  keyText.end = keyEnd
}

/** Sizes of the texts' room are whole multiples of this: batches of similar size then reuse each other's. */
export const TEXT_ROOM_STEP = 1 << 20

/** Room for a text of about `length` bytes: a quarter more, in whole {@link TEXT_ROOM_STEP}s. */
export function textRoom(length: number): number {
  return Math.max(1, Math.ceil((length * 1.25) / TEXT_ROOM_STEP)) * TEXT_ROOM_STEP
}

/**
 * The slabs' text as it is, for a batch with lines (a few MB: not copied, but moved to the main thread), with new
 * room of about its size in its place for the next batch. The room comes in steps so that a spare handed back
 * nearly always fits: sized to each batch, a third of the spares were a little too small and left to the garbage
 * collector, which the worker (few allocations of its own) ran seldom: +8–11 MiB of peak RSS.
 */
function handOverText(slabs: BatchSlabs): Uint8Array {
  const text = slabs.text.subarray(0, slabs.textLength)
  const room = textRoom(slabs.textLength)
  let next: ArrayBuffer | undefined
  while (next === undefined && spareTexts.length > 0) {
    const spare = spareTexts.pop() as ArrayBuffer
    if (spare.byteLength >= room) next = spare // a smaller one is left to the garbage collector
  }
  slabs.text = new Uint8Array(next ?? (Buffer.allocUnsafeSlow(room).buffer as ArrayBuffer))
  return text
}

/** texts the main thread handed back (see LineMapperSpec.takeSpares), reused before new room is allocated */
const spareTexts: ArrayBuffer[] = []

/**
 * A scanned row's timestamp in ns (docs/convert.md: the integer literal times the integer scale, the float one's
 * product truncated): a non-negative one as the halves hi·2^32 + lo, a negative one as a BigInt in `big`.
 */
export const scannedStamp = {hi: 0, lo: 0, big: undefined as bigint | undefined}
const stamp = scannedStamp

/**
 * Sets {@link scannedStamp} to the scanned row's timestamp; false when it is not an int64 (the exact path then
 * decides). The usual timestamp is computed in doubles where they are exact, no BigInt made; the tests pin it to {@link scaledTimestamp}.
 */
export function scannedTimestamp(
  s: ScannedHashIdRow,
  intScale: bigint,
  intScaleNumber: number,
  floatScale: number,
): boolean {
  stamp.big = undefined
  let d: number
  if (!s.hasTimestamp) d = 0
  else if (!Number.isNaN(s.tsInt)) {
    d = s.tsInt * intScaleNumber // exact when below 2^53 in magnitude (a product at or above it rounds to ≥ 2^53)
    if (!(d > -EXACT && d < EXACT)) return bigTimestamp(BigInt(s.tsInt) * intScale)
  } else {
    const product = s.tsFloat * floatScale
    if (!Number.isFinite(product)) return false
    d = Math.trunc(product) // an integer-valued double: BigInt(d) is its value
    if (!(d >= -INT64_BOUND && d < INT64_BOUND)) return false
  }
  if (d < 0) {
    stamp.big = BigInt(d)
    return true
  }
  const hi = Math.floor(d / TWO32)
  stamp.hi = hi
  stamp.lo = d - hi * TWO32 // exact: d and hi·2^32 are integers below 2^63
  return true
}

function bigTimestamp(t: bigint): boolean {
  if (t < INT64_MIN || t > INT64_MAX) return false
  if (t < 0n) stamp.big = t
  else {
    stamp.hi = Number(t >> 32n)
    stamp.lo = Number(BigInt.asUintN(32, t))
  }
  return true
}

/**
 * The batch mapper of the byte lane: each line scanned in place, the exact path only where the lane gives up. A
 * measured hot loop (every line of the input passes through it), kept in one piece; the tests pin it to the exact
 * path.
 */
export function createLineBatchMapper(config: HashIdRowConfig): (
  lines: LineBatch,
  spares?: ArrayBuffer[],
) => {
  result: HashIdBatch
  transfer: ArrayBuffer[]
} {
  const {blockSize, intScale, floatScale, linesOf} = config
  const pieces = linesOf === undefined ? undefined : linePieces(linesOf)
  // an integer timestamp's scale as a double, NaN when it is not exact as one (the BigInt product is then taken)
  const intScaleNumber = intScale >= -EXACT_BIG && intScale <= EXACT_BIG ? Number(intScale) : NaN
  // the timestamp the last row with lines claimed (with its + 1), as halves: a row not at least 2 above it will
  // likely collide (its lines are then written on the main thread). A guess, the main thread allocates; it spares
  // writing the lines of unsorted input, where nearly every row collides.
  let claimedHi = -TWO32
  let claimedLo = 0
  const scan = !plainPaths() // the byte scanner, left out on the plain paths
  return (lines, spares) => {
    if (spares !== undefined) spareTexts.push(...spares)
    const count = lines.count
    const {bytes, starts, ends} = lines
    const kind = new Uint8Array(count)
    const ts = new BigInt64Array(count)
    const tsHalves = new Uint32Array(ts.buffer)
    const inputLen = new Float64Array(count)
    const keyEnd = new Int32Array(count)
    const textStart = new Int32Array(count)
    const textEnd = new Int32Array(count)
    const lineEnd = new Int32Array(pieces === undefined ? 0 : 2 * count)
    const slabs = scratchSlabs
    slabs.reset()
    const exact: HashIdRowResult[] = []
    const s = scannedBytes
    for (let i = 0; i < count; i++) {
      if (
        !scan ||
        !scanHashIdRowBytes(bytes, starts[i], ends[i], s) ||
        !scannedTimestamp(s, intScale, intScaleNumber, floatScale)
      ) {
        kind[i] = 1
        exact.push(decodeHashIdRow(lines.text(i), config))
        textStart[i] = slabs.textLength
        if (pieces !== undefined) lineEnd[2 * i] = lineEnd[2 * i + 1] = slabs.textLength
      } else {
        const n = Math.min(Math.floor(s.inputLength / blockSize), s.ids.length)
        const word = slabs.reserve(n)
        KeyList.prefixHashHalves(s.ids.hi, s.ids.lo, n, slabs.words, word)
        slabs.wordCount += n
        const {hi, lo, big} = stamp
        // exact: the difference of two timestamps below 2^63 rounds to ≥ 2 exactly when it is ≥ 2
        if (pieces !== undefined && big === undefined && (hi - claimedHi) * TWO32 + (lo - claimedLo) >= 2) {
          writeRowLines(slabs, word, n, hi, lo, s.inputLength, pieces, lineEnd, i)
          textStart[i] = keyText.start
          claimedHi = hi
          claimedLo = lo
        } else {
          // without lines: the keys' text alone (a row whose timestamps will likely collide, or a negative one,
          // gets its lines written on the main thread, around this text)
          textStart[i] = slabs.textLength
          slabs.reserveText(n * 24 + 4)
          slabs.textLength = KeyList.writeJson(slabs.words, word, n, slabs.text, slabs.textLength)
          keyText.end = slabs.textLength
          if (pieces !== undefined) lineEnd[2 * i] = lineEnd[2 * i + 1] = slabs.textLength
        }
        if (big === undefined) {
          tsHalves[2 * i + LO] = lo
          tsHalves[2 * i + HI] = hi
        } else ts[i] = big
        inputLen[i] = s.inputLength
      }
      keyEnd[i] = slabs.wordCount
      textEnd[i] = pieces === undefined || kind[i] === 1 ? slabs.textLength : keyText.end
    }
    // exact-size copies cross (the scratch slabs stay here for the next batch); with lines, no words (see
    // HashIdBatch.words)
    const words = slabs.words.slice(0, pieces === undefined ? 2 * slabs.wordCount : 0)
    const text = pieces === undefined ? slabs.text.slice(0, slabs.textLength) : handOverText(slabs)
    const result: HashIdBatch = {kind, ts, inputLen, keyEnd, textStart, textEnd, words, text, lineEnd, exact}
    const transfer = [
      kind.buffer,
      ts.buffer,
      inputLen.buffer,
      keyEnd.buffer,
      textStart.buffer,
      textEnd.buffer,
      words.buffer,
      text.buffer as ArrayBuffer,
      lineEnd.buffer,
    ]
    return {result, transfer}
  }
}
