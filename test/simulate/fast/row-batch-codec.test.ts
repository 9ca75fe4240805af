// The sweep workers' rows (fast/row-batch-codec.ts) against the rows they encode: every field back as it was.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {decodeRows, encodeRows} from '../../../src/simulate/fast/row-batch-codec.js'
import type {TraceRow} from '../../../src/simulate/input/trace-rows.js'

const row: fc.Arbitrary<TraceRow> = fc.record({
  type: fc.constantFrom('get' as const, 'write' as const, 'request' as const),
  instance: fc.constantFrom('a', 'b', 'инстанс', ''),
  ts: fc.bigInt({min: -(2n ** 63n), max: 2n ** 63n - 1n}),
  keys: fc.array(fc.nat({max: 2 ** 31 - 1}), {maxLength: 20}),
  inputLen: fc.nat({max: 2 ** 40}),
  mask: fc.oneof(fc.array(fc.boolean(), {maxLength: 20}), fc.nat({max: 100})),
  queryType: fc.constantFrom('prefix_match', 'other'),
  lineNo: fc.integer({min: 1, max: 2 ** 40}),
  // a ttl_us of 0 comes back as none, which a tiered play reads the same way
  ttlUs: fc.option(
    fc.bigInt({min: -(2n ** 63n), max: 2n ** 63n - 1n}).filter((v) => v !== 0n),
    {nil: undefined},
  ),
})

describe('the sweep rows codec', () => {
  it('decodes every row as it was encoded, in any slice', () => {
    fc.assert(
      fc.property(fc.array(row, {maxLength: 40}), fc.nat(), (rows, cut) => {
        const e = encodeRows(rows)
        const at = rows.length === 0 ? 0 : cut % (rows.length + 1)
        expect([...decodeRows(e, 0, at), ...decodeRows(e, at, rows.length)]).toEqual(rows)
      }),
    )
  })

  it('refills the arrays it is given when they are large enough (a parse thread slot), else grows them', () => {
    fc.assert(
      fc.property(fc.array(fc.array(row, {maxLength: 30}), {minLength: 1, maxLength: 5}), (fills) => {
        let e = encodeRows([])
        for (const rows of fills) {
          const before = e
          e = encodeRows(rows, before)
          expect(decodeRows(e, 0, rows.length)).toEqual(rows)
          if (before.type.length >= rows.length) expect(e.type).toBe(before.type)
        }
      }),
    )
  })

  it('shares its arrays (workers see the same bytes) and gives rows that share nothing with them', () => {
    const e = encodeRows([
      {
        type: 'get',
        instance: 'a',
        ts: 1n,
        keys: [7],
        inputLen: 16,
        mask: [true],
        queryType: 'prefix_match',
        lineNo: 1,
      },
    ])
    expect(e.keys.buffer).toBeInstanceOf(SharedArrayBuffer)
    const [r] = decodeRows(e, 0, 1)
    e.keys[0] = 9
    expect(r.keys).toEqual([7])
  })
})
