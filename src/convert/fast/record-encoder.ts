import {KeyList} from '../../hash/key-list.js'
import {GetRecord, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES, WriteRecord} from '../records.js'
import {serializeJson, serializeString} from '../../formats/json/serialize.js'
import type {LineArena, StoredLine} from './line-arena.js'

/** Where an encoded line goes: a slot of the line arena, or an output file's buffer. */
export interface ByteSink {
  /** ASCII-only text */
  ascii(s: string): void
  text(s: string): void
  /**
   * Room for `n` more bytes: the buffer to write them into from {@link pos} (then advance `pos`), or undefined
   * when `n` bytes do not fit at once (the caller then appends piece by piece).
   */
  room(n: number): Uint8Array | undefined
  pos: number
}

/** Byte pieces of one instance id, cached: most runs have a handful of instances. */
interface InstancePieces {
  id: string
  get: Buffer // `{"type": "get", "instance_id": <id>, "trace_id": "trace_<id>_`
  write: Buffer
}

const cache = new Map<string, InstancePieces>()
const INPUT_LEN = Buffer.from(', "input_len": ')
const DEFAULT_GET_TAIL = Buffer.from(
  ', "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n',
)

/** The cached head pieces of an instance's lines (for {@link putLineHead}). */
function piecesOf(id: string): InstancePieces {
  let p = cache.get(id)
  if (p !== undefined) return p
  if (cache.size > 10_000) cache.clear()
  const idJson = serializeString(id)
  const tracePrefix = serializeString(`trace_${id}_`).slice(0, -1) // without the closing quote
  p = {
    id,
    get: Buffer.from(`{"type": "get", "instance_id": ${idJson}, "trace_id": ${tracePrefix}`, 'utf8'),
    write: Buffer.from(`{"type": "write", "instance_id": ${idJson}, "trace_id": ${tracePrefix}`, 'utf8'),
  }
  cache.set(id, p)
  return p
}

/**
 * One JSONL line (with its newline) for a record built by `BaseConverter`, written straight to bytes: the field
 * order is the record class's, instance-id pieces are cached, and KeyList keys are copied as ready-made bytes.
 * The bytes equal `serializeJson(record) + "\n"`.
 */
export function encodeRecordLine(record: GetRecord | WriteRecord, arena: LineArena): StoredLine {
  const b = arena.begin()
  encodeRecordInto(record, b)
  return b.end()
}

/**
 * The length a record's line will about have when it can be encoded later at the same cost as now — a write, or a
 * get with the default tail, whose keys are a KeyList (immutable, its text ready) — else undefined. Records are
 * frozen, so a line encoded later equals one encoded now; the sorter then holds the record, not a copy of its bytes.
 */
export function deferredRecordSize(record: GetRecord | WriteRecord): number | undefined {
  if (!(record.keys instanceof KeyList)) return undefined
  if (record instanceof GetRecord && !hasDefaultTail(record)) return undefined
  return record.keys.jsonByteLength + 2 * record.instance_id.length + 200
}

const TS_FIELD = Buffer.from('", "timestamp_ns": ')
const KEYS_FIELD = Buffer.from(', "keys": ')

function put(out: Uint8Array, p: number, piece: Uint8Array): number {
  const n = piece.length
  if (n > 32) {
    out.set(piece, p)
    return p + n
  }
  for (let i = 0; i < n; i++) out[p + i] = piece[i]
  return p + n
}

function putAscii(out: Uint8Array, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) out[p++] = s.charCodeAt(i)
  return p
}

/** A tail value whose text depends only on the value: a primitive, or an empty plain array. */
function plainTailValue(v: unknown): boolean {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return true
  return Array.isArray(v) && v.length === 0 && Object.getPrototypeOf(v) === Array.prototype
}

const sameTailValue = (a: unknown, b: unknown): boolean =>
  Object.is(a, b) || (Array.isArray(a) && Array.isArray(b)) // both plain and empty (checked before)

