import {describe, expect, it} from 'vitest'
import {BytePool} from '../../src/lct/byte-pool.js'
import {encodeValue} from '../../src/lct/codecs.js'
import {keyTupleId, ObjectKey} from '../../src/lct/values.js'

/** the plain key and the pooled one, asked in the given order (the pooled key builds its view lazily) */
function pair(hash: Buffer, model: string, rank: number, group: number, salt: string) {
  const pool = new BytePool()
  pool.place(Buffer.alloc(13, 0xee), 0, 13) // not at the chunk's start
  const at = pool.place(hash, 0, hash.length)
  const pooled = ObjectKey.inPool(pool.chunk, at, hash.length, model, rank, group, salt)
  const plain = new ObjectKey(Uint8Array.prototype.slice.call(hash) as Uint8Array, model, rank, group, salt)
  return {pooled, plain}
}

describe('ObjectKey.inPool (the replaying side keeps key hashes in a shared chunk)', () => {
  it('is the plain key: id, fingerprint, tuple part, hash bytes and encoding, whichever is asked first', () => {
    let seed = 7
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
    for (let n = 0; n < 400; n++) {
      const hash = Buffer.from(Array.from({length: rnd() % 70}, () => rnd() & 0xff))
      const {pooled, plain} = pair(hash, `m/${n % 3}`, rnd() % 8, rnd() % 3, n % 5 === 0 ? 'salt' : '')
      if (n % 2 === 0) expect(Buffer.compare(pooled.chunkHash, hash)).toBe(0)
      expect(pooled.fingerprint).toBe(plain.fingerprint)
      expect(pooled.id).toBe(plain.id)
      expect(keyTupleId([pooled, plain])).toBe(keyTupleId([plain, plain]))
      expect(Buffer.isBuffer(pooled.chunkHash)).toBe(true)
      expect(Buffer.compare(pooled.chunkHash, plain.chunkHash)).toBe(0)
      expect(encodeValue(pooled)).toEqual(encodeValue(plain))
      expect(Object.isFrozen(pooled)).toBe(true)
      expect([pooled.modelName, pooled.kvRank, pooled.objectGroupId, pooled.cacheSalt]).toEqual([
        plain.modelName,
        plain.kvRank,
        plain.objectGroupId,
        plain.cacheSalt,
      ])
    }
  })

  it('reads its hash where it was placed: later copies into the pool leave it alone', () => {
    const pool = new BytePool()
    const at = pool.place(Buffer.from('0102ab', 'hex'), 0, 3)
    const k = ObjectKey.inPool(pool.chunk, at, 3, 'm', 1, 0, '')
    for (let i = 0; i < 40_000; i++) pool.place(Buffer.from([i & 0xff, 1, 2, 3]), 0, 4) // new chunks too
    expect(k.id).toBe('0102ab:1:0:1:m:')
    expect([...k.chunkHash]).toEqual([1, 2, 0xab])
  })

  it('a run too long for the pool is not placed', () => {
    const pool = new BytePool()
    expect(pool.place(Buffer.alloc(257), 0, 257)).toBe(-1)
    expect(pool.place(Buffer.alloc(256), 0, 256)).toBe(0)
  })
})
