import {describe, expect, it} from 'vitest'
import {CsvRowBuffer} from '../../../src/simulate/engine/hit-rate-csv.js'
import {XorShift64} from '../../../src/simulate/engine/xorshift64.js'
import {formatG} from '../../../src/util/format-g.js'

const text = (b: CsvRowBuffer): string => Buffer.from(b.buf.subarray(0, b.used)).toString('latin1')

describe('CsvRowBuffer.rate writes %g of a/b as formatG does', () => {
  const check = (pairs: Array<[number, number]>): void => {
    const out = new CsvRowBuffer()
    const want: string[] = []
    for (const [a, b] of pairs) {
      out.rate(a, b)
      want.push(formatG(b > 0 ? a / b : 0) + ',')
    }
    expect(text(out)).toBe(want.join(''))
  }

  it('on every fraction a/b with b ≤ 600, and on zero denominators', () => {
    const pairs: Array<[number, number]> = [
      [0, 0],
      [5, 0],
    ]
    for (let b = 1; b <= 600; b++) for (let a = 0; a <= b; a++) pairs.push([a, b])
    check(pairs)
  })

  it('on hit-rate-like ratios of large counters and on values next to decimal ties', () => {
    const g = new XorShift64(777n)
    const pairs: Array<[number, number]> = []
    for (let i = 0; i < 100_000; i++) {
      const b = Number(g.next() % 10_000_000_000n) + 1
      pairs.push([Math.floor((b * Number(g.next() % 1_000_000n)) / 1_000_000), b])
    }
    // ties and their neighbours: d.ddddd5 × 10^-k and one ulp either side, in every decade of the fast path
    for (let i = 0; i < 20_000; i++) {
      const k = 6 + (i % 4)
      const tie = (Number(g.next() % 900_000n) + 100_000 + 0.5) / 10 ** k
      for (const x of [tie, nextUp(tie), nextDown(tie)]) pairs.push([x, 1])
    }
    check(pairs)
  })

  it('hand-computed values: thirds, small rates, quarters', () => {
    const out = new CsvRowBuffer()
    out.rate(1, 3)
    out.rate(2, 700)
    out.rate(1, 4)
    expect(text(out)).toBe('0.333333,0.00285714,0.25,')
  })
})

function nextUp(x: number): number {
  const v = new DataView(new ArrayBuffer(8))
  v.setFloat64(0, x)
  v.setBigUint64(0, v.getBigUint64(0) + 1n)
  return v.getFloat64(0)
}

function nextDown(x: number): number {
  const v = new DataView(new ArrayBuffer(8))
  v.setFloat64(0, x)
  v.setBigUint64(0, v.getBigUint64(0) - 1n)
  return v.getFloat64(0)
}
