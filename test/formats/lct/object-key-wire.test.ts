import {describe, expect, it} from 'vitest'
import {decodeValue, encodeValue} from '../../../src/formats/lct/codecs.js'
import {MsgpackReader, MsgpackWriter} from '../../../src/formats/lct/msgpack.js'
import {canonicalObjectKey} from '../../../src/formats/lct/fast/object-key-wire.js'
import {ObjectKey} from '../../../src/formats/lct/values.js'

function wire(v: unknown): Uint8Array {
  const w = new MsgpackWriter()
  w.value(v)
  return Uint8Array.from(w.bytes())
}

/** What the general decoder makes of the bytes: the value, or the error's message. */
function general(bytes: Uint8Array): unknown {
  try {
    return decodeValue(new MsgpackReader(bytes, 0, bytes.length).value())
  } catch (err) {
    return `error: ${(err as Error).message}`
  }
}

describe('the usual ObjectKey wire form, read directly', () => {
  it('gives the general decoder’s key, or leaves the bytes to it (random keys, good and bad)', () => {
    let seed = 5
    const rand = (k: number) => (seed = (seed * 48271) % 2147483647) % k
    const texts = [
      'm',
      'n', // as long as another name: the string read last is reused only for the same bytes
      'Qwen/Qwen3-8B',
      'Qwen/Qwen3-9B',
      'ab',
      'a@b',
      'é',
      'x'.repeat(31),
      'y'.repeat(40),
      '',
      'salt/x',
      'nul\u0000',
      'z'.repeat(129),
    ]
    const ranks: Array<number | bigint> = [
      0,
      1,
      127,
      128,
      255,
      256,
      65535,
      65536,
      -1,
      2 ** 40,
      2n ** 63n - 1n,
    ]
    let direct = 0
    for (let i = 0; i < 3000; i++) {
      const hash = Buffer.from(Array.from({length: rand(40)}, () => rand(256)))
      const key = new ObjectKey(
        hash,
        texts[rand(texts.length)],
        ranks[rand(ranks.length)],
        [0, 3, 300, 70000][rand(4)],
        texts[rand(texts.length)],
      )
      let bytes = wire(encodeValue(key))
      if (rand(10) === 0) bytes = bytes.subarray(0, bytes.length - 1 - rand(3)) // cut short
      if (rand(2) === 0) bytes = Buffer.from(bytes) // a hash copied from a Buffer is a Buffer
      const fast = canonicalObjectKey(bytes, 0, bytes.length)
      const reference = general(bytes)
      if (fast === undefined) continue
      direct++
      expect(reference).toBeInstanceOf(ObjectKey)
      const r = reference as ObjectKey
      expect([fast.id, fast.kvRank, fast.objectGroupId, fast.modelName, fast.cacheSalt]).toEqual([
        r.id,
        r.kvRank,
        r.objectGroupId,
        r.modelName,
        r.cacheSalt,
      ])
      expect(fast.chunkHash).toEqual(r.chunkHash)
      expect(fast.chunkHash.constructor).toBe(r.chunkHash.constructor)
    }
    expect(direct).toBeGreaterThan(300) // the usual form is taken directly
  })

  it('leaves other layouts to the general decoder (field order, extra fields, long hashes)', () => {
    const key = new ObjectKey(Buffer.alloc(4), 'm', 0, 0, '')
    const payload = encodeValue(key) as {__t__: string; v: Record<string, unknown>}
    const reordered = {
      __t__: 'ObjectKey',
      v: {model_name: 'm', chunk_hash: Buffer.alloc(4), kv_rank: 0, object_group_id: 0, cache_salt: ''},
    }
    const extra = {__t__: 'ObjectKey', v: {...payload.v, extra: 1}}
    const longHash = encodeValue(new ObjectKey(Buffer.alloc(300), 'm', 0, 0, ''))
    for (const v of [reordered, extra, longHash]) {
      const bytes = wire(v)
      expect(canonicalObjectKey(bytes, 0, bytes.length)).toBeUndefined()
    }
    const usual = wire(payload)
    expect(canonicalObjectKey(usual, 0, usual.length)?.id).toBe(key.id)
  })
})
