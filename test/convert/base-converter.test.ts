import {describe, expect, it} from 'vitest'
import {BaseConverter} from '../../src/convert/base-converter.js'
import {KeyList} from '../../src/hash/key-list.js'
import {LineArena} from '../../src/convert/fast/line-arena.js'
import {encodeRecordInto, encodeRecordLine} from '../../src/convert/fast/record-encoder.js'
import {BufferedWriter} from '../../src/convert/run-files.js'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {serializeJson} from '../../src/formats/json/serialize.js'

describe('BaseConverter', () => {
  it('allocates the smallest free timestamp per instance, shared by gets and writes', () => {
    const c = new BaseConverter({defaultInstanceId: 'i'})
    expect(c.allocateTimestamp('i', 10n)).toBe(10n)
    expect(c.allocateTimestamp('i', 10n)).toBe(11n)
    expect(c.allocateTimestamp('i', 11n)).toBe(12n)
    expect(c.allocateTimestamp('j', 10n)).toBe(10n)
    expect(c.allocateTimestamp('i', 9)).toBe(9n)
    expect(c.allocateTimestamp('i', -5n)).toBe(-5n)
  })

  it('gives two requests at T: get T, write T+1, get T+2, write T+3 (spec §6 collision example)', () => {
    const c = new BaseConverter()
    const t = 61114000000n
    const a = c.createGetTrace(t, [1n], undefined, {inputLen: 16})
    const aw = c.createWriteTrace(t + 1n, a.keys)
    const b = c.createGetTrace(t, [1n], undefined, {inputLen: 16})
    const bw = c.createWriteTrace(t + 1n, b.keys)
    expect([a, aw, b, bw].map((r) => r.timestamp_ns)).toEqual([t, t + 1n, t + 2n, t + 3n])
    expect(b.trace_id).toBe('trace_instance_61114000002')
  })

  it('builds get records with the original defaults, truncation and pass-through values', () => {
    const c = new BaseConverter({defaultInstanceId: 'my_instance', instanceBlockSizes: {big: 32}})
    const get = c.createGetTrace(1704110400000000000n, [1n, 2n, 3n], undefined, {inputLen: 48})
    expect(serializeJson(get)).toBe(
      '{"type": "get", "instance_id": "my_instance", "trace_id": "trace_my_instance_1704110400000000000", "timestamp_ns": 1704110400000000000, "keys": [1, 2, 3], "input_len": 48, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}',
    )
    const cut = c.createGetTrace(0n, [1, 2, 3], 'big', {
      inputLen: 70n,
      blockMask: [true, false, true],
      swSize: null,
      queryType: {a: 1},
    })
    expect(cut.keys).toEqual([1, 2])
    expect(cut.block_mask).toEqual([true, false])
    expect(cut.sw_size).toBeNull()
    expect(c.getBlockSize('big')).toBe(32)
    expect(c.getBlockSize('other')).toBe(16)
    const intMask = c.createGetTrace(0n, [1], 'x', {inputLen: 15.9, blockMask: 1})
    expect(intMask.keys).toEqual([])
    expect(intMask.input_len).toBe(15)
    expect(intMask.block_mask).toBe(1)
  })

  it('a rejected get still uses up its timestamp', () => {
    const c = new BaseConverter()
    expect(() => c.createGetTrace(5n, [], undefined, {inputLen: 0})).toThrow(
      'optimizer get trace input_len must be positive',
    )
    expect(() => c.createGetTrace(5n, [], undefined, {inputLen: undefined})).toThrow(
      'optimizer get trace requires input_len',
    )
    expect(c.allocateTimestamp('instance', 5n)).toBe(7n)
  })

  it('writes keep every key; block size must be positive', () => {
    const c = new BaseConverter({instanceBlockSizes: new Map([['z', 0]])})
    expect(c.createWriteTrace(1n, [1, 2, 3, 4]).keys).toEqual([1, 2, 3, 4])
    expect(() => c.truncateKeysToFullBlocks([1], 16n, 'z')).toThrow(
      'block_size must be positive for instance z',
    )
  })

  it('records are frozen and the byte encoder equals the generic serializer', () => {
    const c = new BaseConverter({defaultInstanceId: 'é"\\\u0001'})
    const get = c.createGetTrace(1n, KeyList.prefixHash([1, 2, 3]), undefined, {
      inputLen: 99999999999999999999n,
      blockMask: [1, 2, 3, 4],
      locationSpecNames: ['loc', null],
      queryType: 'x',
      swSize: -1,
    })
    expect(Object.isFrozen(get)).toBe(true)
    const write = c.createWriteTrace(2n, get.keys)
    const arena = new LineArena(64) // small slabs: lines must survive a slab change mid-line
    for (const r of [get, write, c.createGetTrace(3n, [], undefined, {inputLen: 1})]) {
      const l = encodeRecordLine(r, arena)
      expect(l.slab.toString('utf8', l.start, l.end)).toBe(serializeJson(r) + '\n')
    }
  })

  it('the usual records (KeyList keys, default tail) encode in one go like the serializer, for any timestamp', () => {
    const c = new BaseConverter({defaultInstanceId: 'inst_日本'})
    const keys = KeyList.prefixHash(Array.from({length: 300}, (_, i) => i))
    const arena = new LineArena(700) // smaller than a line: the slab grows mid-line
    for (const ts of [0n, -5n, 1700000000017999872n, 10n ** 30n, -(10n ** 25n)]) {
      const get = c.createGetTrace(ts, keys, undefined, {inputLen: 16 * 300})
      const write = c.createWriteTrace(ts + 1n, keys)
      // the record's own fields only: nothing the encoder keeps shows in keys, spreads or JSON
      expect(Object.keys(get)).toEqual([
        'type',
        'instance_id',
        'trace_id',
        'timestamp_ns',
        'keys',
        'input_len',
        'query_type',
        'block_mask',
        'sw_size',
        'location_spec_names',
      ])
      expect(Object.keys(write)).toEqual(['type', 'instance_id', 'trace_id', 'timestamp_ns', 'keys'])
      expect(serializeJson({...write})).toBe(serializeJson(write))
      for (const r of [get, write]) {
        const l = encodeRecordLine(r, arena)
        expect(l.slab.toString('utf8', l.start, l.end)).toBe(serializeJson(r) + '\n')
      }
    }
  })

  it('a record larger than the writer’s buffer is written piece by piece, with the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmt-enc-'))
    try {
      const c = new BaseConverter({})
      const keys = KeyList.prefixHash(Array.from({length: 70_000}, (_, i) => i)) // ~1.4 MB of text
      const records = [
        c.createGetTrace(7n, keys, undefined, {inputLen: 16 * 70_000}),
        c.createWriteTrace(8n, keys),
      ]
      const w = new BufferedWriter(join(dir, 'out.jsonl'))
      for (const r of records) encodeRecordInto(r, w)
      await w.close()
      expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe(
        records.map((r) => serializeJson(r) + '\n').join(''),
      )
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

describe('the record encoder', () => {
  it('gets with other plain tails (one reused while the next get has the same) encode like the serializer', () => {
    const c = new BaseConverter({defaultInstanceId: 'i'})
    let seed = 7
    const rand = (k: number) => (seed = (seed * 48271) % 2147483647) % k
    // primitives, -0 and NaN, empty arrays (fresh, frozen, or with a changed prototype), and values never reused
    const values: Array<() => unknown> = [
      () => 'prefix_match',
      () => 'x"é\u0001',
      () => 1,
      () => -1,
      () => 0,
      () => -0,
      () => Number.NaN,
      () => 1.5,
      () => 12345678901234567890n,
      () => true,
      () => null,
      () => [],
      () => Object.freeze([]),
      () => Object.setPrototypeOf([], Object.create(Array.prototype)),
      () => [1, 2],
      () => ({a: [1]}),
    ]
    const arena = new LineArena(4096)
    const keys = KeyList.prefixHash([1, 2, 3, 4])
    for (let i = 0; i < 3000; i++) {
      // runs of equal tails, so that the reused one is met often, and any value at any field
      const pick = () => values[rand(values.length)]()
      const tail = i % 50 < 40 ? ['prefix_match', 1, -1, []] : [pick(), pick(), pick(), pick()]
      const get = c.createGetTrace(BigInt(i), i % 3 === 0 ? [1n, 2n] : keys, undefined, {
        inputLen: 64,
        queryType: tail[0],
        blockMask: tail[1],
        swSize: tail[2],
        locationSpecNames: tail[3],
      })
      const l = encodeRecordLine(get, arena)
      expect(l.slab.toString('utf8', l.start, l.end)).toBe(serializeJson(get) + '\n')
    }
  })
})
