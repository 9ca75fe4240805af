import {JsonFloat} from '../json/json-float.js'
import {MsgpackEncodeError, MsgpackWriter} from './msgpack.js'
import type {LctHeader} from './types.js'

/**
 * Encodes a header body exactly as LMCache (msgspec) writes it: a map with the `type` tag first, fields in struct
 * order, floats as float64, `level_meta` only when non-empty.
 */
export function encodeHeaderBody(h: Omit<LctHeader, 'isPlaceholder'>): Uint8Array {
  const meta = Object.keys(h.levelMeta ?? {}).length > 0 ? {level_meta: h.levelMeta} : {}
  return encode({
    type: 'header',
    magic: h.magic,
    format_version: h.formatVersion,
    level: h.level,
    trace_schema_version: h.traceSchemaVersion,
    t_mono_start: new JsonFloat(h.tMonoStart),
    t_wall_start: new JsonFloat(h.tWallStart),
    sm_config_json: h.smConfigJson,
    sm_config_digest: h.smConfigDigest,
    ...meta,
  })
}

/**
 * Encodes a record body. `args` must already be codec-encoded (`encodeArgs`): plain msgpack-able values. Note: a
 * JS number is written as an int when it is a safe integer, so an integral Python float copied from a foreign
 * record comes back as an int (docs/lct.md §3); the capture path never hits this.
 */
export function encodeRecordBody(r: {
  tMono: number
  tWall: number
  qualname: string
  args: unknown
}): Uint8Array {
  return encode({
    type: 'record',
    t_mono: new JsonFloat(r.tMono),
    t_wall: new JsonFloat(r.tWall),
    qualname: r.qualname,
    args: r.args,
  })
}

function encode(body: Record<string, unknown>): Uint8Array {
  const w = new MsgpackWriter()
  w.value(body)
  return w.bytes()
}

/** 4-byte big-endian length + body, in one buffer (one write per frame). */
export function frame(body: Uint8Array): Buffer {
  if (body.length > 0xffffffff)
    throw new MsgpackEncodeError(`frame body of ${body.length} bytes exceeds 2^32 - 1`)
  const out = Buffer.allocUnsafe(body.length + 4)
  out.writeUInt32BE(body.length, 0)
  out.set(body, 4)
  return out
}
