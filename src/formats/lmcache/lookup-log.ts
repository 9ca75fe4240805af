// LMCache's lookup-hash log (`--lookup-hash-log-dir`): one JSON object per lookup, in rotated
// `lookup_hashes_<date>_<time>_<counter>.jsonl` files. This module finds the files, reads their lines and checks
// each lookup; what a lookup means is the caller's (docs/lmcache-lookup.md).
import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {LineReader} from '../json/line-reader.js'
import {parseJson} from '../json/parse.js'

/** The name of a rotated log file (LMCache's glob `lookup_hashes_*.jsonl`). */
const LOG_FILE = /^lookup_hashes_.*\.jsonl$/

/** One lookup as the writer logged it. Hashes are opaque keys: the logged string, or `#<digits>` for an integer. */
export interface LookupEvent {
  /** publish time, epoch seconds (0 when absent, as LMCache's simulator reads it) */
  timestamp: number
  requestId: string
  /** `model_name`; undefined when absent */
  model: string | undefined
  /** tokens per chunk (1 when absent, as LMCache's simulator reads it) */
  chunkSize: number
  /** tokens of the lookup, the partial last chunk included (0 when absent) */
  seqLen: number
  /** one key per full chunk, in order */
  hashes: string[]
  /** `str(dtype)` of each tensor of one chunk, and their shapes (empty when absent) */
  dtypes: string[]
  shapes: number[][]
  file: string
  lineNo: number
}

/** A line that is not a lookup: where it is and why. */
export interface SkippedLine {
  file: string
  lineNo: number
  reason: string
}

/**
 * The files of each input in LMCache's order: a directory gives its `lookup_hashes_*.jsonl` files sorted by name
 * (creation order: the name starts with the opening time and ends with a counter), a file is read as given.
 * `onEmpty` hears of a directory without such files.
 */
export function lookupLogFiles(inputs: readonly string[], onEmpty?: (dir: string) => void): string[] {
  const files: string[] = []
  for (const input of inputs) {
    if (!statSync(input).isDirectory()) {
      files.push(input)
      continue
    }
    const names = readdirSync(input)
      .filter((n) => LOG_FILE.test(n))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .filter((n) => statSync(join(input, n)).isFile())
    if (names.length === 0) onEmpty?.(input)
    for (const n of names) files.push(join(input, n))
  }
  return files
}

/** Bytes of one element of each dtype name, bare or with the `torch.` prefix a live server writes. */
export const DTYPE_BYTES: Readonly<Record<string, number>> = {
  float64: 8,
  double: 8,
  float32: 4,
  float: 4,
  float16: 2,
  half: 2,
  bfloat16: 2,
  float8_e4m3fn: 1,
  float8_e4m3fnuz: 1,
  float8_e5m2: 1,
  float8_e5m2fnuz: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
}

/** Element size of a dtype name (`torch.` prefix allowed), or undefined for a name lmt does not know. */
export function dtypeBytes(name: string): number | undefined {
  const bare = name.startsWith('torch.') ? name.slice(6) : name
  return Object.hasOwn(DTYPE_BYTES, bare) ? DTYPE_BYTES[bare] : undefined
}

/**
 * Bytes of one chunk: Σ over (shape, dtype) of the shape's product × the element size. Zero when the layout is
 * empty; `unknown` lists the dtype names no size is known for (they count 0, the chunk's size is then not known).
 */
export function chunkBytesOf(event: Pick<LookupEvent, 'dtypes' | 'shapes'>): {
  bytes: number
  unknown: string[]
} {
  let bytes = 0
  const unknown: string[] = []
  const n = Math.min(event.shapes.length, event.dtypes.length)
  for (let i = 0; i < n; i++) {
    const size = dtypeBytes(event.dtypes[i])
    if (size === undefined) unknown.push(event.dtypes[i])
    bytes += event.shapes[i].reduce((p, x) => p * x, 1) * (size ?? 0)
  }
  return {bytes, unknown}
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v)
}

/** The key of an integer hash (never equal to a hex string's key, as in Python an int never equals a str). */
function intKey(v: number | bigint): string {
  return `#${v}`
}

/** The hashes of a line whose `chunk_hashes` hold integers, read without losing digits. */
function losslessHashes(text: string): string[] | undefined {
  const doc = parseJson(text)
  if (!(doc instanceof Map)) return undefined
  const list = doc.get('chunk_hashes')
  if (!Array.isArray(list)) return undefined
  const out: string[] = []
  for (const h of list) {
    if (typeof h === 'string') out.push(h)
    else if (typeof h === 'number' || typeof h === 'bigint') out.push(intKey(h))
    else return undefined
  }
  return out
}

