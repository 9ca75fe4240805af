import {JsonFloat} from '../json/json-float.js'
import {VALUE_KEY, WRAP_KEY} from './constants.js'
import {dtypeItemSize} from './dtypes.js'
import {nullProtoObject, type RawMap, type RawValue} from './msgpack.js'
import {
  AttnWindowDesc,
  MemoryLayoutDesc,
  ObjectKey,
  PrefetchHandle,
  PrefetchMode,
  PrefetchRequestSpec,
  PySet,
  PyTuple,
  TorchDtype,
  TorchSize,
  TrimPolicy,
} from './values.js'

/** A bad payload or an unencodable value. At replay a CodecError makes the record skipped, not failed. */
export class CodecError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CodecError'
  }
}

export class UnknownTagError extends CodecError {
  constructor(readonly tag: unknown) {
    super(`trace.codecs: unknown tag '${wireText(tag)}'`)
    this.name = 'UnknownTagError'
  }
}

export interface Codec<T> {
  tag: string
  encode(v: T): unknown
  decode(payload: RawValue): T
}

export type DecodedValue = unknown
export type DecodedArgs = Record<string, DecodedValue>

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Ctor = abstract new (...args: any[]) => unknown

const byCtor = new Map<Ctor, Codec<unknown>>()
const byTag = new Map<string, Codec<unknown>>()

/** Registers a codec for instances whose constructor is exactly `ctor` (never `instanceof`). */
export function registerCodec<T>(ctor: abstract new (...a: never[]) => T, codec: Codec<T>): void {
  if (codec.tag === 'tuple') throw new CodecError(`codec tag 'tuple' is reserved`)
  if (byCtor.has(ctor as Ctor)) throw new CodecError(`codec already registered for type '${ctor.name}'`)
  if (byTag.has(codec.tag)) throw new CodecError(`codec tag '${codec.tag}' already in use`)
  byCtor.set(ctor as Ctor, codec as Codec<unknown>)
  byTag.set(codec.tag, codec as Codec<unknown>)
}

export function codecForTag(tag: string): Codec<unknown> | undefined {
  return byTag.get(tag)
}

export function codecForValue(v: unknown): Codec<unknown> | undefined {
  if (v === null || typeof v !== 'object') return undefined
  return byCtor.get((v as object).constructor as Ctor)
}

function wrap(tag: string, payload: unknown): Record<string, unknown> {
  const w = nullProtoObject<Record<string, unknown>>()
  w[WRAP_KEY] = tag
  w[VALUE_KEY] = payload
  return w
}

/**
 * A wire value as message text. `String()` throws on a null-prototype map (msgpack maps are decoded so), which turned
 * a bad payload into an uncoded TypeError: maps, lists and bytes are named by their kind instead.
 */
export function wireText(v: unknown): string {
  if (v === null || typeof v !== 'object') return typeof v === 'symbol' ? v.toString() : String(v)
  if (Array.isArray(v)) return `a list of ${v.length}`
  if (v instanceof Uint8Array) return `${v.length} bytes`
  if (v instanceof JsonFloat) return String(v.value)
  return 'a map'
}

function isPlainObject(v: object): boolean {
  const p = Object.getPrototypeOf(v)
  return p === Object.prototype || p === null
}

function shortRepr(v: unknown): string {
  if (v === undefined) return 'undefined'
  if (typeof v === 'function') return `function ${v.name || '(anonymous)'}`
  if (typeof v === 'symbol') return v.toString()
  if (v instanceof Map) return `Map(${v.size})`
  if (v instanceof Set) return `Set(${v.size})`
  if (v instanceof Date) return `Date(${v.toISOString()})`
  const name = (v as object)?.constructor?.name
  const s = name ? `${name} {…}` : wireText(v)
  return s.length > 60 ? s.slice(0, 57) + '...' : s
}

/** Encodes one argument value for the wire (docs/lct.md §5.1). */
export function encodeValue(v: unknown): unknown {
  if (v !== null && typeof v === 'object') {
    const codec = byCtor.get((v as object).constructor as Ctor)
    if (codec) return wrap(codec.tag, codec.encode(v))
  }
  if (
    v === null ||
    typeof v === 'boolean' ||
    typeof v === 'number' ||
    typeof v === 'bigint' ||
    typeof v === 'string'
  )
    return v
  if (v instanceof JsonFloat || v instanceof Uint8Array) return v
  if (Array.isArray(v)) return v.map(encodeValue)
  if (v instanceof PyTuple) return wrap('tuple', v.items.map(encodeValue))
  if (v !== undefined && typeof v === 'object' && isPlainObject(v)) {
    const out = nullProtoObject<Record<string, unknown>>()
    for (const k of Object.keys(v)) out[k] = encodeValue((v as Record<string, unknown>)[k])
    return out
  }
  const type =
    v === undefined
      ? 'undefined'
      : typeof v === 'object'
        ? ((v as object).constructor?.name ?? 'Object')
        : typeof v
  throw new CodecError(
    `trace.codecs: no codec registered for type '${type}' (value=${shortRepr(v)}). Register one via registerCodec() or extend the default registry.`,
  )
}

