import {describe, expect, it} from 'vitest'
import {KeyList} from '../../../src/hash/key-list.js'
import {JsonFloat} from '../../../src/formats/json/json-float.js'
import {JsonSerializeError, serializeAsFields, serializeJson} from '../../../src/formats/json/serialize.js'

describe('serializeJson (Python json.dumps, ensure_ascii=False)', () => {
  it('lays out objects, arrays, integers and literals like Python', () => {
    expect(serializeJson({a: 1, b: [1, 2, {}], c: [], d: null, e: true, f: false})).toBe(
      '{"a": 1, "b": [1, 2, {}], "c": [], "d": null, "e": true, "f": false}',
    )
    expect(serializeJson({x: undefined, y: 1})).toBe('{"y": 1}')
    expect(
      serializeJson(
        new Map<string, unknown>([
          ['2', 1],
          ['1', 2],
        ]),
      ),
    ).toBe('{"2": 1, "1": 2}')
    expect(serializeJson(-0)).toBe('0')
    expect(serializeJson(2.5)).toBe('2.5')
    expect(serializeJson(new JsonFloat(1))).toBe('1.0')
    expect(serializeJson(12345678901234567890n)).toBe('12345678901234567890')
    expect(serializeJson(new BigInt64Array([1n, -2n]))).toBe('[1, -2]')
    expect(serializeJson(new Int32Array([3, -4]))).toBe('[3, -4]')
    expect(serializeJson(KeyList.from([1n, -1n, 9223372036854775807n]))).toBe('[1, -1, 9223372036854775807]')
  })

  it('escapes strings exactly like Python', () => {
    expect(serializeJson('é"x\\\u0001')).toBe('"é\\"x\\\\\\u0001"')
    expect(serializeJson('\b\f\n\r\t\u001f')).toBe('"\\b\\f\\n\\r\\t\\u001f"')
    expect(serializeJson('/\u007f\u2028\u2029😀')).toBe('"/\u007f\u2028\u2029😀"')
    expect(serializeJson('a\ud800b\udfffc')).toBe('"a\\ud800b\\udfffc"')
    expect(serializeJson('\udbff')).toBe('"\\udbff"')
  })

  it('rejects values Python could not write', () => {
    expect(() => serializeJson(() => 1)).toThrow(JsonSerializeError)
    expect(() => serializeJson({a: Symbol('x')})).toThrow(/at \.a/)
    expect(() => serializeJson(new Date())).toThrow(JsonSerializeError)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => serializeJson(cyclic)).toThrow(/circular/)
    expect(() => serializeJson(undefined)).toThrow(JsonSerializeError)
  })
})

describe('serializeAsFields', () => {
  it('makes a class serialize as its fields, in order; other class instances stay refused', () => {
    class Point {
      readonly x = 1
      readonly y = [2n, 'z']
      readonly skipped = undefined
    }
    class Other {
      readonly x = 1
    }
    expect(() => serializeJson(new Point())).toThrow('cannot serialize an object of class Point at $')
    serializeAsFields(Point)
    expect(serializeJson({p: new Point()})).toBe('{"p": {"x": 1, "y": [2, "z"]}}')
    expect(() => serializeJson(new Other())).toThrow(JsonSerializeError)
  })
})