/**
 * The last tail of plain values encoded, reused while the gets that follow have the same values (a log's gets
 * mostly share their query type, block mask, window size and location specs): one copy instead of a piece each.
 */
let lastTail: {qt: unknown; bm: unknown; sw: unknown; ls: unknown; bytes: Buffer} | undefined

/** A get's fields after input_len with its closing brace and newline, as bytes, when all are plain values. */
function plainTail(r: GetRecord): Buffer | undefined {
  const {query_type: qt, block_mask: bm, sw_size: sw, location_spec_names: ls} = r
  if (!(plainTailValue(qt) && plainTailValue(bm) && plainTailValue(sw) && plainTailValue(ls)))
    return undefined
  let t = lastTail
  if (
    t === undefined ||
    !sameTailValue(qt, t.qt) ||
    !sameTailValue(bm, t.bm) ||
    !sameTailValue(sw, t.sw) ||
    !sameTailValue(ls, t.ls)
  ) {
    const text = (v: unknown) => serializeJson(v)
    const tail = `, "query_type": ${text(qt)}, "block_mask": ${text(bm)}, "sw_size": ${text(sw)}, "location_spec_names": ${text(ls)}}\n`
    lastTail = t = {qt, bm, sw, ls, bytes: Buffer.from(tail, 'utf8')}
  }
  return t.bytes
}

function hasDefaultTail(record: GetRecord): boolean {
  return (
    record.query_type === 'prefix_match' &&
    record.block_mask === NO_BLOCK_MASK &&
    record.sw_size === 0 &&
    record.location_spec_names === NO_LOCATION_SPEC_NAMES
  )
}

/**
 * The usual record (KeyList keys; a get whose tail is the default or plain values) written in one go into room
 * the sink gives, no call per piece: `{"type": …, "trace_id": "trace_<id>_<ts>", "timestamp_ns": <ts>, "keys": `,
 * the keys' text, then a get's `, "input_len": <len>` and tail or a write's `}`. False when the sink has no room
 * for it at once.
 */
function encodeUsual(record: GetRecord | WriteRecord, keys: KeyList, b: ByteSink, tail: Buffer): boolean {
  const isGet = record instanceof GetRecord
  const pieces = piecesOf(record.instance_id)
  // the timestamp's digits end the trace id (`trace_<id>_<ts>`), made with it: no second BigInt to text
  const ts = record.trace_id.slice(record.instance_id.length + 7)
  const lenText = isGet ? String(record.input_len) : ''
  const head = isGet ? pieces.get : pieces.write
  const common = head.length + 2 * ts.length + TS_FIELD.length + KEYS_FIELD.length + keys.jsonByteLength
  const out = b.room(common + (isGet ? INPUT_LEN.length + lenText.length + tail.length : 2))
  if (out === undefined) return false
  let p = put(out, b.pos, head)
  p = putAscii(out, p, ts)
  p = put(out, p, TS_FIELD)
  p = putAscii(out, p, ts)
  p = put(out, p, KEYS_FIELD)
  p = keys.copyJsonInto(out, p)
  if (isGet) {
    p = put(out, p, INPUT_LEN)
    p = putAscii(out, p, lenText)
    p = put(out, p, tail)
  } else {
    out[p++] = 0x7d // }
    out[p++] = 0x0a
  }
  b.pos = p
  return true
}

/** Writes one record's line (with its newline) to `b`: {@link encodeRecordLine}'s bytes. */
export function encodeRecordInto(record: GetRecord | WriteRecord, b: ByteSink): void {
  const keys = record.keys
  const tail = record instanceof WriteRecord || hasDefaultTail(record) ? DEFAULT_GET_TAIL : plainTail(record)
  if (keys instanceof KeyList && tail !== undefined) {
    if (encodeUsual(record, keys, b, tail)) return
  }
  // any other record, and one longer than the room the sink has at once, as the plain path writes it
  b.text(serializeJson(record))
  b.ascii('\n')
}
