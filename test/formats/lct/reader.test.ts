import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {LctError} from '../../../src/errors.js'
import {decodeBody} from '../../../src/formats/lct/msgpack.js'
import {readable} from '../../../src/formats/lct/readable.js'
import {countTrace, openTrace} from '../../../src/formats/lct/reader.js'
import type {LctWarning} from '../../../src/formats/lct/types.js'
import {
  decodedFixture,
  fixture,
  FIXTURE_NAMES,
  header,
  headerEntries,
  LCT,
  mapFrame,
  record,
  recordEntries,
} from './helpers.js'
import {join} from 'node:path'

const src = (b: Buffer) => Readable.from([b])

async function readAll(bytes: Buffer, maxFrameBytes?: number) {
  const warnings: LctWarning[] = []
  const r = await openTrace(src(bytes), {maxFrameBytes, onWarning: (w) => warnings.push(w)})
  const records = []
  for await (const rec of r) records.push(rec)
  return {reader: r, records, warnings}
}

async function headerError(bytes: Buffer): Promise<LctError> {
  try {
    await openTrace(src(bytes), {name: 'x.lct'})
  } catch (err) {
    expect(err).toBeInstanceOf(LctError)
    return err as LctError
  }
  throw new Error('expected an error')
}

describe('reading the fixtures', () => {
  const readableFixtures = FIXTURE_NAMES.filter((n) => n !== 'bad_magic' && !n.startsWith('v0_'))

  it.each(readableFixtures)(
    '%s: every frame equals the decoded.json value, offsets and lengths',
    async (name) => {
      const expected = decodedFixture(name)
      const r = await openTrace(join(LCT, `${name}.lct`))
      expect(r.headerLength).toBe(expected.frames[0].length)
      expect(readable(decodeBody(r.headerBody))).toEqual(expected.frames[0].value)
      const frames = []
      for await (const f of r.frames()) frames.push(f)
      expect(
        frames.map((f) => ({
          offset: f.offset,
          length: f.length,
          value: readable(decodeBody(f.body as Uint8Array)),
        })),
      ).toEqual(expected.frames.slice(1))
      expect(r.state.truncated ? r.state.warnings[0].message : 'clean EOF').toBe(expected.end)
    },
  )

  it('headers and counts of §4.8', async () => {
    const info = async (name: string) => {
      const r = await openTrace(join(LCT, `${name}.lct`))
      let n = 0
      for await (const _ of r) n++
      return {h: r.header, n, state: r.state}
    }
    const p = await info('v1_header_only_placeholder')
    expect(p).toMatchObject({n: 0, h: {traceSchemaVersion: 1, level: 'storage', isPlaceholder: true}})
    const v1 = await info('v1_reserve_finish')
    expect(v1.n).toBe(2)
    expect(v1.h.smConfigDigest).toBe('6bddebcb6e17a2fd0b9b5ac9aa8984f6d2e17e3914b2274ec67ba18d084e19e5')
    expect((await info('v2_full_prefetch_cycle')).n).toBe(6)
    const t = await info('v2_truncated_tail')
    expect(t.n).toBe(5)
    expect(t.state.truncated).toBe(true)
    expect(t.state.warnings).toEqual([
      {
        code: 'LMT_LCT_TRUNCATED_BODY',
        offset: 2940,
        message: 'truncated frame body at offset 2940 (got 427 of 430)',
      },
    ])
    const e = await info('events_level_meta_INFERRED')
    expect(e.h.level).toBe('events')
    expect(Object.keys(e.h.levelMeta).sort()).toEqual([
      'cache_event_schema_version',
      'instance_id',
      'lmcache_version',
    ])
    expect(e.h.levelMeta.instance_id).toBe('node-a')
    expect(e.n).toBe(2)
    expect((await info('v2_all_codec_shapes')).n).toBe(1)
  })

  it('refuses bad magic and first-generation headers with coded errors', async () => {
    const path = join(LCT, 'bad_magic.lct')
    await expect(openTrace(path)).rejects.toMatchObject({
      code: 'LMT_LCT_BAD_MAGIC',
      offset: 0,
      message: `trace file '${path}': bad magic (got b'WRNG', expected b'LMCT')`,
    })
    await expect(openTrace(join(LCT, 'v0_pr1_lmcache_version_header.lct'))).rejects.toMatchObject({
      code: 'LMT_LCT_G0_HEADER',
      message: expect.stringContaining("header field lmcache_version '0.3.99', no trace_schema_version"),
    })
    await expect(openTrace(join(LCT, 'missing.lct'))).rejects.toMatchObject({code: 'LMT_LCT_IO'})
  })
})

