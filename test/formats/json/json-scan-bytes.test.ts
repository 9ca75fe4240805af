import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {
  HalvesList,
  numberEndBytes,
  skipWsBytes,
  smallIntegerArrayBytes,
  smallIntegerBytes,
  stringEndBytes,
  valueEndBytes,
} from '../../../src/formats/json/fast/json-scan-bytes.js'
import {parseJson} from '../../../src/formats/json/parse.js'

/** The text as bytes followed by the 0 sentinel a LineBatch puts after every line (ASCII text: same offsets). */
const bytesOf = (s: string) => Buffer.concat([Buffer.from(s, 'latin1'), Buffer.from([0])])

const pieces = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '\t',
  '"',
  '\\',
  '\\u00e9',
  '\\x',
  'a',
  '1',
  '0',
  '-',
  '.',
  'e',
  'E',
  '+',
  'true',
  'fals',
  'null',
  '"k"',
  '12',
  '01',
  '\n',
  '\u0001',
]
const jsonish = fc.array(fc.constantFrom(...pieces), {maxLength: 30}).map((a) => a.join(''))
const values = fc.oneof(
  jsonish,
  fc.json().map((j) => [...j].map((c) => (c.charCodeAt(0) < 0x80 ? c : 'x')).join('')),
)

/** JSON text of fast-check's JSON values, ASCII only (non-ASCII characters replaced) and at most 20 deep */
const wellFormed = fc
  .json({maxDepth: 20})
  .map((j) => [...j].map((c) => (c.charCodeAt(0) < 0x80 ? c : 'x')).join(''))

/** whether the lossless parser takes `text` as one JSON document */
function parses(text: string): boolean {
  try {
    parseJson(text)
    return true
  } catch {
    return false
  }
}

describe('byte scanners', () => {
  it('accept only what the lossless parser accepts, on random JSON and near-JSON text', () => {
    fc.assert(
      fc.property(values, (s) => {
        const b = bytesOf(s)
        const value = valueEndBytes(b, 0, 0)
        if (value >= 0) expect(parses(s.slice(0, value)), s).toBe(true)
        const number = numberEndBytes(b, 0)
        if (number >= 0) {
          expect(s.slice(0, number)).toMatch(/^-?\d/)
          expect(parses(s.slice(0, number)), s).toBe(true)
        }
        for (const escapes of [true, false]) {
          const string = s.startsWith('"') ? stringEndBytes(b, 0, escapes) : -1
          if (string < 0) continue
          expect(typeof parseJson(s.slice(0, string))).toBe('string')
          if (!escapes) expect(s.slice(0, string)).not.toContain('\\')
        }
        expect(skipWsBytes(b, 0)).toBe(/^[ \t\n\r]*/.exec(s)![0].length)
      }),
      {numRuns: 5000},
    )
  })

  it('find the end of every well-formed value, also when text follows it', () => {
    fc.assert(
      fc.property(wellFormed, jsonish, (s, tail) => {
        expect(valueEndBytes(bytesOf(s), 0, 0)).toBe(s.length)
        expect(valueEndBytes(bytesOf(`${s} ${tail}`), 0, 0)).toBe(s.length)
        const v = parseJson(s)
        if (typeof v === 'string') {
          expect(stringEndBytes(bytesOf(s), 0, true)).toBe(s.length)
          expect(stringEndBytes(bytesOf(s), 0, false)).toBe(s.includes('\\') ? -1 : s.length)
        }
        if (/^-?\d/.test(s)) expect(numberEndBytes(bytesOf(`${s},`), 0)).toBe(s.length)
      }),
      {numRuns: 2000},
    )
  })

  it('read arrays of small integers and small integers as the lossless parser reads them', () => {
    const id = fc.oneof(fc.integer({min: 0, max: 999}), fc.integer({min: 0, max: 999_999_999_999_999}))
    const spaced = fc.constantFrom('', ' ', '  ', '\t', '\n ')
    const array = fc
      .tuple(fc.array(fc.tuple(id, spaced, spaced), {maxLength: 400}), spaced)
      .map(([items, end]) => `[${items.map(([v, a, b]) => `${a}${v}${b}`).join(',')}${end}]`)
    fc.assert(
      fc.property(array, (s) => {
        const out = new HalvesList()
        const end = smallIntegerArrayBytes(bytesOf(s), 0, out)
        const parsed = parseJson(s) as number[]
        expect(end).toBe(s.length)
        const read = Array.from({length: out.length}, (_, i) => out.hi[i] * 2 ** 32 + out.lo[i])
        expect(read).toEqual(parsed)
      }),
      {numRuns: 1000},
    )
    for (const bad of ['[01]', '[1.5]', '[1e3]', '[-1]', '[1,]', '[1 2]', '["1"]'])
      expect(smallIntegerArrayBytes(bytesOf(bad), 0, new HalvesList()), bad).toBe(-1)
    const at = {end: 0}
    expect(smallIntegerBytes(bytesOf('1234567,'), 0, at)).toBe(1234567)
    expect(at.end).toBe(7)
  })
})
