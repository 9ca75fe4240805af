import {KeyList} from '../hash/key-list.js'
import {GetRecord, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES, WriteRecord} from '../convert/records.js'
import {serializeJson, serializeString} from './serialize.js'

// Node's direct encoders (undocumented in @types/node, stable since Node 0.x): no argument juggling per call
type FastBuffer = Buffer & {latin1Write(s: string, offset: number): number; utf8Write(s: string, offset: number): number}

let scratch = Buffer.allocUnsafe(64 << 10) as FastBuffer

/** Byte pieces of one instance id, cached: most runs have a handful of instances. */
interface InstancePieces {
  id: string
  get: Buffer // `{"type": "get", "instance_id": <id>, "trace_id": "trace_<id>_`
  write: Buffer
}

const cache = new Map<string, InstancePieces>()

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

class LineBuilder {
  pos = 0

  reserve(n: number): void {
    if (this.pos + n > scratch.length) {
      const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, this.pos + n)) as FastBuffer
      scratch.copy(bigger, 0, 0, this.pos)
      scratch = bigger
    }
  }

  bytes(b: Buffer): void {
    this.reserve(b.length)
    b.copy(scratch, this.pos)
    this.pos += b.length
  }

  /** ASCII-only text (digits, punctuation, our field names). */
  ascii(s: string): void {
    this.reserve(s.length)
    this.pos += scratch.latin1Write(s, this.pos)
  }

  text(s: string): void {
    this.reserve(s.length * 3)
    this.pos += scratch.utf8Write(s, this.pos)
  }

  json(value: unknown): void {
    if (value instanceof KeyList) this.bytes(value.toJsonBytes())
    else this.text(serializeJson(value))
  }

  finish(): Buffer {
    return Buffer.from(scratch.subarray(0, this.pos))
  }
}

/**
 * One JSONL line (with its newline) for a record built by `BaseConverter`, written straight to bytes: the field
 * order is the record class's, instance-id pieces are cached, and KeyList keys are copied as ready-made bytes.
 * The bytes equal `serializeJson(record) + "\n"`.
 */
export function encodeRecordLine(record: GetRecord | WriteRecord): Buffer {
  const b = new LineBuilder()
  const pieces = piecesOf(record.instance_id)
  const ts = record.timestamp_ns.toString()
  b.bytes(record instanceof GetRecord ? pieces.get : pieces.write)
  b.ascii(ts)
  b.ascii('", "timestamp_ns": ')
  b.ascii(ts)
  b.ascii(', "keys": ')
  b.json(record.keys)
  if (record instanceof WriteRecord) {
    b.ascii('}\n')
    return b.finish()
  }
  b.ascii(', "input_len": ')
  b.ascii(record.input_len.toString())
  b.ascii(', "query_type": ')
  if (record.query_type === 'prefix_match') b.ascii('"prefix_match"')
  else b.json(record.query_type)
  b.ascii(', "block_mask": ')
  if (record.block_mask === NO_BLOCK_MASK) b.ascii('[]')
  else b.json(record.block_mask)
  b.ascii(', "sw_size": ')
  if (record.sw_size === 0) b.ascii('0')
  else b.json(record.sw_size)
  b.ascii(', "location_spec_names": ')
  if (record.location_spec_names === NO_LOCATION_SPEC_NAMES) b.ascii('[]')
  else b.json(record.location_spec_names)
  b.ascii('}\n')
  return b.finish()
}
