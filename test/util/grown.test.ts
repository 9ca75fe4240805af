import {describe, expect, it} from 'vitest'
import {grown} from '../../src/util/grown.js'

describe('grown', () => {
  it('copies into a new array of the same kind and size, the rest zero', () => {
    const a = new Int32Array([5, -6, 7])
    const b = grown(a, 6)
    expect(b).toBeInstanceOf(Int32Array)
    expect([...b]).toEqual([5, -6, 7, 0, 0, 0])
    expect(b.buffer).not.toBe(a.buffer)
    const big = grown(new BigInt64Array([-1n, 2n ** 62n]), 3)
    expect([...big]).toEqual([-1n, 2n ** 62n, 0n])
  })

  it('keeps only the first `used` elements', () => {
    const b = grown(new Uint8Array([1, 2, 3, 4]), 8, 2)
    expect(b).toBeInstanceOf(Uint8Array)
    expect([...b]).toEqual([1, 2, 0, 0, 0, 0, 0, 0])
  })
})
