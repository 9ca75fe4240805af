import {describe, expect, it} from 'vitest'
import {
  pyBytesRepr,
  pyCenter,
  pyFloatRepr,
  pyFormatFixed,
  pyJsonDumps,
  pyRound,
} from '../../src/util/pyfmt.js'
import {JsonFloat} from '../../src/jsonl/json-float.js'

describe('Python formatting helpers', () => {
  it('json.dumps with ensure_ascii, sort_keys and indent', () => {
    expect(pyJsonDumps({a: 'é\u007f\u0001\n\t"\\/😀\u2028'}, {ensureAscii: true})).toBe(
      '{"a": "\\u00e9\\u007f\\u0001\\n\\t\\"\\\\/\\ud83d\\ude00\\u2028"}',
    )
    expect(pyJsonDumps({b: 1, a: {d: [], c: {}}}, {sortKeys: true})).toBe('{"a": {"c": {}, "d": []}, "b": 1}')
    expect(pyJsonDumps({a: [1, new JsonFloat(20)]}, {indent: 2})).toBe(
      '{\n  "a": [\n    1,\n    20.0\n  ]\n}',
    )
    expect(pyJsonDumps([new JsonFloat(1e-5), new JsonFloat(1e16), 2n ** 70n, null, true])).toBe(
      '[1e-05, 1e+16, 1180591620717411303424, null, true]',
    )
  })

  it('sort_keys in code point order (surrogate pairs after U+E000–U+FFFF), escapes only where Python does', () => {
    // expected texts from CPython 3 json.dumps
    const d = {'\ue000': 1, '\u{1f600}': 2, z: 3, é: 4, 'a\u{1f600}': 5, 'a\uffff': 6, '': 7}
    expect(pyJsonDumps(d, {sortKeys: true})).toBe(
      '{"": 7, "a\\uffff": 6, "a\\ud83d\\ude00": 5, "z": 3, "\\u00e9": 4, "\\ue000": 1, "\\ud83d\\ude00": 2}',
    )
    expect(pyJsonDumps(d, {sortKeys: true, ensureAscii: false})).toBe(
      '{"": 7, "a\uffff": 6, "a\u{1f600}": 5, "z": 3, "é": 4, "\ue000": 1, "\u{1f600}": 2}',
    )
    expect(pyJsonDumps({k: 'plain-id:0:0:4:test:', q: 'a\u007fb', c: 'x\u001fy'}, {ensureAscii: false})).toBe(
      '{"k": "plain-id:0:0:4:test:", "q": "a\u007fb", "c": "x\\u001fy"}',
    )
  })

  it.each<[number, number, string]>([
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [2.675, 2, '2.67'],
    [0.0078125, 6, '0.007812'],
    [-0.0004, 3, '-0.000'],
    [-0, 1, '-0.0'],
    [1.5, 0, '2'],
    [2.5, 0, '2'],
    [0.15, 3, '0.150'],
    [123456.789, 3, '123456.789'],
    [1e22, 1, '10000000000000000000000.0'],
    [NaN, 2, 'nan'],
    [Infinity, 2, 'inf'],
    [5e-324, 3, '0.000'],
  ])('%%.%if of %d', (x, d, out) => {
    expect(pyFormatFixed(x, d)).toBe(out)
  })

  it('round, center, bytes repr, float repr', () => {
    expect(pyRound(2.675, 2)).toBe(2.67)
    expect(pyCenter(' Overall ', 64, '-')).toBe('-'.repeat(27) + ' Overall ' + '-'.repeat(28))
    expect(pyCenter('ab', 5, '*')).toBe('**ab*')
    expect(pyCenter('abc', 2)).toBe('abc')
    expect(pyBytesRepr(Uint8Array.from([0x57, 0x52, 0x4e, 0x47]))).toBe("b'WRNG'")
    expect(pyBytesRepr(Uint8Array.from([0, 255, 0x27, 0x5c, 9, 10, 13]))).toBe(
      "b'\\x00\\xff\\'\\\\\\t\\n\\r'",
    )
    expect(pyFloatRepr(1.7976931348623157e308)).toBe('1.7976931348623157e+308')
    expect(pyFloatRepr(1.5e-7)).toBe('1.5e-07')
  })
})