function isRawMap(v: unknown): v is RawMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
}

/** Decodes one wire value (wrappers become value classes). */
export function decodeValue(v: RawValue, reuse = false): DecodedValue {
  if (Array.isArray(v)) {
    if (!reuse) return v.map((x) => decodeValue(x))
    for (let i = 0; i < v.length; i++) v[i] = decodeValue(v[i], true) as RawValue
    return v
  }
  // interned wrappers arrive already decoded (fast/key-intern.ts)
  if (!isRawMap(v) || (v as unknown) instanceof ObjectKey || (v as unknown) instanceof MemoryLayoutDesc)
    return v
  const tag = v[WRAP_KEY]
  if (tag === undefined || tag === null) {
    const out = reuse ? (v as DecodedArgs) : nullProtoObject<Record<string, unknown>>()
    for (const k of Object.keys(v)) out[k] = decodeValue(v[k], reuse)
    return out
  }
  if (!(VALUE_KEY in v)) throw new CodecError(`trace.codecs: wrapper '${wireText(tag)}' has no payload`)
  if (tag === 'tuple') {
    const items = v[VALUE_KEY]
    if (!Array.isArray(items)) throw new CodecError('trace.codecs: tuple payload must be an array')
    return new PyTuple(items.map((x) => decodeValue(x)))
  }
  const codec = typeof tag === 'string' ? byTag.get(tag) : undefined
  if (!codec) throw new UnknownTagError(tag)
  return codec.decode(v[VALUE_KEY])
}

export function encodeArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out = nullProtoObject<Record<string, unknown>>()
  for (const k of Object.keys(args)) out[k] = encodeValue(args[k])
  return out
}

export function decodeArgs(args: RawMap): DecodedArgs {
  const out = nullProtoObject<Record<string, unknown>>()
  for (const k of Object.keys(args)) out[k] = decodeValue(args[k])
  return out
}

/**
 * {@link decodeArgs} that reuses the raw map and its arrays for the decoded values (no second copy per record).
 * Only for a map nobody else holds, such as a record's args straight from the reader; after a CodecError the map is
 * partly decoded and must be dropped.
 */
export function decodeArgsInPlace(args: RawMap): DecodedArgs {
  const out = args as DecodedArgs
  for (const k of Object.keys(args)) out[k] = decodeValue(args[k], true)
  return out
}

// ---------------------------------------------------------------------------------------------- payload helpers

function bad(tag: string, what: string): never {
  throw new CodecError(`trace.codecs: ${tag}: ${what}`)
}

function field(tag: string, p: RawValue, key: string): RawValue {
  if (!isRawMap(p)) bad(tag, 'payload must be a map')
  if (!(key in p)) bad(tag, `missing '${key}'`)
  return p[key]
}

function intOf(tag: string, v: RawValue, what: string, {nonNegative = false} = {}): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) bad(tag, `${what} must be an integer`)
  if (nonNegative && v < 0) bad(tag, `${what} must be ≥ 0`)
  return v
}

function intList(tag: string, v: RawValue, what: string): number[] {
  if (!Array.isArray(v)) bad(tag, `${what} must be a list of integers`)
  return v.map((x) => intOf(tag, x, what))
}

function strOf(tag: string, v: RawValue, what: string): string {
  if (typeof v !== 'string') bad(tag, `${what} must be a string`)
  return v
}

function dtypeName(v: RawValue): string {
  if (typeof v !== 'string' || dtypeItemSize(v) === undefined)
    throw new CodecError(`trace.codecs: unknown torch dtype '${wireText(v)}'`)
  return v
}

// ---------------------------------------------------------------------------------------------- built-in codecs

