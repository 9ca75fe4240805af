import {describe, expect, it} from 'vitest'
import {IntegerHalves, integerHalves, valueEnd} from '../../src/jsonl/json-scan.js'
import {parseJson} from '../../src/jsonl/parse.js'

let seed = 31337
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647

describe('JSON scanning helpers', () => {
  it('integerHalves gives the value modulo 2^64 of integer literals of any length, like BigInt', () => {
    const out = new IntegerHalves()
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + Math.floor(rand() * 40)
      let digits = String(1 + Math.floor(rand() * 9))
      for (let j = 1; j < n; j++) digits += String(Math.floor(rand() * 10))
      if (rand() < 0.05) digits = '0'
      const text = (rand() < 0.5 ? '-' : '') + digits
      const end = integerHalves(`${text}]`, 0, out)
      expect(end).toBe(text.length)
      expect((BigInt(out.hi) << 32n) | BigInt(out.lo)).toBe(BigInt.asUintN(64, BigInt(text)))
      expect(out.digits).toBe(digits.length)
      expect(out.negative).toBe(text.startsWith('-'))
    }
  })

  it('integerHalves refuses what is not an integer literal', () => {
    const out = new IntegerHalves()
    for (const t of ['01', '-', '-01', '1.5', '2e3', '1E2', 'x', '', '+1', '.5'])
      expect(integerHalves(t, 0, out)).toBe(-1)
  })

  it('valueEnd accepts only what parseJson accepts, and finds the same end', () => {
    const samples = [
      '{"a": [1, 2.5e-3, true, null, {"b": "\\u00e9\\n"}]}',
      '[]',
      '{}',
      '"x\\"y"',
      '-0.0',
      '[1,]',
      '{"a" 1}',
      '"bad\\x"',
      'NaN',
      '[01]',
      '"\u0001"',
      '[1 2]',
      'tru',
    ]
    for (const t of samples) {
      const end = valueEnd(t, 0, 0)
      let ok = true
      try {
        parseJson(t)
      } catch {
        ok = false
      }
      if (end >= 0) expect({t, ok, end}).toEqual({t, ok: true, end: t.length})
    }
    expect(valueEnd(samples[0], 0, 0)).toBe(samples[0].length) // the usual shapes are taken
  })
})
