import {describe, expect, it} from 'vitest'
import {BaseConverter} from '../../src/convert/base-converter.js'
import {KeyList} from '../../src/hash/key-list.js'
import {deferredRecordSize, writeRecordLine} from '../../src/convert/fast/record-lines.js'
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

  it('records are frozen and serialize with their own fields only', () => {
    const c = new BaseConverter({defaultInstanceId: 'é"\\\u0001'})
    const get = c.createGetTrace(1n, KeyList.prefixHash([1, 2, 3]), undefined, {
      inputLen: 99999999999999999999n,
      blockMask: [1, 2, 3, 4],
      locationSpecNames: ['loc', null],
      queryType: 'x',
      swSize: -1,
    })
    expect(Object.isFrozen(get)).toBe(true)
    expect(serializeJson({...get})).toBe(serializeJson(get))
    // a get with other fields than the defaults is serialized when it comes, not held for later
    expect(deferredRecordSize(get)).toBeUndefined()
    expect(deferredRecordSize(c.createGetTrace(3n, [], undefined, {inputLen: 1}))).toBeUndefined()
  })

  it('the usual records (KeyList keys, default tail) are written straight to bytes like the serializer, for any timestamp', async () => {
    const c = new BaseConverter({defaultInstanceId: 'inst_日本'})
    const keys = KeyList.prefixHash(Array.from({length: 300}, (_, i) => i))
    const records = []
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
      for (const r of [get, write]) expect(deferredRecordSize(r)).toBeGreaterThan(0)
      records.push(get, write)
    }
    const odd = new BaseConverter({defaultInstanceId: 'é"\\\u0001'}) // escapes in the instance id and trace id
    records.push(odd.createGetTrace(9n, keys, undefined, {inputLen: 48}), odd.createWriteTrace(9n, keys))
    expect(await written(records)).toBe(records.map((r) => serializeJson(r) + '\n').join(''))
  })

  it('a record larger than the writer’s buffer is written through the serializer, with the same bytes', async () => {
    const c = new BaseConverter({})
    const keys = KeyList.prefixHash(Array.from({length: 70_000}, (_, i) => i)) // ~1.4 MB of text
    const records = [
      c.createGetTrace(7n, keys, undefined, {inputLen: 16 * 70_000}),
      c.createWriteTrace(8n, keys),
    ]
    expect(await written(records)).toBe(records.map((r) => serializeJson(r) + '\n').join(''))
  })
})

/** The records' lines as writeRecordLine writes them through a BufferedWriter. */
async function written(records: Parameters<typeof writeRecordLine>[0][]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lmt-enc-'))
  try {
    const w = new BufferedWriter(join(dir, 'out.jsonl'))
    for (const r of records) writeRecordLine(r, w)
    await w.close()
    return readFileSync(join(dir, 'out.jsonl'), 'utf8')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