const objectKeyCodec: Codec<ObjectKey> = {
  tag: 'ObjectKey',
  encode: (k) => ({
    chunk_hash: k.chunkHash,
    model_name: k.modelName,
    kv_rank: k.kvRank,
    object_group_id: k.objectGroupId,
    cache_salt: k.cacheSalt,
  }),
  decode: (p) => {
    const hash = field('ObjectKey', p, 'chunk_hash')
    if (!(hash instanceof Uint8Array)) bad('ObjectKey', 'chunk_hash must be bytes')
    const model = strOf('ObjectKey', field('ObjectKey', p, 'model_name'), 'model_name')
    const rank = field('ObjectKey', p, 'kv_rank')
    if (typeof rank !== 'bigint') intOf('ObjectKey', rank, 'kv_rank')
    const m = p as RawMap
    const group = m.object_group_id ?? 0
    intOf('ObjectKey', group, 'object_group_id', {nonNegative: true})
    const salt = strOf('ObjectKey', m.cache_salt ?? '', 'cache_salt')
    if (model.includes('@')) bad('ObjectKey', `model_name must not contain '@'`)
    // eslint-disable-next-line no-control-regex -- NUL is one of the forbidden characters
    if (/[@/\\\u0000]/.test(salt)) bad('ObjectKey', `cache_salt must not contain '@', '/', '\\' or NUL`)
    if ([...salt].length > 128) bad('ObjectKey', 'cache_salt is longer than 128 characters')
    return new ObjectKey(hash, model, rank as number | bigint, group as number, salt)
  },
}

const layoutCodec: Codec<MemoryLayoutDesc> = {
  tag: 'MemoryLayoutDesc',
  encode: (l) => ({shapes: l.shapes.map((s) => [...s]), dtypes: [...l.dtypes]}),
  decode: (p) => {
    const shapes = field('MemoryLayoutDesc', p, 'shapes')
    const dtypes = field('MemoryLayoutDesc', p, 'dtypes')
    if (!Array.isArray(shapes) || !Array.isArray(dtypes))
      bad('MemoryLayoutDesc', 'shapes and dtypes must be lists')
    const s = shapes.map((x) => intList('MemoryLayoutDesc', x, 'a shape'))
    const d = dtypes.map(dtypeName)
    if (s.length !== d.length)
      throw new CodecError('MemoryLayoutDesc: shapes and dtype must have the same length')
    return new MemoryLayoutDesc(s, d)
  },
}

const sizeCodec: Codec<TorchSize> = {
  tag: 'torch.Size',
  encode: (s) => [...s.dims],
  decode: (p) => new TorchSize(intList('torch.Size', p, 'torch.Size')),
}

const dtypeCodec: Codec<TorchDtype> = {
  tag: 'torch.dtype',
  encode: (d) => d.name,
  decode: (p) => new TorchDtype(dtypeName(p)),
}

const setCodec: Codec<PySet> = {
  tag: 'set',
  encode: (s) => s.items.map(encodeValue),
  decode: (p) => {
    if (!Array.isArray(p)) bad('set', 'payload must be a list')
    const seen = new Set<unknown>()
    const items: unknown[] = []
    for (const raw of p) {
      const v = decodeValue(raw)
      const identity =
        v instanceof ObjectKey ? `key:${v.id}` : v !== null && typeof v === 'object' ? undefined : v
      if (identity !== undefined) {
        if (seen.has(identity)) continue
        seen.add(identity)
      }
      items.push(v)
    }
    return new PySet(items)
  },
}

const trimCodec: Codec<TrimPolicy> = {
  tag: 'TrimPolicy',
  encode: (t) => t.name,
  decode: (p) =>
    (typeof p === 'string' ? TrimPolicy.byName(p) : undefined) ??
    bad('TrimPolicy', `unknown policy '${wireText(p)}'`),
}

const modeCodec: Codec<PrefetchMode> = {
  tag: 'PrefetchMode',
  encode: (m) => m.name,
  decode: (p) =>
    (typeof p === 'string' ? PrefetchMode.byName(p) : undefined) ??
    bad('PrefetchMode', `unknown mode '${wireText(p)}'`),
}

const attnCodec: Codec<AttnWindowDesc> = {
  tag: 'AttnWindowDesc',
  encode: (a) => ({num_chunks_in_sw: [...a.numChunksInSw], world_size: a.worldSize}),
  decode: (p) => {
    let windows: RawValue
    let world: RawValue = 1
    if (Array.isArray(p)) windows = p
    else {
      windows = field('AttnWindowDesc', p, 'num_chunks_in_sw')
      world = (p as RawMap).world_size ?? 1
    }
    const w = intList('AttnWindowDesc', windows, 'num_chunks_in_sw')
    if (w.some((x) => x !== -1 && x < 1)) bad('AttnWindowDesc', 'every window must be -1 or ≥ 1')
    return new AttnWindowDesc(w, intOf('AttnWindowDesc', world, 'world_size', {nonNegative: true}))
  },
}

