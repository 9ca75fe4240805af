import {mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {KeyList} from '../../src/index.js'
import {AgedKeys, type AgeingEvent} from '../../plugins/converters/publisher-log/_lib/aged-keys.js'
import {KeySpill, SpilledKeys} from '../../plugins/converters/publisher-log/_lib/key-spill.js'
import {PrefixHashes, prefixHash} from '../../plugins/converters/publisher-log/_lib/prefix-fingerprint.js'

/** The hash of the first m words, written out: FNV-1a and a murmur-style mix over the 32-bit halves. */
function referenceHash(words: BigInt64Array, m: number): number {
  const h = new Uint32Array(words.buffer, words.byteOffset, 2 * words.length)
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < 2 * m; i++) {
    a = Math.imul(a ^ h[i], 0x01000193)
    b = Math.imul(b ^ h[i], 0x5bd1e995) ^ (b >>> 15)
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff)
}

const hashesOf = (list: KeyList): PrefixHashes => {
  const hashes = new PrefixHashes()
  hashes.reset(list.words())
  return hashes
}
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

let seed = 99
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const key = () =>
  BigInt.asIntN(64, (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32)))
const keysOf = (n: number) => KeyList.from(Array.from({length: n}, key))

/** What a list is, as the encoder and the matcher read it. */
const shape = (k: KeyList) => ({words: [...k.words()], text: k.toJsonBytes().toString('latin1')})

describe('KeySpill', () => {
  it('gives back every list as it was put, from its buffer and from the file, a list larger than the buffer too', () => {
    const spill = new KeySpill(join(tmp.dir, 'keys.bin'))
    // ~4 MB in all: the 1 MiB buffer is flushed several times; one list of 60k keys (~1.3 MB) bypasses it
    const lists = Array.from({length: 600}, (_, i) =>
      keysOf(i === 300 ? 60_000 : 1 + Math.floor(rand() * 60)),
    )
    lists.push(KeyList.from([]), KeyList.from([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n]))
    const handles = lists.map((k) => spill.put(k))
    expect(handles.every((h) => h instanceof SpilledKeys)).toBe(true)
    expect(statSync(spill.path).size).toBeGreaterThan(1 << 20) // flushed past the buffer
    for (let i = lists.length - 1; i >= 0; i--) expect(shape(spill.get(handles[i]))).toEqual(shape(lists[i]))
    spill.close()
  })
})

describe('AgedKeys', () => {
  const event = (n: number): AgeingEvent & {orig: KeyList} => {
    const orig = keysOf(n)
    // a view into a larger slab, as a batch hands keys out
    const slab = KeyList.from([...keysOf(3).words(), ...orig.words()])
    const text = Buffer.concat([Buffer.from('xx'), orig.toJsonBytes()])
    const keys = KeyList.fromSlabs(slab.words(), 3, 3 + n, text, 2, text.length)
    return {keys, live: true, orig}
  }

  it('moves the keys of events still pending at the end of the next batch to the spill file; load() reads them back', () => {
    const dir = join(tmp.dir, 'spill')
    mkdirSync(dir)
    const aged = new AgedKeys(dir)
    const pending = event(20)
    const matched = event(5)
    aged.add(pending)
    aged.add(matched)
    matched.live = false
    aged.endBatch() // the end of its own batch
    expect(pending.keys).toBeInstanceOf(KeyList) // still young: a view into its batch
    aged.endBatch()
    expect(pending.keys).toBeInstanceOf(SpilledKeys)
    expect(matched.keys).toBeInstanceOf(KeyList) // no longer pending: left alone
    expect(shape(aged.load(pending.keys) as KeyList)).toEqual(shape(pending.orig))
    aged.close()
  })

  it('without a spill folder keeps aged keys in memory, in buffers of their own', () => {
    const aged = new AgedKeys(undefined)
    const pending = event(7)
    aged.add(pending)
    for (let i = 0; i < 3; i++) aged.endBatch()
    const keys = pending.keys as KeyList
    expect(keys).toBeInstanceOf(KeyList)
    expect(keys.words().buffer.byteLength).toBe(7 * 8) // not a view of the batch's slab
    expect(keys.toJsonBytes().buffer.byteLength).toBe(keys.jsonByteLength)
    expect(shape(keys)).toEqual(shape(pending.orig))
  })
})

describe('prefix hashes of spilled keys', () => {
  it('are the same computed at once or prefix by prefix, and differ where the prefixes differ', () => {
    for (let round = 0; round < 50; round++) {
      const list = keysOf(1 + Math.floor(rand() * 40))
      const hashes = hashesOf(list)
      const seen = new Set<number>()
      for (let m = list.length; m >= 0; m--) {
        const h = prefixHash(list.words(), m)
        expect(h).toBe(referenceHash(list.words(), m))
        expect(hashes.of(m)).toBe(h)
        expect(Number.isSafeInteger(h)).toBe(true)
        seen.add(h)
      }
      expect(seen.size).toBe(list.length + 1)
      const other = KeyList.from([...list.words()].map((w, i) => (i === list.length - 1 ? w ^ 1n : w)))
      expect(prefixHash(other.words(), list.length)).not.toBe(prefixHash(list.words(), list.length))
      expect(prefixHash(other.words(), list.length - 1)).toBe(prefixHash(list.words(), list.length - 1))
    }
  })

  it('are the same from one object reset from list to list as from a new one per list', () => {
    const reused = new PrefixHashes()
    for (let round = 0; round < 50; round++) {
      const list = keysOf(Math.floor(rand() * 40))
      reused.reset(list.words())
      const asked = Math.floor(rand() * (list.length + 1)) // part of the prefixes only, as a write asks for them
      for (let m = 0; m <= asked; m += 1 + Math.floor(rand() * 3))
        expect(reused.of(m)).toBe(hashesOf(list).of(m))
      if (rand() < 0.5) reused.release()
    }
  })

  it('go with the handle of each spilled list: the hash of all its keys but the last', () => {
    const spill = new KeySpill(join(tmp.dir, 'hashed.bin'))
    for (const n of [0, 1, 2, 17]) {
      const list = keysOf(n)
      expect(spill.put(list).prefixHash).toBe(prefixHash(list.words(), Math.max(0, n - 1)))
    }
    spill.close()
  })
})
