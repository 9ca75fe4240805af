import {describe, expect, it} from 'vitest'
import {JsonFloat} from '../../../src/formats/json/json-float.js'
import {JsonDepthError, JsonSyntaxError, MAX_JSON_DEPTH, parseJson} from '../../../src/formats/json/parse.js'
import {serializeJson} from '../../../src/formats/json/serialize.js'

describe('parseJson (lossless, Python json.loads acceptance)', () => {
  it('keeps integers exact: numbers up to 2^53 - 1, bigint beyond', () => {
    expect(parseJson('9007199254740991')).toBe(9007199254740991)
    expect(parseJson('9007199254740992')).toBe(9007199254740992n)
    expect(parseJson('-9223372036854775808')).toBe(-9223372036854775808n)
    expect(parseJson('99999999999999999999999')).toBe(99999999999999999999999n)
    expect(parseJson('123456789012345')).toBe(123456789012345)
    expect(parseJson('-0')).toBe(0)
    expect(Object.is(parseJson('-0'), -0)).toBe(false)
  })

  it('reads 16-digit integers (microsecond timestamps) exactly on both sides of 2^53', () => {
    expect(parseJson('1763975741000023')).toBe(1763975741000023)
    expect(parseJson('-9007199254740991')).toBe(-9007199254740991)
    expect(parseJson('-9007199254740992')).toBe(-9007199254740992n)
    expect(parseJson('9999999999999999')).toBe(9999999999999999n)
    let seed = 7n
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn
      // 16-digit values spread over [10^15, 10^16), half of them near 2^53
      const v =
        i % 2 === 0 ? 10n ** 15n + (seed % (9n * 10n ** 15n)) : 9007199254740992n + (seed % 2001n) - 1000n
      for (const text of [`${v}`, `-${v}`]) {
        const want = BigInt(text)
        const got = parseJson(text)
        if (want >= -9007199254740991n && want <= 9007199254740991n) expect(got).toBe(Number(want))
        else expect(got).toBe(want)
      }
    }
  })

  it('marks float literals as JsonFloat, including 1.0, exponents, NaN and infinities', () => {
    expect(parseJson('1.0')).toEqual(new JsonFloat(1))
    expect(parseJson('1e16')).toEqual(new JsonFloat(1e16))
    expect(parseJson('1E400')).toEqual(new JsonFloat(Infinity))
    expect(parseJson('-Infinity')).toEqual(new JsonFloat(-Infinity))
    expect((parseJson('NaN') as JsonFloat).value).toBeNaN()
    expect(Object.is((parseJson('-0.0') as JsonFloat).value, -0)).toBe(true)
  })

  it('represents objects as ordered maps: repeated key keeps first position and last value', () => {
    const v = parseJson('{"2":1,"1":2,"2":3}')
    expect(v).toBeInstanceOf(Map)
    expect([...(v as Map<string, unknown>).entries()]).toEqual([
      ['2', 3],
      ['1', 2],
    ])
    expect(serializeJson(v)).toBe('{"2": 3, "1": 2}')
  })

  it('decodes escapes, combines surrogate pairs and keeps lone surrogates', () => {
    expect(parseJson('"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"')).toBe('a"b\\c/d\b\f\n\r\t')
    expect(parseJson('"\\ud83d\\ude00"')).toBe('😀')
    expect(parseJson('"\\ud800x"')).toBe('\ud800x')
    expect(parseJson('"é"')).toBe('é')
  })

  it('accepts only space, tab, CR, LF between tokens', () => {
    expect(parseJson(' \t\r\n[1 , 2]\n')).toEqual([1, 2])
    expect(() => parseJson('[1,\u00a02]')).toThrow(JsonSyntaxError)
  })

  it.each([
    ['{this is not json}', 2],
    ['not json', 1],
    ['[1,]', 4],
    ['{"a":1} x', 9],
    ['"raw\u0001control"', 5],
    ['01', 2],
    ['1.', 2],
    ['"\\x"', 2],
    ['[1', 3],
    ['"é" x', 5],
  ])('reports a syntax error in %j with its 1-based column %i', (text, column) => {
    try {
      parseJson(text)
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(JsonSyntaxError)
      expect((err as JsonSyntaxError).column).toBe(column)
    }
  })

  it('counts columns in code points', () => {
    expect(() => parseJson('"😀" x')).toThrow(/column 5/)
  })

  it('nests up to 1000 levels; deeper texts are a JsonDepthError, never a stack overflow', () => {
    const nest = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n)
    expect(MAX_JSON_DEPTH).toBe(1000)
    let v: unknown = parseJson(nest(1000))
    for (let d = 1; d < 1000; d++) v = (v as unknown[])[0]
    expect(v).toEqual([])
    expect(parseJson(`{"a": ${nest(999)}}`)).toBeInstanceOf(Map)
    for (const text of [
      nest(1001),
      `{"x": ${nest(1000)}}`,
      nest(100_000),
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '['.repeat(50_000), // unterminated: the depth is reached before the end
    ]) {
      try {
        parseJson(text)
        expect.unreachable()
      } catch (err) {
        expect(err).toBeInstanceOf(JsonDepthError)
        expect(err).toBeInstanceOf(JsonSyntaxError) // callers that only know syntax errors still skip the line
        expect((err as JsonDepthError).reason).toBe('nesting deeper than 1000 levels')
      }
    }
    // the column is where the 1001st container opens
    expect(() => parseJson(`{"x": ${nest(1000)}}`)).toThrow(/at column 1006$/)
  })
})
