// The order-independent part of a Qwen-Bailian / Mooncake row: parse, validate, hash the block ids and format the
// keys. Runs on worker threads through the framework's byte-batch mapper (see hash-id-input.ts).
import {type InputLine, JsonFloat, KeyList, type LineBatch, pythonInt} from '../../../src/index.js'
import {type LineProblem, parseObjectLine} from './rows.js'
import {ScannedHashIdRow, scanHashIdRowBytes} from './hash-id-scan.js'
import {BatchSlabs} from './batch-slabs.js'
import {
  DEFAULT_GET_TAIL_BYTES,
  lineHeadPieces,
  putGetTail,
  putLineHead,
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

/** Where the rows' get and write lines start: the instance's head pieces. */
interface LinePieces {
  get: Uint8Array
  write: Uint8Array
}

/**
 * Writes a fast-lane row's get and write lines into the slabs' text (the keys formatted once, into the get line,
 * and copied into the write line); returns where the keys' text lies. The bytes are the record encoder's for the
 * records `createGetTrace(ts, keys, id, {inputLen})` and `createWriteTrace(ts + 1n, keys, id)` would make.
 */
function writeRowLines(
  slabs: BatchSlabs,
  word: number,
  n: number,
  ts: bigint,
  inputLength: number,
  pieces: LinePieces,
  lineEnd: Int32Array,
  i: number,
): void {
  const tsText = ts.toString()
  const nextText = (ts + 1n).toString()
  const lenText = String(inputLength)
  const keysRoom = n * 24 + 4
  slabs.reserveText(
    usualLineRoom(pieces.get, tsText, lenText, DEFAULT_GET_TAIL_BYTES) +
      usualLineRoom(pieces.write, nextText, '', undefined) +
      2 * keysRoom,
  )
  const out = slabs.text
  let p = putLineHead(out, slabs.textLength, pieces.get, tsText)
  const keyStart = p
  p = KeyList.writeJson(slabs.words, word, n, out, p)
  const keyEnd = p
  p = putGetTail(out, p, lenText, DEFAULT_GET_TAIL_BYTES)
  lineEnd[2 * i] = p
  p = putLineHead(out, p, pieces.write, nextText)
  out.copyWithin(p, keyStart, keyEnd)
  p = putWriteTail(out, p + keyEnd - keyStart)
  lineEnd[2 * i + 1] = p
  slabs.textLength = p
  keyText.start = keyStart
  keyText.end = keyEnd
}

/**
 * The slabs' text as it is, for a batch with lines (a few MB: not copied, but moved to the main thread), with new
 * room of about its size in its place for the next batch.
 */
function handOverText(slabs: BatchSlabs): Uint8Array {
  const text = slabs.text.subarray(0, slabs.textLength)
  const room = Math.max(1 << 20, Math.ceil(slabs.textLength * 1.25))
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
  const pieces = linesOf === undefined ? undefined : lineHeadPieces(linesOf)
  // the timestamps the rows with lines claimed so far (of this mapper's batches): a row at or below them will
  // likely collide (its lines are then written on the main thread). A guess, the main thread allocates; it spares
  // writing the lines of unsorted input, where nearly every row collides.
  let linesAbove = -(2n ** 64n)
  return (lines, spares) => {
    if (spares !== undefined) spareTexts.push(...spares)
    const count = lines.count
    const {bytes, starts, ends} = lines
    const kind = new Uint8Array(count)
    const ts = new BigInt64Array(count)
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
      let t: bigint | undefined
      if (scanHashIdRowBytes(bytes, starts[i], ends[i], s)) {
        if (!s.hasTimestamp) t = 0n
        else if (!Number.isNaN(s.tsInt)) t = BigInt(s.tsInt) * intScale
        else {
          const product = s.tsFloat * floatScale
          if (Number.isFinite(product)) t = BigInt(Math.trunc(product))
        }
      }
      if (t === undefined || t < INT64_MIN || t > INT64_MAX) {
        kind[i] = 1
        exact.push(decodeHashIdRow(lines.text(i), config))
        textStart[i] = slabs.textLength
        if (pieces !== undefined) lineEnd[2 * i] = lineEnd[2 * i + 1] = slabs.textLength
      } else {
        const n = Math.min(Math.floor(s.inputLength / blockSize), s.ids.length)
        const word = slabs.reserve(n)
        KeyList.prefixHashHalves(s.ids.hi, s.ids.lo, n, slabs.words, word)
        slabs.wordCount += n
        if (pieces !== undefined && t > linesAbove) {
          writeRowLines(slabs, word, n, t, s.inputLength, pieces, lineEnd, i)
          textStart[i] = keyText.start
          linesAbove = t + 1n
        } else {
          // without lines: the keys' text alone (a row whose timestamps will likely collide gets its lines written
          // on the main thread, around this text)
          textStart[i] = slabs.textLength
          slabs.reserveText(n * 24 + 4)
          slabs.textLength = KeyList.writeJson(slabs.words, word, n, slabs.text, slabs.textLength)
          keyText.end = slabs.textLength
          if (pieces !== undefined) lineEnd[2 * i] = lineEnd[2 * i + 1] = slabs.textLength
        }
        ts[i] = t
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
