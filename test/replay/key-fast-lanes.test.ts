// The replay's per-key fast lanes agree with the plain lookups by id they stand in for.
import {describe, expect, it} from 'vitest'
import {ObjectKey} from '../../src/formats/lct/values.js'
import {hasDuplicateIds, L1} from '../../src/replay/storage/l1.js'
import {KeySlots} from '../../src/replay/storage/key-slots.js'
import {key, LAYOUT} from './helpers.js'

const plainHasDuplicates = (ks: ObjectKey[]) => new Set(ks.map((k) => k.id)).size < ks.length

/** A 1 MiB L1 of 4 KiB blocks whose clock stands still. */
function smallL1(): L1 {
  return new L1({
    slots: new KeySlots(),
    sizeInBytes: 1 << 20,
    alignBytes: 4096,
    writeTtl: 600,
    readTtl: 300,
    allocMode: 'all-or-nothing',
    writePendingReadable: false,
    now: () => 0,
    warn: () => {},
  })
}

describe('hasDuplicateIds (fingerprints, then ids)', () => {
  it('agrees with a set of ids on random lists, short and long', () => {
    let seed = 7
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
    const pool = Array.from({length: 40}, (_, i) => key(i))
    for (let t = 0; t < 2000; t++) {
      const n = 1 + Math.floor(rand() * 30)
      // fresh instances of pooled ids (equal ids, other objects), the same instance twice, and ranks that share a
      // chunk hash (equal fingerprints, other ids)
      const ks = Array.from({length: n}, () => {
        const i = Math.floor(rand() * pool.length)
        const r = rand()
        if (r < 0.3) return new ObjectKey(pool[i].chunkHash, 'test', 0, 0, '')
        if (r < 0.5) return new ObjectKey(pool[i].chunkHash, 'test', 1 + (i % 3), 0, '')
        return pool[i]
      })
      expect(hasDuplicateIds(ks)).toBe(plainHasDuplicates(ks))
    }
  })

  it('a duplicate by id in a long call keeps outcomes by id, as the dict does', () => {
    const l1 = smallL1()
    const ks = Array.from({length: 12}, (_, i) => key(i))
    ks.push(key(3)) // another instance of key 3's id
    expect(l1.reserveWrite(ks, [], LAYOUT, 'new')).toEqual(new Array(13).fill('SUCCESS'))
    expect(l1.leakedDuplicateBytes).toBe(4096)
    expect(l1.entries.size).toBe(12)
    expect(l1.errors).toEqual({})
  })
})

describe('KeySlots remembers a miss until a slot is created', () => {
  it('a key instance found absent sees the slot another instance of its id gets later', () => {
    const slots = new KeySlots()
    const a = key(1)
    const b = key(1)
    expect(slots.find(a)).toBeUndefined()
    expect(slots.find(a)).toBeUndefined()
    slots.of(key(2))
    expect(slots.find(a)).toBeUndefined()
    const slot = slots.of(b)
    expect(slots.find(a)).toBe(slot)
    slot.entry = undefined
    slots.releaseIfUnused(slot)
    expect(slots.find(a)).toBeUndefined()
    expect(slots.find(b)).toBeUndefined()
    const again = slots.of(a)
    expect(slots.find(b)).toBe(again)
  })
})

/** A key that counts how often its id is asked for. */
class CountingKey extends ObjectKey {
  static asked = 0
  override get id(): string {
    CountingKey.asked++
    return super.id
  }
}

describe('KeySlots builds no id for a key without a slot', () => {
  it('answers a miss from the live slots of its fingerprint, and looks the id up once one exists', () => {
    const slots = new KeySlots()
    const hash = key(5).chunkHash
    CountingKey.asked = 0
    expect(slots.find(new CountingKey(hash, 'test', 0, 0, ''))).toBeUndefined()
    expect(CountingKey.asked).toBe(0)
    // another rank of the same chunk hash: same fingerprint, other id
    const other = slots.of(new ObjectKey(hash, 'test', 1, 0, ''))
    const k = new CountingKey(hash, 'test', 0, 0, '')
    expect(slots.find(k)).toBeUndefined()
    expect(CountingKey.asked).toBe(1)
    const mine = slots.of(new ObjectKey(hash, 'test', 0, 0, ''))
    expect(slots.find(new CountingKey(hash, 'test', 0, 0, ''))).toBe(mine)
    other.entry = undefined
    slots.releaseIfUnused(other)
    mine.entry = undefined
    slots.releaseIfUnused(mine)
    CountingKey.asked = 0
    expect(slots.find(new CountingKey(hash, 'test', 0, 0, ''))).toBeUndefined()
    expect(CountingKey.asked).toBe(0)
  })
})

describe('KeySlots against a plain map by id', () => {
  it('finds what the map holds through random creations, releases and fresh instances', () => {
    let seed = 21
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
    // ranks sharing a chunk hash: other ids with equal fingerprints (one bucket of creation counts)
    const ids = Array.from({length: 60}, (_, i) => [key(i % 20).chunkHash, i % 3] as const)
    const instances = ids.map(([hash, rank]) => [new ObjectKey(hash, 'test', rank, 0, '')])
    const slots = new KeySlots()
    const plain = new Map<string, unknown>()
    for (let t = 0; t < 20000; t++) {
      const i = Math.floor(rand() * ids.length)
      const r = rand()
      if (r < 0.1) instances[i].push(new ObjectKey(ids[i][0], 'test', ids[i][1], 0, ''))
      const k = instances[i][Math.floor(rand() * instances[i].length)]
      if (r < 0.3) {
        const slot = slots.of(k)
        if (!plain.has(k.id)) plain.set(k.id, slot)
        expect(slot).toBe(plain.get(k.id))
      } else if (r < 0.45) {
        const slot = slots.find(k)
        if (slot) {
          slots.releaseIfUnused(slot)
          plain.delete(k.id)
        }
      } else expect(slots.find(k)).toBe(plain.get(k.id))
    }
    expect(slots.size).toBe(plain.size)
  })
})

describe('L1 error counts (runs of one error counted at once)', () => {
  it('equal a count per key in the order codes were first seen, over random calls', () => {
    let seed = 99
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
    const l1 = smallL1()
    const keys = Array.from({length: 40}, (_, i) => key(i))
    const plain: Record<string, Record<string, number>> = {}
    const tally = (op: string, codes: string[]) => {
      for (const c of codes) if (c !== 'SUCCESS') (plain[op] ??= {})[c] = ((plain[op] ??= {})[c] ?? 0) + 1
    }
    for (let t = 0; t < 300; t++) {
      // distinct keys in a random order: missing, write-locked, finished (wrong state for finish_write)
      const ks = keys.filter(() => rand() < 0.3).sort(() => rand() - 0.5)
      const r = rand()
      if (r < 0.2) tally('reserve_write', l1.reserveWrite(ks, [], LAYOUT, 'new'))
      else if (r < 0.7) tally('finish_write', l1.finishWrite(ks))
      else tally('delete', l1.delete(ks))
      expect(JSON.stringify(l1.errors)).toBe(JSON.stringify(plain))
    }
    expect(Object.keys(plain.finish_write ?? {}).length).toBeGreaterThan(1)
  })
})