describe('header validation (§4.3)', () => {
  it.each<[string, Buffer, string, string, number]>([
    [
      'empty',
      Buffer.alloc(0),
      'LMT_LCT_EMPTY',
      'unexpected EOF reading frame length at offset 0 (the file is empty)',
      0,
    ],
    ['1 byte', Buffer.from([0]), 'LMT_LCT_TRUNCATED', 'truncated frame length prefix at offset 0', 0],
    ['3 bytes', Buffer.from([0, 0, 0]), 'LMT_LCT_TRUNCATED', 'truncated frame length prefix at offset 0', 0],
    [
      'huge prefix',
      Buffer.from([0xff, 0xff, 0xff, 0xff, 1]),
      'LMT_LCT_FRAME_TOO_LARGE',
      'header frame at offset 0 declares 4294967295 bytes, above the frame limit of 67108864 bytes (see --max-frame-bytes)',
      0,
    ],
    [
      'short body',
      Buffer.from([0, 0, 0, 10, 0x80]),
      'LMT_LCT_TRUNCATED',
      'truncated frame body at offset 4 (got 1 of 10)',
      4,
    ],
    [
      'not msgpack',
      Buffer.from([0, 0, 0, 1, 0xc1]),
      'LMT_LCT_MALFORMED_HEADER',
      'malformed header at offset 0: not valid msgpack (invalid type byte 0xc1 at byte 0)',
      0,
    ],
    [
      'trailing',
      Buffer.from([0, 0, 0, 2, 0x80, 0x80]),
      'LMT_LCT_MALFORMED_HEADER',
      'malformed header at offset 0: not valid msgpack (trailing bytes at byte 1)',
      0,
    ],
    [
      'array',
      Buffer.from([0, 0, 0, 2, 0x91, 0x01]),
      'LMT_LCT_MALFORMED_HEADER',
      'malformed header at offset 0: expected a map, got array',
      0,
    ],
    [
      'type record',
      header({type: 'record'}),
      'LMT_LCT_MALFORMED_HEADER',
      "malformed header at offset 0: field 'type' is 'record', expected 'header'",
      0,
    ],
    [
      'missing level',
      header({}, ['level']),
      'LMT_LCT_MALFORMED_HEADER',
      "malformed header at offset 0: missing required field 'level'",
      0,
    ],
    [
      'float format',
      header({format_version: 1.5}),
      'LMT_LCT_MALFORMED_HEADER',
      "malformed header at offset 0: field 'format_version' must be int, got float",
      0,
    ],
    [
      'str magic',
      header({magic: 'LMCT'}),
      'LMT_LCT_MALFORMED_HEADER',
      "malformed header at offset 0: field 'magic' must be bin, got str",
      0,
    ],
    [
      'bad magic',
      header({magic: Uint8Array.from([0, 0xff])}),
      'LMT_LCT_BAD_MAGIC',
      "bad magic (got b'\\x00\\xff', expected b'LMCT')",
      0,
    ],
    [
      'format 2',
      header({format_version: 2}),
      'LMT_LCT_UNSUPPORTED_FORMAT',
      'unsupported format_version 2 (this build expects 1)',
      0,
    ],
    [
      'schema 3',
      header({trace_schema_version: 3}),
      'LMT_LCT_UNSUPPORTED_SCHEMA',
      'unsupported trace_schema_version 3 (this build supports 1, 2)',
      0,
    ],
    [
      'G0',
      header({lmcache_version: '0.3.1'}, ['trace_schema_version']),
      'LMT_LCT_G0_HEADER',
      "this trace was written by the first LMCache trace recorder (header field lmcache_version '0.3.1', no trace_schema_version); that format is not supported — record the trace again with a current LMCache",
      0,
    ],
  ])('%s', async (_name, bytes, code, detail, offset) => {
    const err = await headerError(bytes)
    expect(err.code).toBe(code)
    expect(err.message).toBe(`trace file 'x.lct': ${detail}`)
    expect(err.offset).toBe(offset)
  })

  it('a header whose format_version is 1.0 is rejected (float), unknown keys ignored, last repeated key wins', async () => {
    const f = mapFrame([
      ...Object.entries({type: 'header'}),
      ['magic', Uint8Array.from([0x4c, 0x4d, 0x43, 0x54])],
      ['format_version', 1],
      ['level', 'x'],
      ['level', 'storage'],
      ['trace_schema_version', 2],
      ['t_mono_start', 0],
      ['t_wall_start', 0],
      ['sm_config_json', ''],
      ['sm_config_digest', ''],
      ['future', [1, {a: null}]],
    ])
    const r = await openTrace(src(f))
    expect(r.header.level).toBe('storage')
    expect(r.header.tMonoStart).toBe(0)
    const w = mapFrame(headerEntries({format_version: 1}), ['t_mono_start', 't_wall_start', 'format_version'])
    expect((await headerError(w)).message).toContain("field 'format_version' must be int, got float")
  })
})

