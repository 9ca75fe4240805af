import {describe, expect, it} from 'vitest'
import {HalvesList, integerArray, IntegerHalves, integerHalves, valueEnd} from '../../src/jsonl/json-scan.js'
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

  it('integerArray reads small ids in its tight loop exactly as the general path does, and the same arrays fail', () => {
    const general = () => true // an accept function sends every array down the general path
    const pieces = [
      '0',
      '7',
      '42',
      '999999999999999',
      '1000000000000000',
      '-3',
      '01',
      '1.5',
      '2e3',
      ' ',
      '\t',
      '',
    ]
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(rand() * 12)
      const items: string[] = []
      for (let k = 0; k < n; k++) {
        const r = rand()
        items.push(
          r < 0.85
            ? String(Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 15))))
            : pieces[Math.floor(rand() * pieces.length)],
        )
      }
      const sep = rand() < 0.8 ? ', ' : rand() < 0.5 ? ',' : ' , '
      const text = `[${rand() < 0.9 ? '' : ' '}${items.join(sep)}]${rand() < 0.5 ? '' : ' x'}`
      const fast = new HalvesList()
      const slow = new HalvesList()
      const end = integerArray(text, 0, fast)
      expect(end).toBe(integerArray(text, 0, slow, general))
      if (end < 0) continue
      expect(Array.from(fast.hi.subarray(0, fast.length))).toEqual(
        Array.from(slow.hi.subarray(0, slow.length)),
      )
      expect(Array.from(fast.lo.subarray(0, fast.length))).toEqual(
        Array.from(slow.lo.subarray(0, slow.length)),
      )
    }
    // more ids than the list's first capacity: it grows
    const many = `[${Array.from({length: 1000}, (_, i) => i * 1_000_003).join(', ')}]`
    const list = new HalvesList()
    expect(integerArray(many, 0, list)).toBe(many.length)
    expect(list.length).toBe(1000)
    expect(list.lo[999] + list.hi[999] * 2 ** 32).toBe(999 * 1_000_003)
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
