import {describe, expect, it} from 'vitest'
import {type OutputReading, readTraces} from '../../src/convert/converter-output.js'
import type {InputAccounting} from '../../src/convert/input-accounting.js'
import {bufferPerLine} from '../../src/convert/lines.js'
import {WriteRecord} from '../../src/convert/records.js'
import type {Converter} from '../../src/convert/types.js'
import {KeyList} from '../../src/hash/key-list.js'
import {serializeJson} from '../../src/formats/json/serialize.js'

/** The lines readTraces hands the sink for what a converter returns (on the plain store: a buffer per line). */
async function taken(converter: Converter) {
  const lines: string[] = []
  const reading: OutputReading = {
    converter,
    className: 'Test',
    path: 'in.log',
    ctx: {} as InputAccounting,
    lines: bufferPerLine,
    sort: true,
    logger: {info() {}, warn() {}},
    sink: {
      accept: (_ts, _type, _id, line) => {
        lines.push((line as Buffer).toString())
        return false
      },
      settle: async () => {},
    },
  }
  await readTraces(reading)
  return lines
}

describe('readTraces', () => {
  const write = () => new WriteRecord('i', 5n, KeyList.from([1n, -2n]))

  it("hands the sink each record's line and each other trace's serialization, from arrays and iterators", async () => {
    const other = new Map<string, unknown>([
      ['type', 'get'],
      ['timestamp_ns', 7n],
      ['é', [1.5]],
    ])
    const want = [serializeJson(write()) + '\n', serializeJson(other) + '\n']
    expect(await taken({convertToTraces: () => [write(), other]})).toEqual(want)
    async function* both() {
      yield write()
      yield other
    }
    expect(await taken({convertToTraces: both})).toEqual(want)
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
