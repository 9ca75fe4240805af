import {describe, expect, it} from 'vitest'
import {pyBytesRepr, pyCenter, pyFloatRepr, pyFormatFixed, pyRound} from '../../src/util/pyfmt.js'

describe('Python formatting helpers', () => {
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
