import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {numberEnd, skipWs, stringEnd, valueEnd} from '../../src/jsonl/json-scan.js'
import {numberEndBytes, skipWsBytes, stringEndBytes, valueEndBytes} from '../../src/jsonl/json-scan-bytes.js'

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

describe('byte scanners', () => {
  it('end where the string scanners end, on random JSON and near-JSON text', () => {
    fc.assert(
      fc.property(values, (s) => {
        const b = bytesOf(s)
        expect(valueEndBytes(b, 0, 0)).toBe(valueEnd(s, 0, 0))
        expect(skipWsBytes(b, 0)).toBe(skipWs(s, 0))
        expect(numberEndBytes(b, 0)).toBe(numberEnd(s, 0))
        if (s.startsWith('"')) {
          expect(stringEndBytes(b, 0, true)).toBe(stringEnd(s, 0, true))
          expect(stringEndBytes(b, 0, false)).toBe(stringEnd(s, 0, false))
        }
      }),
      {numRuns: 5000},
    )
  })
})
