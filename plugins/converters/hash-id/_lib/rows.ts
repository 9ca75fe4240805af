// The order-independent part of a Qwen-Bailian / Mooncake row: parse, validate, hash the block ids and format the
// keys. Runs on worker threads through the framework's byte-batch mapper (see input.ts).
import {
  BatchSlabs,
  type InputLine,
  JsonFloat,
  KeyList,
  type LineBatch,
  type LineProblem,
  parseObjectLine,
  plainPaths,
  pythonInt,
} from 'lmt'
import {ScannedHashIdRow, scanHashIdRowBytes} from './scan.js'

export interface HashIdRowConfig {
  blockSize: number
  /** ns per unit of an integer timestamp, and the double factor for a float one */
  intScale: bigint
  floatScale: number
}

interface HashIdRow {
  ts: bigint
  inputLen: bigint
  /** the keys as int64 words and as their JSON text (so the main thread need not format them) */
  words: BigInt64Array
  json: Uint8Array
}

export type HashIdRowResult = HashIdRow | LineProblem

/** A row's timestamp in ns, or undefined when it is not a usable number. */
export function scaledTimestamp(value: unknown, intScale: bigint, floatScale: number): bigint | undefined {
  if (value instanceof JsonFloat) {
    const product = value.value * floatScale
    return Number.isFinite(product) ? BigInt(Math.trunc(product)) : undefined
  }
  // an integer literal (the parser yields a number or a bigint) or a boolean, as Python's int() reads it
  const n = value === undefined ? 0n : typeof value === 'string' ? undefined : pythonInt(value)
  return n === undefined ? undefined : n * intScale
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

/** The per-line form, for `ctx.mapLines` (the converters use the byte lane below; the line mapper's tests use it). */
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
  words: Uint32Array
  /** the keys' JSON texts */
  text: Uint8Array
  exact: HashIdRowResult[]
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const scannedBytes = new ScannedHashIdRow()
const scratchSlabs = new BatchSlabs()

/**
 * A scanned row's timestamp in ns (docs/convert.md: the integer literal times the integer scale, the float one's
 * product truncated), or undefined when it is not an int64 (the exact path then decides); the tests pin it to
 * {@link scaledTimestamp}.
 */
export function scannedTimestamp(
  s: ScannedHashIdRow,
  intScale: bigint,
  floatScale: number,
): bigint | undefined {
  let t = 0n
  if (!s.hasTimestamp) return t
  if (!Number.isNaN(s.tsInt)) {
    // exact in doubles when the product is a safe integer (a product at or above 2^53 rounds to ≥ 2^53)
    const d = s.tsInt * Number(intScale)
    t = Number.isSafeInteger(d) ? BigInt(d) : BigInt(s.tsInt) * intScale
  } else {
    const product = s.tsFloat * floatScale
    if (!Number.isFinite(product)) return undefined
    t = BigInt(Math.trunc(product))
  }
  return t >= INT64_MIN && t <= INT64_MAX ? t : undefined
}

/**
 * The batch mapper of the byte lane: each line scanned in place, the exact path only where the lane gives up. A
 * measured hot loop (every line of the input passes through it), kept in one piece; the tests pin it to the exact
 * path.
 */
export function createLineBatchMapper(config: HashIdRowConfig): (lines: LineBatch) => {
  result: HashIdBatch
  transfer: ArrayBuffer[]
} {
  const {blockSize, intScale, floatScale} = config
  const scan = !plainPaths() // the byte scanner, left out on the plain paths
  return (lines) => {
    const count = lines.count
    const {bytes, starts, ends} = lines
    const kind = new Uint8Array(count)
    const ts = new BigInt64Array(count)
    const inputLen = new Float64Array(count)
    const keyEnd = new Int32Array(count)
    const textStart = new Int32Array(count)
    const textEnd = new Int32Array(count)
    const slabs = scratchSlabs
    slabs.reset()
    const exact: HashIdRowResult[] = []
    const s = scannedBytes
    for (let i = 0; i < count; i++) {
      textStart[i] = slabs.textLength
      const t =
        scan && scanHashIdRowBytes(bytes, starts[i], ends[i], s)
          ? scannedTimestamp(s, intScale, floatScale)
          : undefined
      if (t === undefined) {
        kind[i] = 1
        exact.push(decodeHashIdRow(lines.text(i), config))
      } else {
        const n = Math.min(Math.floor(s.inputLength / blockSize), s.ids.length)
        const word = slabs.reserve(n)
        KeyList.prefixHashHalves(s.ids.hi, s.ids.lo, n, slabs.words, word)
        slabs.wordCount += n
        slabs.reserveText(n * 24 + 4)
        slabs.textLength = KeyList.writeJson(slabs.words, word, n, slabs.text, slabs.textLength)
        ts[i] = t
        inputLen[i] = s.inputLength
      }
      keyEnd[i] = slabs.wordCount
      textEnd[i] = slabs.textLength
    }
    // exact-size copies cross (the scratch slabs stay here for the next batch)
    const words = slabs.words.slice(0, 2 * slabs.wordCount)
    const text = slabs.text.slice(0, slabs.textLength)
    const columns = {kind, ts, inputLen, keyEnd, textStart, textEnd, words, text}
    const transfer = Object.values(columns).map((c) => c.buffer as ArrayBuffer)
    return {result: {...columns, exact}, transfer}
  }
}
