import {describe, expect, it} from 'vitest'
import {type OutputReading, readTraces} from '../../src/convert/converter-output.js'
import type {InputAccounting} from '../../src/convert/input-accounting.js'
import {LineArena, type StoredLine} from '../../src/convert/line-arena.js'
import {WriteRecord} from '../../src/convert/records.js'
import type {Converter} from '../../src/convert/types.js'
import {KeyList} from '../../src/hash/key-list.js'
import {serializeJson} from '../../src/formats/json/serialize.js'

/** What readTraces hands the sink for a converter's records: encoded lines, or records to encode later. */
async function taken(converter: Converter) {
  const lines: string[] = []
  const records: unknown[] = []
  const reading: OutputReading = {
    converter,
    className: 'Test',
    path: 'in.log',
    ctx: {} as InputAccounting,
    arena: new LineArena(),
    sort: true,
    logger: {info() {}, warn() {}},
    sink: {
      accept: (_ts, _type, _id, line: StoredLine) => {
        lines.push(line.slab.subarray(line.start, line.end).toString())
        return false
      },
      acceptRecord: (record) => {
        records.push(record)
        return false
      },
      settle: async () => {},
    },
  }
  await readTraces(reading)
  return {lines, records}
}

describe('readTraces', () => {
  const write = () => new WriteRecord('i', 5n, KeyList.from([1n, -2n]))

  it('leaves a record with KeyList keys to be encoded when the sorter writes it', async () => {
    const r = await taken({convertToTraces: () => [write()]})
    expect(r.lines).toEqual([])
    expect(r.records).toHaveLength(1)
  })

  it('encodes every record as it comes for a converter that asks for it (encodesRecordsAtOnce)', async () => {
    const r = await taken({convertToTraces: () => [write(), write()], encodesRecordsAtOnce: true})
    expect(r.records).toEqual([])
    expect(r.lines).toEqual([serializeJson(write()) + '\n', serializeJson(write()) + '\n'])
  })
})

describe('sortBytesOf', () => {
  it("takes a converter's chunk size for its sorter only when it is a usable size", async () => {
    const {sortBytesOf} = await import('../../src/convert/conversion-run.js')
    expect(sortBytesOf({sortChunkBytes: 8 << 20}, 'sortChunkBytes')).toBe(8 << 20)
    expect(sortBytesOf({sortWindowBytes: 2 << 20}, 'sortWindowBytes')).toBe(2 << 20)
    for (const bad of [undefined, 0, -1, 100, 1.5e6 + 0.5, NaN, Infinity, '8388608'])
      expect(sortBytesOf({sortChunkBytes: bad} as never, 'sortChunkBytes')).toBeUndefined()
  })
})
