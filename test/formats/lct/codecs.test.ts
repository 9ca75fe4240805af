import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  CodecError,
  decodeArgs,
  decodeValue,
  encodeArgs,
  encodeValue,
  registerCodec,
  UnknownTagError,
} from '../../../src/formats/lct/codecs.js'
import {DTYPE_ITEM_SIZES} from '../../../src/formats/lct/dtypes.js'
import {decodeBody, MsgpackWriter, type RawMap} from '../../../src/formats/lct/msgpack.js'
import {openTrace} from '../../../src/formats/lct/reader.js'
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
} from '../../../src/formats/lct/values.js'
import {encodeRecordBody, frame} from '../../../src/formats/lct/writer.js'
import {fixture, LCT} from './helpers.js'

const raw = (o: Record<string, unknown>): RawMap => Object.assign(Object.create(null), o)
/** encode → msgpack bytes → generic decode → codec decode, as capture then replay do */
function viaWire(v: unknown): unknown {
  const w = new MsgpackWriter()
  w.value(encodeValue(v))
  return decodeValue(decodeBody(w.bytes()))
}
const key = (hash: number[], salt?: string) => new ObjectKey(Uint8Array.from(hash), 'test', 0, 0, salt)

describe('codecs', () => {
  it('decodes every tag of v2_all_codec_shapes and re-encodes the record to identical bytes', async () => {
    const r = await openTrace(join(LCT, 'v2_all_codec_shapes.lct'))
    const [rec] = await (async () => {
      const out = []
      for await (const x of r) out.push(x)
      return out
    })()
    const a = decodeArgs(rec.args)
    expect(a.tuple).toEqual(new PyTuple([1, 'x', null]))
    expect(a.size).toEqual(new TorchSize([2, 3]))
    expect(a.dtype).toEqual(new TorchDtype('torch.bfloat16'))
    expect(a.set).toEqual(new PySet([1]))
    expect(a.policy).toBe(TrimPolicy.PREFIX)
    expect(a.mode).toBe(PrefetchMode.LOOKUP)
    expect(a.attn).toEqual(new AttnWindowDesc([-1], 1))
    expect(a.handle).toBeInstanceOf(PrefetchHandle)
    expect((a.handle as PrefetchHandle).l1FoundIndices).toEqual([0, 1])
    const bytes = fixture('v2_all_codec_shapes.lct')
    const body = frame(encodeRecordBody({...rec, args: encodeArgs(a)}))
    expect(body.equals(bytes.subarray(rec.offset, rec.offset + 4 + rec.length))).toBe(true)
  })

  it('round-trips ObjectKey, layouts and prefetch specs; l1_prefix_hit_count is recomputed', () => {
    const layout = new MemoryLayoutDesc([[2, 16, 8], [4]], ['torch.bfloat16', 'torch.float32'])
    expect(layout.rawSizeBytes()).toBe(2 * 16 * 8 * 2 + 4 * 4)
    const spec = new PrefetchRequestSpec(
      [key([1, 2])],
      new Map([
        [10, layout],
        [2, layout],
      ]),
      2,
      TrimPolicy.SPARSE,
      new AttnWindowDesc([4, -1], 2),
      PrefetchMode.WARM,
      3,
    )
    const back = viaWire(spec) as PrefetchRequestSpec
    expect([...back.groupLayoutDescs.keys()]).toEqual([2, 10])
    expect(back.keys[0].id).toBe(key([1, 2]).id)
    expect(back).toMatchObject({
      numKvReaders: 2,
      policy: TrimPolicy.SPARSE,
      mode: PrefetchMode.WARM,
      generation: 3,
    })
    const handle = new PrefetchHandle(7, 'r', [0, 1, 2], 3, 10, 1.5)
    const wire = encodeValue(handle) as {v: Record<string, unknown>}
    expect(wire.v.l1_prefix_hit_count).toBe(3)
    expect(Object.keys(wire.v)).toEqual([
      'prefetch_request_id',
      'external_request_id',
      'l1_prefix_hit_count',
      'l1_found_indices',
      'l1_hit_chunks',
      'total_requested_keys',
      'submit_time',
      'l2_orig_indices',
      'generation',
    ])
  })

  it('older payloads decode with defaults', () => {
    const k3 = decodeValue(
      raw({__t__: 'ObjectKey', v: raw({chunk_hash: Uint8Array.from([0]), model_name: 'm', kv_rank: 1})}),
    ) as ObjectKey
    expect([k3.objectGroupId, k3.cacheSalt]).toEqual([0, ''])
    const layout = raw({__t__: 'MemoryLayoutDesc', v: raw({shapes: [[1]], dtypes: ['torch.uint8']})})
    const old = decodeValue(
      raw({
        __t__: 'PrefetchRequestSpec',
        v: raw({
          keys: [],
          layout_desc: layout,
          extra_count: 2,
          policy: raw({__t__: 'TrimPolicy', v: 'PREFIX'}),
          attn_desc: raw({__t__: 'AttnWindowDesc', v: [-1]}),
          mode: raw({__t__: 'PrefetchMode', v: 'LOOKUP'}),
        }),
      }),
    ) as PrefetchRequestSpec
    expect(old.numKvReaders).toBe(3)
    expect([...old.groupLayoutDescs.keys()]).toEqual([0])
  })

  it('identity: salt is part of it; schema-1 keys equal salt ""', () => {
    expect(key([0, 0, 0, 0]).id).toBe('00000000:0:0:4:test:')
    expect(key([0xab, 0x0f, 0xff]).id).toBe('ab0fff:0:0:4:test:') // lowercase, two digits per byte
    expect(key([1]).id).not.toBe(key([1], 's').id)
    const s1 = decodeValue(
      raw({
        __t__: 'ObjectKey',
        v: raw({chunk_hash: Uint8Array.from([1]), model_name: 'test', kv_rank: 0, object_group_id: 0}),
      }),
    ) as ObjectKey
    expect(s1.id).toBe(key([1]).id)
  })

  it('validates ObjectKey payloads like LMCache', () => {
    const bad = (v: Record<string, unknown>) => () =>
      decodeValue(
        raw({
          __t__: 'ObjectKey',
          v: raw({chunk_hash: Uint8Array.from([1]), model_name: 'm', kv_rank: 0, ...v}),
        }),
      )
    expect(bad({model_name: 'a@b'})).toThrow(CodecError)
    expect(bad({object_group_id: -1})).toThrow(CodecError)
    expect(bad({cache_salt: 'a/b'})).toThrow(CodecError)
    expect(bad({cache_salt: 'x'.repeat(129)})).toThrow(CodecError)
    expect(bad({chunk_hash: 'str'})).toThrow(CodecError)
  })

  it('unknown tags, missing payloads and unencodable values are CodecErrors with the spec messages', () => {
    expect(() => decodeValue(raw({__t__: 'PrefetchTaskSpec', v: 1}))).toThrow(
      new UnknownTagError('PrefetchTaskSpec'),
    )
    expect(() => decodeValue(raw({__t__: 'PrefetchTaskSpec', v: 1}))).toThrow(
      "trace.codecs: unknown tag 'PrefetchTaskSpec'",
    )
    expect(() => decodeValue(raw({__t__: 'TrimPolicy'}))).toThrow(CodecError)
    expect(() => encodeValue(new Map([['a', 1]]))).toThrow(
      "trace.codecs: no codec registered for type 'Map' (value=Map(1)). Register one via registerCodec() or extend the default registry.",
    )
    expect(() => encodeValue(undefined)).toThrow(/no codec registered for type 'undefined'/)
    expect(
      () =>
        encodeValue(new MemoryLayoutDesc([[1]], ['torch.nope'])) &&
        decodeValue(encodeValue(new MemoryLayoutDesc([[1]], ['torch.nope'])) as never),
    ).toThrow("trace.codecs: unknown torch dtype 'torch.nope'")
  })

  it('looks codecs up by exact constructor; registration conflicts are errors', () => {
    class MyTuple extends PyTuple {}
    expect((encodeValue(new MyTuple([1])) as Record<string, unknown>).__t__).toBe('tuple')
    class Special extends PyTuple {}
    registerCodec(Special, {
      tag: 'test.Special',
      encode: (s) => [...s.items],
      decode: (p) => new Special(p as unknown[]),
    })
    expect((encodeValue(new Special([1])) as Record<string, unknown>).__t__).toBe('test.Special')
    expect(viaWire(new Special([2]))).toBeInstanceOf(Special)
    expect(() =>
      registerCodec(Special, {tag: 'other', encode: () => 0, decode: () => new Special([])}),
    ).toThrow("codec already registered for type 'Special'")
    class Other {}
    expect(() =>
      registerCodec(Other, {tag: 'ObjectKey', encode: () => 0, decode: () => new Other()}),
    ).toThrow("codec tag 'ObjectKey' already in use")
    expect(() => registerCodec(Other, {tag: 'tuple', encode: () => 0, decode: () => new Other()})).toThrow(
      CodecError,
    )
  })

  it('sets collapse duplicate primitives and keys; dtype table sizes', () => {
    const s = decodeValue(
      raw({__t__: 'set', v: [1, 1, 'a', 'a', encodeValue(key([1])), encodeValue(key([1]))] as never}),
    ) as PySet
    expect(s.items).toHaveLength(3)
    expect(DTYPE_ITEM_SIZES.get('torch.bfloat16')).toBe(2)
    expect(DTYPE_ITEM_SIZES.get('torch.complex128')).toBe(16)
    expect(DTYPE_ITEM_SIZES.get('torch.float8_e4m3fn')).toBe(1)
    expect(DTYPE_ITEM_SIZES.get('torch.uint3')).toBe(1)
    expect(DTYPE_ITEM_SIZES.get('torch.half')).toBeUndefined()
  })
})
