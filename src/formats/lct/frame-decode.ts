import {LCT_NOT_A_TRACE_HINT, lctError} from '../../errors.js'
import {pyBytesRepr, pyFloatRepr, pyStrRepr} from '../../util/pyfmt.js'
import {LCT_MAGIC, LCT_READABLE_SCHEMA_VERSIONS, LCT_FORMAT_VERSION} from './constants.js'
import {familyOf, MsgpackReader, nullProtoObject, type RawMap, type RawValue} from './msgpack.js'
import type {DecodedRecordFields, LctHeader} from './types.js'

/** A field rule broken by an otherwise well-formed frame (the detail of a malformed-frame message). */
export class FieldError extends Error {}

interface Field {
  family: string
  value: RawValue | undefined
  /** for map values: the family of the first non-str key, if any */
  badKey?: string
}

/** Python-style repr of a decoded value, for messages. */
export function pyRepr(v: RawValue | undefined, family?: string): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'string') return pyStrRepr(v)
  if (typeof v === 'number') return family === 'float' ? pyFloatRepr(v) : String(v)
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return pyBytesRepr(v)
  return Array.isArray(v) ? `[…${v.length} items]` : '{…}'
}

/** The entry count of the top-level map of a frame body; FieldError when the body is one well-formed other value. */
function topMapHeader(r: MsgpackReader): number {
  const first = r.peek()
  const n = r.mapHeader()
  if (n < 0) {
    r.value()
    r.expectEnd()
    throw new FieldError(`expected a map, got ${familyOf(first)}`)
  }
  return n
}

/**
 * Walks the top-level map of a header body: the header's fields with their families, every other value only
 * validated; `level_meta` a map of str keys. A repeated key keeps its last value. Throws MsgpackError for anything
 * that is not one well-formed value, FieldError when it is not a map.
 */
function headerFields(r: MsgpackReader): Map<string, Field> {
  const n = topMapHeader(r)
  const fields = new Map<string, Field>()
  for (let i = 0; i < n; i++) {
    const key = r.mapKey()
    const family = familyOf(r.peek())
    if (key === 'level_meta' && family === 'map') fields.set(key, mapWithStrKeys(r))
    else {
      const value = r.value()
      if (HEADER_DECODE.has(key)) fields.set(key, {family, value})
    }
  }
  r.expectEnd()
  return fields
}

/** A map whose keys must all be str (args, level_meta); int keys are noted, other key types are malformed. */
function mapWithStrKeys(r: MsgpackReader): Field {
  const n = r.mapHeader()
  const out = nullProtoObject<RawMap>()
  let badKey: string | undefined
  for (let i = 0; i < n; i++) {
    const fam = familyOf(r.peek())
    if (fam !== 'str') badKey ??= fam
    const key = r.mapKey()
    out[key] = r.value()
  }
  return {family: 'map', value: out, badKey}
}

/** The required header fields, in the order they are checked, and the msgpack families each may have. */
const HEADER_TYPES: Record<string, string[]> = {
  magic: ['bin'],
  format_version: ['int'],
  level: ['str'],
  trace_schema_version: ['int'],
  t_mono_start: ['int', 'float'],
  t_wall_start: ['int', 'float'],
  sm_config_json: ['str'],
  sm_config_digest: ['str'],
}
const HEADER_FIELDS = Object.keys(HEADER_TYPES)
const HEADER_DECODE = new Set<string>([...HEADER_FIELDS, 'type', 'level_meta', 'lmcache_version'])

function toNumber(v: RawValue | undefined): number {
  return typeof v === 'bigint' ? Number(v) : (v as number)
}

/** Decodes and validates a header body strictly (docs/lct.md §4.3 rows 6–14). */
export function decodeHeader(body: Uint8Array, source: string): LctHeader {
  const malformed = (detail: string) => lctError('LCT_MALFORMED_HEADER', {source, offset: 0}, detail)
  let fields: Map<string, Field>
  try {
    fields = headerFields(new MsgpackReader(body, 0, body.length))
  } catch (err) {
    throw malformed((err as Error).message)
  }
  const type = fields.get('type')
  if (type && type.value !== 'header')
    throw malformed(`field 'type' is ${pyRepr(type.value, type.family)}, expected 'header'`)
  const g0 = fields.get('lmcache_version')
  if (!fields.has('trace_schema_version') && g0)
    throw lctError(
      'LCT_G0_HEADER',
      {source, offset: 0},
      typeof g0.value === 'string' ? pyStrRepr(g0.value) : pyRepr(g0.value, g0.family),
    )
  for (const key of HEADER_FIELDS) if (!fields.has(key)) throw malformed(`missing required field '${key}'`)
  for (const key of HEADER_FIELDS) {
    const f = fields.get(key) as Field
    if (!HEADER_TYPES[key].includes(f.family))
      throw malformed(`field '${key}' must be ${HEADER_TYPES[key].join(' or ')}, got ${f.family}`)
  }
  const meta = fields.get('level_meta')
  if (meta && meta.family !== 'map') throw malformed(`field 'level_meta' must be map, got ${meta.family}`)
  if (meta?.badKey) throw malformed(`field 'level_meta' must be map with str keys, got ${meta.badKey} key`)
  const magic = fields.get('magic')?.value as Uint8Array
  if (magic.length !== LCT_MAGIC.length || !magic.every((b, i) => b === LCT_MAGIC[i]))
    throw lctError(
      'LCT_BAD_MAGIC',
      {source, offset: 0, suggestions: [`the file is not an LMCache trace (.lct); ${LCT_NOT_A_TRACE_HINT}`]},
      pyBytesRepr(magic),
    )
  const formatVersion = fields.get('format_version')?.value as number | bigint
  if (formatVersion !== LCT_FORMAT_VERSION)
    throw lctError('LCT_UNSUPPORTED_FORMAT', {source, offset: 0}, formatVersion)
  const schema = fields.get('trace_schema_version')?.value as number | bigint
  if (typeof schema !== 'number' || !LCT_READABLE_SCHEMA_VERSIONS.has(schema))
    throw lctError('LCT_UNSUPPORTED_SCHEMA', {source, offset: 0}, schema)
  const smConfigJson = fields.get('sm_config_json')?.value as string
  const smConfigDigest = fields.get('sm_config_digest')?.value as string
  return {
    magic,
    formatVersion: formatVersion as number,
    level: fields.get('level')?.value as string,
    traceSchemaVersion: schema,
    tMonoStart: toNumber(fields.get('t_mono_start')?.value),
    tWallStart: toNumber(fields.get('t_wall_start')?.value),
    smConfigJson,
    smConfigDigest,
    levelMeta: (meta?.value as RawMap | undefined) ?? (Object.create(null) as RawMap),
    isPlaceholder: smConfigJson === '' && smConfigDigest === '',
  }
}

