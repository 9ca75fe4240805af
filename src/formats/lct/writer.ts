import {MsgpackEncodeError, MsgpackWriter} from './msgpack.js'
import type {LctHeader} from './types.js'

/**
 * Encodes a header body exactly as LMCache (msgspec) writes it: a map with the `type` tag first, fields in struct
 * order, floats as float64, `level_meta` only when non-empty.
 */
export function encodeHeaderBody(h: Omit<LctHeader, 'isPlaceholder'>): Uint8Array {
  const w = new MsgpackWriter()
  const meta = Object.keys(h.levelMeta ?? {})
  w.mapHeader(meta.length > 0 ? 10 : 9)
  w.str('type')
  w.str('header')
  w.str('magic')
  w.bin(h.magic)
  w.str('format_version')
  w.int(h.formatVersion)
  w.str('level')
  w.str(h.level)
  w.str('trace_schema_version')
  w.int(h.traceSchemaVersion)
  w.str('t_mono_start')
  w.float64(h.tMonoStart)
  w.str('t_wall_start')
  w.float64(h.tWallStart)
  w.str('sm_config_json')
  w.str(h.smConfigJson)
  w.str('sm_config_digest')
  w.str(h.smConfigDigest)
  if (meta.length > 0) {
    w.str('level_meta')
    w.value(h.levelMeta)
  }
  return w.bytes()
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
  const w = new MsgpackWriter()
  w.mapHeader(5)
  w.str('type')
  w.str('record')
  w.str('t_mono')
  w.float64(r.tMono)
  w.str('t_wall')
  w.float64(r.tWall)
  w.str('qualname')
  w.str(r.qualname)
  w.str('args')
  w.value(r.args)
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