/** One line → a lookup, or the reason it is not one. */
export function parseLookupLine(text: string, file: string, lineNo: number): LookupEvent | string {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    return `malformed JSON (${(err as Error).message})`
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return 'not a JSON object'
  const o = doc as Record<string, unknown>
  const ts = o.timestamp ?? 0
  if (typeof ts !== 'number') return 'timestamp is not a number'
  const chunkSize = o.chunk_size ?? 1
  if (!isInt(chunkSize) || chunkSize < 1) return 'chunk_size is not a positive integer'
  const seqLen = o.seq_len ?? 0
  if (!isInt(seqLen) || seqLen < 0) return 'seq_len is not a non-negative integer'
  const model = o.model_name
  if (model !== undefined && typeof model !== 'string') return 'model_name is not a string'
  const rawHashes = o.chunk_hashes ?? []
  if (!Array.isArray(rawHashes)) return 'chunk_hashes is not a list'
  let hashes = rawHashes as string[]
  for (let i = 0; i < rawHashes.length; i++) {
    const h: unknown = rawHashes[i]
    if (typeof h === 'string') continue
    if (typeof h !== 'number' || !Number.isInteger(h))
      return 'chunk_hashes holds a value that is not a string or an integer'
    hashes = losslessHashes(text) ?? []
    break
  }
  const dtypes = o.dtypes ?? []
  if (!Array.isArray(dtypes) || !dtypes.every((d) => typeof d === 'string'))
    return 'dtypes is not a list of strings'
  const shapes = o.shapes ?? []
  if (!Array.isArray(shapes) || !shapes.every((s) => Array.isArray(s) && s.every((x) => isInt(x) && x >= 0)))
    return 'shapes is not a list of lists of non-negative integers'
  const requestId = o.request_id
  return {
    timestamp: ts,
    requestId: typeof requestId === 'string' ? requestId : '',
    model,
    chunkSize,
    seqLen,
    hashes,
    dtypes: dtypes as string[],
    shapes: shapes as number[][],
    file,
    lineNo,
  }
}

export interface ReadLookupsOptions {
  /** keep only the lookups of this model (exact `model_name`) */
  model?: string
  onSkip?(skipped: SkippedLine): void
  signal?: AbortSignal
  /** bytes of the files read so far, after each batch of lines */
  onBytes?(bytes: number): void
}

/** The lookups of the files, in file order then line order (blank lines passed over, bad ones told and skipped). */
export async function* readLookupEvents(
  files: readonly string[],
  options: ReadLookupsOptions = {},
): AsyncGenerator<LookupEvent[]> {
  let bytesBefore = 0
  for (const file of files) {
    const reader = new LineReader(file, {}, {reuseReadBuffers: true})
    for await (const batch of reader.batches()) {
      options.signal?.throwIfAborted()
      const out: LookupEvent[] = []
      for (const line of batch) {
        const ev = parseLookupLine(line.text, file, line.lineNo)
        if (typeof ev === 'string') {
          options.onSkip?.({file, lineNo: line.lineNo, reason: ev})
          continue
        }
        if (options.model !== undefined && ev.model !== options.model) continue
        out.push(ev)
      }
      options.onBytes?.(bytesBefore + reader.bytesRead)
      if (out.length > 0) yield out
    }
    bytesBefore += reader.bytesRead
  }
}

/**
 * A 64-bit signed key for the Get+Write trace: an integer hash (or `hex(int)` text, at most 16 digits) as its
 * two's-complement int64, a longer hex text (a 32-byte digest) by its first 64 bits. Distinct 32-byte digests collide only when their first 8 bytes agree.
 */
export function hashKey64(key: string): bigint {
  if (key.startsWith('#')) return BigInt.asIntN(64, BigInt(key.slice(1)))
  const negative = key.startsWith('-')
  const body = negative ? key.slice(1) : key
  const hex = body.startsWith('0x') || body.startsWith('0X') ? body.slice(2) : body
  if (!/^[0-9a-fA-F]+$/.test(hex)) {
    // not hex: a 64-bit FNV-1a of the text, so equal strings still share a key
    let h = 0xcbf29ce484222325n
    for (let i = 0; i < key.length; i++)
      h = BigInt.asUintN(64, (h ^ BigInt(key.charCodeAt(i))) * 0x100000001b3n)
    return BigInt.asIntN(64, h)
  }
  if (hex.length > 16) return BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)) // a digest: its first 8 bytes
  const value = BigInt(`0x${hex}`)
  return BigInt.asIntN(64, negative ? -value : value)
}
