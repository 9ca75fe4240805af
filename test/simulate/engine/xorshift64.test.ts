import {describe, expect, it} from 'vitest'
import {DEFAULT_SEED, XorShift64, XorShift64Halves} from '../../../src/simulate/engine/xorshift64.js'

describe('XorShift64Halves: the xorshift64 sequence and its remainders on 32-bit halves', () => {
  it('gives the reference remainders for moduli around every boundary of the exact path, and past it', () => {
    const moduli = [
      1,
      2,
      3,
      7,
      16,
      17090,
      65535,
      65536,
      65537,
      1 << 20,
      2 ** 25 - 1,
      2 ** 25,
      2 ** 25 + 1,
      2 ** 31 - 1,
    ]
    for (const n of moduli) {
      const reference = new XorShift64(DEFAULT_SEED)
      const halves = new XorShift64Halves(DEFAULT_SEED)
      const out = new Int32Array(3000)
      // in chunks of varying size: the state must carry over between calls
      for (let at = 0, size = 1; at < out.length; at += size, size++) {
        const chunk = out.subarray(at, Math.min(out.length, at + size))
        halves.fillMod(chunk, chunk.length, n)
      }
      const want = Int32Array.from({length: out.length}, () => Number(reference.next() % BigInt(n)))
      expect(Array.from(out), `n = ${n}`).toEqual(Array.from(want))
      expect(halves.state).toBe(reference.state)
    }
  })

  it('starts from the spec’s test vectors (docs/simulate.md §4.7.2) and any seed of 64 bits', () => {
    const halves = new XorShift64Halves(DEFAULT_SEED)
    const out = new Int32Array(1)
    const states: bigint[] = []
    for (let i = 0; i < 3; i++) {
      halves.fillMod(out, 1, 1)
      states.push(halves.state)
    }
    expect(states).toEqual([0xf2c49d843d3f949fn, 0x8599e271d0df2c76n, 0x5711b5ac7e674faen])
    const top = new XorShift64Halves(0xffffffffffffffffn)
    const reference = new XorShift64(0xffffffffffffffffn)
    top.fillMod(out, 1, 1000)
    expect(out[0]).toBe(Number(reference.next() % 1000n))
  })
})
