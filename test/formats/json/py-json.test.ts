import {describe, expect, it} from 'vitest'
import {pyJsonDumps} from '../../../src/formats/json/py-json.js'
import {JsonFloat} from '../../../src/formats/json/json-float.js'

describe("Python's json.dumps", () => {
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
})
