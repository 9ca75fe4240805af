// The line pieces written from numbers (the hash-id rows' worker: no string per row) pinned to the ones written
// from strings, on random and edge values.
import {describe, expect, it} from 'vitest'
import {
  DEFAULT_GET_TAIL_BYTES,
  piecesOf,
  putGetTail,
  putGetTailUint,
  putLineHead,
  putLineHeadUint64,
  usualLineRoom,
} from '../../src/convert/record-encoder.js'

let seed = 11
const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647

/** Random unsigned 64-bit values, and the edges of the halves and of the digit counts. */
function values(): bigint[] {
  const out = [
    0n,
    1n,
    9n,
    10n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 32n + 1n,
    2n ** 53n,
    2n ** 63n - 1n,
    2n ** 63n,
  ]
  for (let k = 0n; k < 20n; k++) out.push(10n ** k - 1n, 10n ** k)
  for (let i = 0; i < 2000; i++) {
    const v = BigInt(Math.floor(rand() * 2 ** 31)) * 2n ** 32n + BigInt(Math.floor(rand() * 2 ** 32))
    out.push(v >> BigInt(Math.floor(rand() * 63)))
  }
  return out
}

const text = (b: Uint8Array, end: number): string => Buffer.from(b.subarray(0, end)).toString('latin1')

describe('line pieces written from numbers', () => {
  it('putLineHeadUint64 writes putLineHead’s bytes for the timestamp’s halves', () => {
    const head = piecesOf('inst "x"').get
    const room = usualLineRoom(head, '0'.repeat(20), '', undefined) + 8
    for (const v of values()) {
      const a = new Uint8Array(room)
      const b = new Uint8Array(room)
      const hi = Number(v >> 32n)
      const lo = Number(v & 0xffffffffn)
      expect(text(a, putLineHeadUint64(a, 0, head, hi, lo))).toBe(
        text(b, putLineHead(b, 0, head, v.toString())),
      )
    }
  })

  it('putGetTailUint writes putGetTail’s bytes for input lengths below 2^53', () => {
    const lengths = [1, 9, 10, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 123456789012345]
    for (let i = 0; i < 2000; i++) lengths.push(Math.floor(rand() * 2 ** Math.floor(rand() * 53)))
    for (const len of lengths) {
      const a = new Uint8Array(200)
      const b = new Uint8Array(200)
      const tail = DEFAULT_GET_TAIL_BYTES
      expect(text(a, putGetTailUint(a, 0, len, tail))).toBe(text(b, putGetTail(b, 0, String(len), tail)))
    }
  })
})
