import {describe, expect, it} from 'vitest'
import {keyTupleId, ObjectKey} from '../../src/formats/lct/values.js'
import {ReadContextQueues} from '../../src/replay/storage/read-context-queues.js'

/** the plain pairing the queues replace: a Map keyed by the joined id string */
class PlainQueues<T> {
  private readonly m = new Map<string, T[]>()
  push(keys: ObjectKey[], item: T): void {
    const id = keyTupleId(keys)
    const q = this.m.get(id)
    if (q) q.push(item)
    else this.m.set(id, [item])
  }
  shift(keys: ObjectKey[]): T | undefined {
    const id = keyTupleId(keys)
    const q = this.m.get(id)
    if (!q || q.length === 0) return undefined
    const item = q.shift() as T
    if (q.length === 0) this.m.delete(id)
    return item
  }
  queues(): T[][] {
    return [...this.m.values()]
  }
}

/** a small xorshift generator: the same sequence every run */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 2 ** 32
  }
}

describe('ReadContextQueues', () => {
  it('pairs, orders and sweeps exactly as the Map keyed by keyTupleId, colliding hashes included', () => {
    // keys sharing a chunk hash (equal fingerprints) but not an id: tuples whose hashes collide
    const pool: ObjectKey[] = []
    for (let i = 0; i < 12; i++) {
      const hash = Uint8Array.from([i % 4, 7])
      pool.push(new ObjectKey(hash, 'model', i % 3, 0, i < 6 ? '' : 'salt'))
    }
    const rand = rng(21)
    const fresh = (k: ObjectKey) =>
      new ObjectKey(k.chunkHash.slice(), k.modelName, k.kvRank, k.objectGroupId, k.cacheSalt)
    const tuples: ObjectKey[][] = []
    for (let i = 0; i < 40; i++) {
      const n = Math.floor(rand() * 4)
      tuples.push(Array.from({length: n}, () => pool[Math.floor(rand() * pool.length)]))
    }
    const fast = new ReadContextQueues<number>()
    const plain = new PlainQueues<number>()
    let misses = 0
    for (let step = 0; step < 5000; step++) {
      // equal keys as other instances half the time: equality is by id, not identity
      const t = tuples[Math.floor(rand() * tuples.length)].map((k) => (rand() < 0.5 ? fresh(k) : k))
      if (rand() < 0.55) {
        fast.push(t, step)
        plain.push(t, step)
      } else {
        const got = fast.shift(t)
        expect(got).toBe(plain.shift(t))
        if (got === undefined) misses++
      }
      if (step % 97 === 0) expect([...fast.queues()]).toEqual(plain.queues())
    }
    expect(misses).toBeGreaterThan(0)
    expect([...fast.queues()]).toEqual(plain.queues())
    fast.clear()
    expect([...fast.queues()]).toEqual([])
  })

  it('keeps its own copy of the key list', () => {
    const a = new ObjectKey(Uint8Array.from([1]), 'm', 0)
    const b = new ObjectKey(Uint8Array.from([2]), 'm', 0)
    const q = new ReadContextQueues<string>()
    const keys = [a, b]
    q.push(keys, 'x')
    keys[1] = a
    expect(q.shift([a, a])).toBeUndefined()
    expect(q.shift([a, b])).toBe('x')
  })
})