const RECORD_FIELD_NAMES = ['type', 't_mono', 't_wall', 'qualname', 'args'] as const

/**
 * The record rules of docs/lct.md §4.4 over the families of the five fields (undefined = absent), the `type` value and
 * the first non-str args key; throws FieldError with the detail. One function for both paths keeps them identical.
 */
function checkRecordFamilies(
  fam: ReadonlyArray<string | undefined>,
  typeValue: RawValue | undefined,
  argsBadKey: string | undefined,
): void {
  if (fam[0] !== undefined && typeValue !== 'record')
    throw new FieldError(`field 'type' is ${pyRepr(typeValue, fam[0])}, expected 'record'`)
  for (let id = 1; id < 5; id++)
    if (fam[id] === undefined) throw new FieldError(`missing required field '${RECORD_FIELD_NAMES[id]}'`)
  for (let id = 1; id <= 2; id++) {
    if (fam[id] !== 'int' && fam[id] !== 'float')
      throw new FieldError(`field '${RECORD_FIELD_NAMES[id]}' must be int or float, got ${fam[id]}`)
  }
  if (fam[3] !== 'str') throw new FieldError(`field 'qualname' must be str, got ${fam[3]}`)
  if (fam[4] !== 'map') throw new FieldError(`field 'args' must be map, got ${fam[4]}`)
  if (argsBadKey) throw new FieldError(`args key must be str, got ${argsBadKey}`)
}

/** Full decoding of a record body (args built, not codec-decoded). Throws MsgpackError or FieldError. */
export function decodeRecordBody(body: Uint8Array, start: number, end: number): DecodedRecordFields {
  return decodeRecordWith(new MsgpackReader(body, start, end))
}

/** The qualname at pos (a str): a cut-short one fails where skipping it finds it, as every reader's does. */
function qualnameAt(r: MsgpackReader): string {
  const save = r.pos
  r.skipStr()
  r.pos = save
  return r.readStr()
}

/**
 * The five record fields of the body `r` stands at, by key into locals (no per-record map of fields); a repeated key
 * keeps its last value. With the values `r` builds: a reader that returns some values ready-made, as the interning
 * reader does, gives records whose fields are the same.
 */
export function decodeRecordWith(r: MsgpackReader): DecodedRecordFields {
  const n = topMapHeader(r)
  const fam: Array<string | undefined> = [undefined, undefined, undefined, undefined, undefined]
  let typeValue: RawValue | undefined
  let tMono: RawValue | undefined
  let tWall: RawValue | undefined
  let qualname: string | undefined
  let args: RawValue | undefined
  let argsBadKey: string | undefined
  for (let i = 0; i < n; i++) {
    const save = r.pos
    let id = -1
    if (r.skipStr()) {
      r.pos = save // the skip found any cut-short key; the string's reading validates its UTF-8
      id = RECORD_FIELD_NAMES.indexOf(r.readStr() as (typeof RECORD_FIELD_NAMES)[number])
    } else r.mapKey() // int keys never name a field; other key types are malformed
    if (id < 0) {
      r.value()
      continue
    }
    const f = familyOf(r.peek())
    fam[id] = f
    switch (id) {
      case 0:
        typeValue = r.value()
        break
      case 1:
        tMono = r.value()
        break
      case 2:
        tWall = r.value()
        break
      case 3:
        if (f === 'str') qualname = qualnameAt(r)
        else r.value()
        break
      case 4:
        if (f === 'map') {
          const m = mapWithStrKeys(r)
          argsBadKey = m.badKey
          args = m.value
        } else r.value()
        break
    }
  }
  r.expectEnd()
  checkRecordFamilies(fam, typeValue, argsBadKey)
  return {
    tMono: toNumber(tMono),
    tWall: toNumber(tWall),
    qualname: qualname as string,
    args: args as RawMap,
  }
}
