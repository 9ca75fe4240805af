import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {JsonFloat, KeyList, serializeJson} from '../../src/index.js'
import {AgedKeys, type LoadedKeys} from '../../plugins/converters/publisher-log/_lib/aged-keys.js'
import {ColdGets} from '../../plugins/converters/publisher-log/_lib/cold-gets.js'
import {KeySpill} from '../../plugins/converters/publisher-log/_lib/key-spill.js'
import {
  type NewGet,
  PendingGets,
  type WaitingGet,
} from '../../plugins/converters/publisher-log/_lib/pending-gets.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

let folders = 0
const folder = () => {
  const dir = join(tmp.dir, `spill-${folders++}`)
  mkdirSync(dir)
  return dir
}

type Op =
  {op: 'get'; get: NewGet} | {op: 'write'; instance: string; ts: bigint; keys: LoadedKeys} | {op: 'endBatch'}

/** A random walk of gets, writes and batch ends over few first keys, so that chains are long and shared. */
function randomOps(seed: number, count: number): Op[] {
  let s = seed
  const rand = () => (s = (s * 48271) % 2147483647) / 2147483647
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]
  const firsts = [1n, 2n, -(2n ** 63n), 2n ** 63n - 1n, 77n]
  const instances = ['a', 'b']
  const tails = [
    {queryType: 'prefix_match', blockMask: 1, swSize: -1, locationSpecNames: []},
    {queryType: 'prefix_match', blockMask: 1, swSize: -1, locationSpecNames: ['x', {y: new JsonFloat(1)}]},
    {queryType: undefined, blockMask: null, swSize: -0, locationSpecNames: undefined},
    {queryType: 'prefix_match', blockMask: true, swSize: 12n, locationSpecNames: {k: [1, 2]}},
  ]
  const words = (n: number) => [pick(firsts), ...Array.from({length: n - 1}, () => BigInt(pick([3, 4, 5])))]
  const ops: Op[] = []
  for (let i = 0; i < count; i++) {
    const r = rand()
    if (r < 0.08) ops.push({op: 'endBatch'})
    else if (r < 0.6) {
      const shape = rand()
      let keys: LoadedKeys
      if (shape < 0.05) keys = []
      else if (shape < 0.1) keys = KeyList.from([pick(firsts)])
      else if (shape < 0.15)
        keys = ['s', 3] // a first key that is a string: never cold
      else keys = KeyList.from(words(2 + Math.floor(rand() * 4)))
      const ts = rand() < 0.02 ? 2n ** 63n + BigInt(i) : BigInt(Math.floor(rand() * 1000))
      ops.push({op: 'get', get: {instance: pick(instances), ts, keys, inputLen: BigInt(i), ...pick(tails)}})
    } else {
      const w = words(2 + Math.floor(rand() * 5))
      // the same keys as plain JSON values now and then: numbers match int64 keys as Python's == does
      const keys = rand() < 0.1 ? w.map((k) => (k > -100n && k < 100n ? Number(k) : k)) : KeyList.from(w)
      ops.push({op: 'write', instance: pick(instances), ts: BigInt(Math.floor(rand() * 1000)), keys})
    }
  }
  return ops
}

/** What a matched or drained get is, as the converter emits it. */
function shape(g: WaitingGet | undefined, aged: AgedKeys) {
  if (g === undefined) return undefined
  const keys = aged.load(g.keys)
  const {seq, instance, ts, inputLen, queryType, blockMask, swSize, locationSpecNames} = g
  return {
    seq,
    instance,
    ts,
    inputLen,
    keys: keys instanceof KeyList ? keys.toJsonBytes().toString() : serializeJson(keys),
    tail: serializeJson([queryType ?? 'absent', blockMask, swSize, locationSpecNames ?? 'absent']),
    minusZero: Object.is(swSize, -0),
  }
}

/** Plays the ops as the converter does: every get is also an ageing event; gets age before their keys do. */
function play(ops: Op[], cold: boolean) {
  const aged = new AgedKeys(folder())
  const gets = new PendingGets(aged, {cold})
  const seen = []
  for (const o of ops) {
    if (o.op === 'get') aged.add(gets.add(o.get))
    else if (o.op === 'endBatch') {
      gets.endBatch()
      aged.endBatch()
    } else seen.push(shape(gets.takeMatch(o.instance, o.ts, o.keys), aged))
  }
  for (const g of gets.drain()) seen.push(shape(g, aged))
  aged.close()
  return seen
}