describe('lenient records (§4.4)', () => {
  it('a malformed record in the middle is skipped and reading continues', async () => {
    const bad = Buffer.from([0, 0, 0, 2, 0x91, 0x01])
    const {records, warnings, reader} = await readAll(
      Buffer.concat([header(), record('a'), bad, record('b')]),
    )
    expect(records.map((r) => r.qualname)).toEqual(['a', 'b'])
    expect(records.map((r) => r.index)).toEqual([0, 1])
    expect(warnings).toHaveLength(1)
    expect(warnings[0].code).toBe('LMT_LCT_MALFORMED_RECORD')
    expect(warnings[0].message).toMatch(
      /^skipping malformed record at offset \d+ \(frame length 2\): expected a map, got array$/,
    )
    expect(reader.state.framesSkipped).toBe(1)
  })

  it.each<[string, Buffer, string]>([
    [
      'missing args',
      mapFrame(
        recordEntries().filter(([k]) => k !== 'args'),
        ['t_mono', 't_wall'],
      ),
      "missing required field 'args'",
    ],
    [
      'str t_mono',
      mapFrame(
        recordEntries().map(([k, v]) => [k, k === 't_mono' ? 'x' : v]),
        ['t_wall'],
      ),
      "field 't_mono' must be int or float, got str",
    ],
    [
      'int qualname',
      mapFrame(
        recordEntries().map(([k, v]) => [k, k === 'qualname' ? 5 : v]),
        ['t_mono', 't_wall'],
      ),
      "field 'qualname' must be str, got int",
    ],
    [
      'array args',
      mapFrame(
        recordEntries().map(([k, v]) => [k, k === 'args' ? [1] : v]),
        ['t_mono', 't_wall'],
      ),
      "field 'args' must be map, got array",
    ],
    [
      'type header',
      mapFrame(
        recordEntries().map(([k, v]) => [k, k === 'type' ? 'header' : v]),
        ['t_mono', 't_wall'],
      ),
      "field 'type' is 'header', expected 'record'",
    ],
  ])('detail for %s', async (_name, bad, detail) => {
    const {records, warnings} = await readAll(Buffer.concat([header(), bad]))
    expect(records).toHaveLength(0)
    expect(warnings[0].message.endsWith(`: ${detail}`)).toBe(true)
  })

  it('top-level args keys must be str; nested int keys become decimal strings; ext and bin keys are malformed', async () => {
    // hand-built bodies: {"type":"record","t_mono":0.0,"t_wall":0.0,"qualname":"q","args":{1:2}}
    const rec = (argsBytes: number[]) => {
      const head = [
        0x85,
        0xa4,
        ...Buffer.from('type'),
        0xa6,
        ...Buffer.from('record'),
        0xa6,
        ...Buffer.from('t_mono'),
        0xcb,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0xa6,
        ...Buffer.from('t_wall'),
        0xcb,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0xa8,
        ...Buffer.from('qualname'),
        0xa1,
        0x71,
        0xa4,
        ...Buffer.from('args'),
      ]
      const body = Buffer.from([...head, ...argsBytes])
      const f = Buffer.alloc(4)
      f.writeUInt32BE(body.length)
      return Buffer.concat([f, body])
    }
    const {records, warnings} = await readAll(
      Buffer.concat([
        header(),
        rec([0x81, 0x01, 0x02]),
        rec([0x81, 0xa1, 0x61, 0x81, 0x07, 0x08]),
        rec([0x81, 0xc4, 0x01, 0x00, 0x02]),
        rec([0x81, 0xa1, 0x61, 0xd4, 0x01, 0x00]),
        rec([0x81, 0xa1, 0x61, 0xc0]),
      ]),
    )
    expect(warnings.map((w) => w.message.split(': ').slice(-1)[0])).toEqual([
      'args key must be str, got int',
      'not valid msgpack (unsupported map key type bin at byte 62)',
      'not valid msgpack (unsupported ext type at byte 64)',
    ])
    expect(records.map((r) => r.args)).toEqual([
      Object.assign(Object.create(null), {a: Object.assign(Object.create(null), {'7': 8})}),
      Object.assign(Object.create(null), {a: null}),
    ])
  })

  it('a record without type, with int t_mono and unknown keys is read', async () => {
    const f = mapFrame([
      ['t_mono', 3],
      ['t_wall', 4],
      ['qualname', 'q'],
      ['args', {}],
      ['extra', [1, 2]],
    ])
    const {records} = await readAll(Buffer.concat([header(), f]))
    expect(records[0]).toMatchObject({tMono: 3, tWall: 4, qualname: 'q'})
  })

  it('skips an oversized record frame without buffering it, then reads the next', async () => {
    const big = record('big', {blob: new Uint8Array(2000)})
    const {records, warnings, reader} = await readAll(Buffer.concat([header(), big, record('after')]), 1024)
    expect(records.map((r) => r.qualname)).toEqual(['after'])
    expect(warnings[0].code).toBe('LMT_LCT_OVERSIZED_FRAME')
    expect(warnings[0].message).toMatch(
      /^skipping oversized frame at offset \d+: declares \d+ bytes, above the frame limit of 1024 bytes$/,
    )
    expect(reader.state.framesSkipped).toBe(1)
  })

  it('truncation at every byte of a fixture yields the predictable records and one warning', async () => {
    const bytes = fixture('v2_full_prefetch_cycle.lct')
    const expected = decodedFixture('v2_full_prefetch_cycle')
    const headerEnd = 4 + expected.frames[0].length
    for (let cut = headerEnd; cut < bytes.length; cut++) {
      const {records, warnings, reader} = await readAll(bytes.subarray(0, cut))
      const complete = expected.frames.slice(1).filter((f) => f.offset + 4 + f.length <= cut).length
      expect(records.length).toBe(complete)
      const atBoundary = expected.frames.some((f) => f.offset === cut)
      expect(warnings.length).toBe(atBoundary ? 0 : 1)
      expect(reader.state.truncated).toBe(!atBoundary)
      const c = await countTrace(src(bytes.subarray(0, cut)))
      expect(c.totalRecords).toBe(complete)
      expect(c.warnings).toEqual(warnings)
    }
  })

  it('keeps "__proto__" and "constructor" keys as own properties without polluting prototypes', async () => {
    const args = new Map<string, unknown>([
      ['__proto__', new Map([['polluted', true]])],
      ['constructor', 1],
    ])
    const {records} = await readAll(Buffer.concat([header(), record('q', args)]))
    const a = records[0].args
    expect(Object.keys(a)).toEqual(['__proto__', 'constructor'])
    expect(Object.getPrototypeOf(a)).toBeNull()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((a.__proto__ as Record<string, unknown>).polluted).toBe(true)
  })

  it('decoded bytes never alias the read window (records collected across many refills keep their values)', async () => {
    const frames = [header()]
    for (let i = 0; i < 3000; i++)
      frames.push(record('q', {blob: Uint8Array.from({length: 600}, (_, j) => (i + j) & 0xff)}))
    const bytes = Buffer.concat(frames)
    const chunks: Buffer[] = []
    for (let i = 0; i < bytes.length; i += 777) chunks.push(bytes.subarray(i, i + 777))
    const r = await openTrace(Readable.from(chunks))
    const all = []
    for await (const rec of r) all.push(rec)
    expect(all).toHaveLength(3000)
    all.forEach((rec, i) => expect((rec.args.blob as Uint8Array)[0]).toBe(i & 0xff))
    const {writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const p = join(tmpdir(), `lmt-alias-${process.pid}.lct`)
    writeFileSync(p, bytes) // a file read with the 1 MiB window: records span several refills
    const f = await openTrace(p)
    let i = 0
    for await (const rec of f) expect((rec.args.blob as Uint8Array)[0]).toBe(i++ & 0xff)
    expect(i).toBe(3000)
    const c = await countTrace(p) // the counting path over the read-ahead file window
    expect(c.totalRecords).toBe(3000)
    expect(c.bytesRead).toBe(bytes.length)
    const {rmSync} = await import('node:fs')
    rmSync(p, {force: true})
  })

  it('counts records per qualname exactly with more names than the name cache holds', async () => {
    const frames = [header()]
    const expected = new Map<string, number>()
    for (let i = 0; i < 2000; i++) {
      const q = `pkg.op_${(i * 7919) % 45}${i % 3 === 0 ? '_é' : ''}`
      expected.set(q, (expected.get(q) ?? 0) + 1)
      frames.push(record(q, {i}, i / 10))
    }
    const c = await countTrace(src(Buffer.concat(frames)))
    expect(c.totalRecords).toBe(2000)
    expect(new Map([...c.byQualname].sort())).toEqual(new Map([...expected].sort()))
    expect(c.maxTMono).toBe(199.9)
  })

  it('batches() yields the same records with fewer awaits; a reader iterates once', async () => {
    const frames = [header(), ...Array.from({length: 50}, (_, i) => record(`q${i}`))]
    const r = await openTrace(src(Buffer.concat(frames)))
    const seen: string[] = []
    let batches = 0
    for await (const b of r.batches()) {
      batches++
      seen.push(...b.map((x) => x.qualname))
    }
    expect(seen).toHaveLength(50)
    expect(batches).toBeLessThan(5)
    await expect(async () => {
      for await (const _ of r.records()) void _
    }).rejects.toThrow()
  })
})