const handleCodec: Codec<PrefetchHandle> = {
  tag: 'PrefetchHandle',
  encode: (h) => ({
    prefetch_request_id: h.prefetchRequestId,
    external_request_id: h.externalRequestId,
    l1_prefix_hit_count: h.l1FoundIndices.length,
    l1_found_indices: [...h.l1FoundIndices],
    l1_hit_chunks: h.l1HitChunks,
    total_requested_keys: h.totalRequestedKeys,
    submit_time: new JsonFloat(h.submitTime),
    l2_orig_indices: [...h.l2OrigIndices],
    generation: h.generation,
  }),
  decode: (p) => {
    const t = 'PrefetchHandle'
    const id = field(t, p, 'prefetch_request_id')
    const ext = strOf(t, field(t, p, 'external_request_id'), 'external_request_id')
    const found = intList(t, field(t, p, 'l1_found_indices'), 'l1_found_indices')
    const total = intOf(t, field(t, p, 'total_requested_keys'), 'total_requested_keys')
    const submit = field(t, p, 'submit_time')
    if (typeof submit !== 'number') bad(t, 'submit_time must be a number')
    const m = p as RawMap
    return new PrefetchHandle(
      typeof id === 'bigint' ? id : intOf(t, id, 'prefetch_request_id'),
      ext,
      found,
      intOf(t, m.l1_hit_chunks ?? 0, 'l1_hit_chunks'),
      total,
      submit,
      intList(t, m.l2_orig_indices ?? [], 'l2_orig_indices'),
      intOf(t, m.generation ?? 0, 'generation'),
    )
  },
}

const specCodec: Codec<PrefetchRequestSpec> = {
  tag: 'PrefetchRequestSpec',
  encode: (s) => ({
    keys: s.keys.map(encodeValue),
    num_kv_readers: s.numKvReaders,
    policy: encodeValue(s.policy),
    attn_desc: encodeValue(s.attnDesc),
    // integer-like keys would be reordered by a JS object: an ordered Map keeps ascending group ids
    group_layout_descs: new Map(
      [...s.groupLayoutDescs.keys()]
        .sort((a, b) => a - b)
        .map((gid) => [String(gid), encodeValue(s.groupLayoutDescs.get(gid))]),
    ),
    mode: encodeValue(s.mode),
    generation: s.generation,
  }),
  decode: (p) => {
    const t = 'PrefetchRequestSpec'
    const keysRaw = field(t, p, 'keys')
    if (!Array.isArray(keysRaw)) bad(t, 'keys must be a list')
    const keys = keysRaw.map((x) => decodeValue(x))
    if (!keys.every((k) => k instanceof ObjectKey)) bad(t, 'keys must be ObjectKeys')
    const policy = decodeValue(field(t, p, 'policy'))
    const attn = decodeValue(field(t, p, 'attn_desc'))
    const mode = decodeValue(field(t, p, 'mode'))
    if (
      !(policy instanceof TrimPolicy) ||
      !(attn instanceof AttnWindowDesc) ||
      !(mode instanceof PrefetchMode)
    )
      bad(t, 'policy, attn_desc and mode must be TrimPolicy, AttnWindowDesc and PrefetchMode')
    const m = p as RawMap
    const groups = new Map<number, MemoryLayoutDesc>()
    const rawGroups = m.group_layout_descs
    if (isRawMap(rawGroups)) {
      for (const k of Object.keys(rawGroups)) {
        const gid = Number(k)
        if (!Number.isInteger(gid)) bad(t, `group id '${k}' is not an integer`)
        const l = decodeValue(rawGroups[k])
        if (!(l instanceof MemoryLayoutDesc)) bad(t, 'group layouts must be MemoryLayoutDesc')
        groups.set(gid, l)
      }
    }
    if (groups.size === 0 && 'layout_desc' in m) {
      const l = decodeValue(m.layout_desc)
      if (!(l instanceof MemoryLayoutDesc)) bad(t, 'layout_desc must be a MemoryLayoutDesc')
      groups.set(0, l)
    }
    const readers =
      'num_kv_readers' in m
        ? intOf(t, m.num_kv_readers, 'num_kv_readers')
        : intOf(t, m.extra_count ?? 0, 'extra_count') + 1
    return new PrefetchRequestSpec(
      keys as ObjectKey[],
      groups,
      readers,
      policy,
      attn,
      mode,
      intOf(t, m.generation ?? 0, 'generation'),
    )
  },
}

registerCodec(ObjectKey, objectKeyCodec)
registerCodec(MemoryLayoutDesc, layoutCodec)
registerCodec(TorchSize, sizeCodec)
registerCodec(TorchDtype, dtypeCodec)
registerCodec(PySet, setCodec)
registerCodec(TrimPolicy as unknown as Ctor, trimCodec as Codec<unknown>)
registerCodec(PrefetchMode as unknown as Ctor, modeCodec as Codec<unknown>)
registerCodec(AttnWindowDesc, attnCodec)
registerCodec(PrefetchHandle, handleCodec)
registerCodec(PrefetchRequestSpec, specCodec)
