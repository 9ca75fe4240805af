import {decode as independentDecode} from '@msgpack/msgpack'
import {describe, expect, it} from 'vitest'
import {JsonFloat} from '../../../src/formats/json/json-float.js'
import {decodeBody, MsgpackEncodeError, MsgpackWriter} from '../../../src/formats/lct/msgpack.js'
import {openTrace} from '../../../src/formats/lct/reader.js'
import {encodeHeaderBody, encodeRecordBody, frame} from '../../../src/formats/lct/writer.js'
import {fixture, LCT} from './helpers.js'
import {join} from 'node:path'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
function enc(f: (w: MsgpackWriter) => void): string {
  const w = new MsgpackWriter()
  f(w)
  return hex(w.bytes())
}

describe('writer byte identity with LMCache', () => {
  it.each([
    'v1_header_only_placeholder',
    'v1_reserve_finish',
    'v2_full_prefetch_cycle',
    'events_level_meta_INFERRED',
    'v2_all_codec_shapes',
  ])('%s re-encodes to the same bytes, frame by frame', async (name) => {
    const bytes = fixture(`${name}.lct`)
    const r = await openTrace(join(LCT, `${name}.lct`))
    const frames = [frame(encodeHeaderBody(r.header))]
    for await (const rec of r) frames.push(frame(encodeRecordBody(rec)))
    expect(Buffer.concat(frames).equals(bytes)).toBe(true)
  })

  it('the annotated placeholder header of §3', () => {
    const body = encodeHeaderBody({
      magic: Uint8Array.from([0x4c, 0x4d, 0x43, 0x54]),
      formatVersion: 1,
      level: 'storage',
      traceSchemaVersion: 1,
      tMonoStart: 12345.678,
      tWallStart: 1750000000.125,
      smConfigJson: '',
      smConfigDigest: '',
      levelMeta: Object.create(null),
    })
    expect(frame(body).equals(fixture('v1_header_only_placeholder.lct'))).toBe(true)
  })
})

describe('msgpack format boundaries (§3)', () => {
  it.each<[string, number, string]>([
    ['31-byte str', 31, 'bf'],
    ['32-byte str', 32, 'd920'],
    ['255-byte str', 255, 'd9ff'],
    ['256-byte str', 256, 'da0100'],
    ['65536-byte str', 65536, 'db00010000'],
  ])('%s', (_n, len, head) => {
    expect(enc((w) => w.str('x'.repeat(len))).slice(0, head.length)).toBe(head)
  })

  it.each<[number | bigint, string]>([
    [0, '00'],
    [127, '7f'],
    [128, 'cc80'],
    [255, 'ccff'],
    [256, 'cd0100'],
    [65535, 'cdffff'],
    [65536, 'ce00010000'],
    [2 ** 32 - 1, 'ceffffffff'],
    [2 ** 32, 'cf0000000100000000'],
    [-1, 'ff'],
    [-32, 'e0'],
    [-33, 'd0df'],
    [-128, 'd080'],
    [-129, 'd1ff7f'],
    [-32768, 'd18000'],
    [-32769, 'd2ffff7fff'],
    [-(2 ** 31), 'd280000000'],
    [-(2 ** 31) - 1, 'd3ffffffff7fffffff'],
    [2n ** 64n - 1n, 'cfffffffffffffffff'],
    [-(2n ** 63n), 'd38000000000000000'],
  ])('int %s → %s', (v, bytes) => {
    expect(enc((w) => w.int(v))).toBe(bytes)
  })

  it('rejects integers outside −2^63 … 2^64 − 1', () => {
    expect(() => enc((w) => w.int(2n ** 64n))).toThrow(MsgpackEncodeError)
    expect(() => enc((w) => w.int(-(2n ** 63n) - 1n))).toThrow(MsgpackEncodeError)
  })

  it('floats are always float64; numbers that are not safe integers become floats', () => {
    expect(enc((w) => w.float64(0))).toBe('cb0000000000000000')
    expect(enc((w) => w.float64(NaN))).toBe('cb7ff8000000000000')
    expect(enc((w) => w.value(new JsonFloat(2)))).toBe('cb4000000000000000')
    expect(enc((w) => w.value(2.5))).toBe('cb4004000000000000')
    expect(enc((w) => w.value(2 ** 60))).toBe('cb43b0000000000000')
  })

  it('containers: fix, 16 and 32 forms; bytes as bin; ordered maps', () => {
    expect(enc((w) => w.arrayHeader(15))).toBe('9f')
    expect(enc((w) => w.arrayHeader(16))).toBe('dc0010')
    expect(enc((w) => w.mapHeader(15))).toBe('8f')
    expect(enc((w) => w.mapHeader(16))).toBe('de0010')
    expect(enc((w) => w.mapHeader(65536))).toBe('df00010000')
    expect(enc((w) => w.value(Uint8Array.from([1, 2])))).toBe('c4020102')
    expect(
      enc((w) =>
        w.value(
          new Map([
            ['2', 1],
            ['1', 2],
          ]),
        ),
      ),
    ).toBe('82a13201a13102')
    expect(enc((w) => w.value([null, true, false]))).toBe('93c0c3c2')
  })

  it('round-trips random values through an independent decoder', () => {
    let seed = 11
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647
    const gen = (depth: number): unknown => {
      const r = rand()
      if (depth > 3 || r < 0.3) return Math.floor((rand() - 0.5) * 2 ** (1 + Math.floor(rand() * 52)))
      if (r < 0.45) return 'é'.repeat(Math.floor(rand() * 40)) + 'x'.repeat(Math.floor(rand() * 300))
      if (r < 0.55) return rand() * 1e6 + 0.5
      if (r < 0.65) return Uint8Array.from({length: Math.floor(rand() * 300)}, () => Math.floor(rand() * 256))
      if (r < 0.8) return Array.from({length: Math.floor(rand() * 20)}, () => gen(depth + 1))
      const o: Record<string, unknown> = {}
      for (let i = 0; i < Math.floor(rand() * 20); i++) o[`k${i}`] = gen(depth + 1)
      return o
    }
    for (let i = 0; i < 300; i++) {
      const v = gen(0)
      const w = new MsgpackWriter()
      w.value(v)
      const ours = decodeBody(w.bytes())
      const theirs = independentDecode(w.bytes(), {useBigInt64: false})
      expect(JSON.stringify(ours, (_k, x) => (x instanceof Uint8Array ? hex(x) : x))).toBe(
        JSON.stringify(theirs, (_k, x) => (x instanceof Uint8Array ? hex(x) : x)),
      )
    }
  })
})