describe('PendingGets: cold gets', () => {
  it('match and drain exactly as young ones do (random walks over shared first keys)', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const ops = randomOps(seed * 7919, 6000)
      const young = play(ops, false)
      expect(play(ops, true)).toEqual(young)
      expect(young.filter((g) => g !== undefined).length).toBeGreaterThan(1000)
    }
  })

  it('go cold only after their grace, and only in the usual shape', () => {
    const aged = new AgedKeys(folder())
    const gets = new PendingGets(aged, {cold: true})
    const tail = {queryType: 'q', blockMask: 1, swSize: -1, locationSpecNames: []}
    const usual = gets.add({instance: 'a', ts: 5n, keys: KeyList.from([1n, 2n]), inputLen: 3n, ...tail})
    const oneKey = gets.add({instance: 'a', ts: 5n, keys: KeyList.from([1n]), inputLen: 3n, ...tail})
    const huge = gets.add({instance: 'a', ts: 2n ** 64n, keys: KeyList.from([1n, 2n]), inputLen: 3n, ...tail})
    for (const g of [usual, oneKey, huge]) aged.add(g)
    gets.endBatch()
    aged.endBatch()
    expect(usual.live).toBe(true) // its own batch has just ended
    gets.endBatch()
    aged.endBatch()
    expect([usual.live, oneKey.live, huge.live]).toEqual([false, true, true])
    // the newest match first, whichever side it is on: the young one-key get, then the cold one; `huge` is too late
    const write = () => gets.takeMatch('a', 10n, KeyList.from([1n, 9n]))?.seq
    expect([write(), write(), write()]).toEqual([1, 0, undefined])
    aged.close()
  })
})

describe('PendingGets.drain', () => {
  it('gives young and cold gets in the order they were added, cold ones after the last young one too', () => {
    const aged = new AgedKeys(folder())
    const gets = new PendingGets(aged, {cold: true})
    const tail = {queryType: 'q', blockMask: 1, swSize: -1, locationSpecNames: []}
    const add = (keys: bigint[]) =>
      aged.add(gets.add({instance: 'a', ts: 1n, keys: KeyList.from(keys), inputLen: 1n, ...tail}))
    add([7n, 1n]) // goes cold
    add([7n]) // one key: stays young
    add([8n, 1n]) // goes cold
    add([9n, 1n, 2n]) // goes cold
    for (let i = 0; i < 3; i++) {
      gets.endBatch()
      aged.endBatch()
    }
    const drained = [...gets.drain()].map((g) => [g.seq, aged.load(g.keys).length])
    expect(drained).toEqual([
      [0, 2],
      [1, 1],
      [2, 2],
      [3, 3],
    ])
    aged.close()
  })
})

describe('ColdGets', () => {
  it('keeps its rows through compactions and index growth, in the order they were added', () => {
    const spill = new KeySpill(join(folder(), 'keys.bin'))
    const cold = new ColdGets(spill)
    const tail = {queryType: 'q', blockMask: 1, swSize: -1, locationSpecNames: []}
    const alive = new Set<number>()
    for (let i = 0; i < 20_000; i++) {
      const first = BigInt(i % 3000) - 1500n
      const g = {seq: i, instance: i % 2 ? 'a' : 'b', ts: BigInt(i), inputLen: 1n, ...tail}
      expect(cold.tryAdd(g, KeyList.from([first, 9n]))).toBe(true)
      alive.add(i)
      if (i % 3 !== 0) {
        // take the newest live row of a pair picked at random: rows die out of order
        const j = (i * 7919) % (i + 1)
        const r = cold.match(j % 2 ? 'a' : 'b', BigInt(j % 3000) - 1500n, BigInt(i), -1, () => true)
        if (r >= 0) {
          const g = cold.take(r)
          expect([g.ts, g.instance, g.keys.length]).toEqual([BigInt(g.seq), g.seq % 2 ? 'a' : 'b', 2])
          expect(g.seq % 3000).toBe(j % 3000) // the pair asked for
          alive.delete(g.seq)
        }
      }
    }
    expect(cold.size).toBe(alive.size)
    const drained = [...cold.drain()].map((g) => g.seq)
    expect(drained).toEqual([...alive].sort((x, y) => x - y))
    spill.close()
  })
})
