import {describe, expect, it} from 'vitest'
import {BytePool} from '../../src/lct/byte-pool.js'
import {keyTupleId, ObjectKey} from '../../src/lct/values.js'

describe('BytePool', () => {
  it('gives what slicing a Buffer gives: equal bytes, a Buffer, a copy', () => {
    const pool = new BytePool()
    const src = Buffer.from(Array.from({length: 1000}, (_, i) => i & 0xff))
    // enough copies to fill several chunks, and some longer than the pooled runs
    for (let n = 0; n < 3000; n++) {
      const start = (n * 7) % 600
      const end = start + (n % 10 === 0 ? 300 : 1 + (n % 40))
      const copy = pool.copy(src, start, end)
      const slice = Uint8Array.prototype.slice.call(src, start, end) as Uint8Array
      expect(Buffer.isBuffer(copy)).toBe(Buffer.isBuffer(slice))
      expect(Buffer.compare(copy, slice)).toBe(0)
    }
    const a = pool.copy(src, 0, 8)
    const b = pool.copy(src, 8, 16)
    src[0] = 99
    a[7] = 42
    expect([a[0], b[0], src[7]]).toEqual([0, 8, 7])
  })
})

describe('keyTupleId', () => {
  it('is each id prefixed by its length, as before the parts were memoised', () => {
    const ks = [
      new ObjectKey(Uint8Array.from([1, 2]), 'm', 0, 0, ''),
      new ObjectKey(Uint8Array.from([0xab]), 'model:x', 3, 1, 's:1'),
    ]
    const plain = ks.map((k) => `${k.id.length}:${k.id}`).join('')
    expect(keyTupleId(ks)).toBe(plain)
    expect(keyTupleId(ks)).toBe(plain)
    expect(keyTupleId([])).toBe('')
  })
})
