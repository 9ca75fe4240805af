import {describe, expect, it} from 'vitest'
import {KeyInterner} from '../../src/simulate/key-interner.js'
import {RowScanner} from '../../src/simulate/row-scan.js'
import {parseRow, RowError, type TraceRow} from '../../src/simulate/trace-rows.js'

let seed = 4242
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

function keyText(clean: boolean): string {
  if (rand() < 0.8) return String(BigInt.asIntN(64, BigInt(Math.floor(rand() * 2 ** 52)) * 0x9e3779b97n))
  const edge = [
    '0',
    '-0',
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '18446744073709551615',
    '12345',
  ]
  if (clean) return pick(edge)
  return pick([...edge, '-9223372036854775809', '18446744073709551616', '1.5', 'true', '"7"', '01', '-01'])
}

/** A row in the converter's layout with random variations; some invalid. */
function row(): string {
  const clean = rand() < 0.6
  const n = Math.floor(rand() * 12)
  const keys = Array.from({length: n}, () => keyText(clean))
  const type = clean ? pick(['get', 'write', 'request']) : pick(['get', 'write', 'gett', 'g\\u0065t'])
  const f: Array<[string, string]> = [
    ['type', `"${type}"`],
    ['instance_id', clean ? pick(['"instance"', '"i2"', '"é"']) : pick(['""', '"a\\"b"', '5'])],
    ['trace_id', '"trace_instance_1"'],
    [
      'timestamp_ns',
      clean
        ? pick(['1700000000123456789', '0', '42', '9223372036854775807'])
        : pick(['-1', '9223372036854775808', '1.0', '"5"', '123456789012345678901']),
    ],
    ['keys', `[${keys.join(pick([', ', ',']))}]`],
    ['input_len', clean ? String(n * 16 + 8) : pick(['0', '-3', '1.5', '"9"', '9007199254740993', 'null'])],
    ['query_type', clean ? pick(['"prefix_match"', '"other"']) : pick(['5', '"pre\\u0066ix"', 'null'])],
    [
      'block_mask',
      clean
        ? pick(['[]', '3', '0', '[true, false]', '[false]', String(n + 5)])
        : pick(['-1', '[1, 0]', '"x"', '1.5', '[true, 2]', '9223372036854775807']),
    ],
    ['sw_size', pick(['0', '-1', '{"nested": [1, {"x": null}]}'])],
    ['location_spec_names', pick(['[]', '["a", "b"]'])],
  ]
  const fields = f.filter(() => rand() < (clean ? 0.97 : 0.85))
  if (!clean && rand() < 0.2) fields.push(['keys', '[1]']) // repeated field
  if (rand() < 0.3)
    for (let i = fields.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[fields[i], fields[j]] = [fields[j], fields[i]]
    }
  const text = `{${fields.map(([k, v]) => `"${k}": ${v}`).join(pick([', ', ',']))}}`
  return rand() < 0.03 ? text.slice(0, Math.floor(rand() * text.length)) : text
}

function exact(text: string, lineNo: number, keys: KeyInterner): TraceRow | string {
  try {
    return parseRow(text, lineNo, keys)
  } catch (err) {
    if (err instanceof RowError) return `${err.rule}: ${err.message}`
    throw err
  }
}

describe('the trace-row fast lane', () => {
  it('gives parseRow’s rows (and interns keys in the same order) on 20,000 random rows', () => {
    const scanner = new RowScanner()
    const production = new KeyInterner()
    const reference = new KeyInterner()
    let fast = 0
    for (let i = 1; i <= 20_000; i++) {
      const text = row()
      const scanned = scanner.scan(text, i, production)
      if (scanned) fast++
      const got = scanned ?? exact(text, i, production) // what readTraceRows does
      expect(got).toEqual(exact(text, i, reference))
    }
    expect(fast).toBeGreaterThan(5000)
    expect(production.size).toBe(reference.size)
  })

  it('takes the exact key values: unsigned forms beyond 2^63 are their signed keys', () => {
    const keys = new KeyInterner()
    const scanner = new RowScanner()
    const a = scanner.scan(
      '{"type": "write", "instance_id": "i", "timestamp_ns": 1, "keys": [18446744073709551615, -1, 9223372036854775808, -9223372036854775808]}',
      1,
      keys,
    )
    expect(a?.keys).toEqual([0, 0, 1, 1])
    expect(keys.id(-1n)).toBe(0)
    expect(keys.id(2n ** 63n)).toBe(1)
    expect(keys.id(-(2n ** 63n) - 1n)).toBeUndefined()
    expect(keys.id(2n ** 64n)).toBeUndefined()
  })
})
