import {describe, expect, it} from 'vitest'
import {KeyInterner, unsignedModOf} from '../../../src/simulate/input/key-interner.js'

let seed = 9001
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const word = () => Math.floor(rand() * 2 ** 32) >>> 0

/** A key as its two unsigned halves and its value modulo 2^64 (what identifies it). */
interface Key {
  hi: number
  lo: number
  value: bigint
}
const key = (hi: number, lo: number): Key => ({hi, lo, value: (BigInt(hi) << 32n) | BigInt(lo)})

/** The plain meaning: ids in order of first sight. */
class ReferenceInterner {
  private readonly ids = new Map<bigint, number>()
  id(k: Key): number {
    let id = this.ids.get(k.value)
    if (id === undefined) this.ids.set(k.value, (id = this.ids.size))
    return id
  }
}

/**
 * Lists shaped like a trace's: prompts shared as prefixes (cut short or extended), keys that share one half with
 * another key (so a comparison of one half is not enough), repeats out of order.
 */
function randomLists(count: number): Key[][] {
  const base: Key[] = Array.from({length: 64}, () => key(word(), word()))
  // keys equal in one half to a key of the base: the other half tells them apart
  const twins = base
    .slice(0, 16)
    .flatMap((k) => [key(k.hi, word()), key(word(), k.lo), key((k.hi ^ 1) >>> 0, k.lo)])
  const prompts = Array.from({length: 12}, () =>
    Array.from({length: 2 + Math.floor(rand() * 20)}, () => key(word(), word())),
  )
  const lists: Key[][] = []
  for (let n = 0; n < count; n++) {
    const r = rand()
    let list: Key[]
    if (r < 0.5) {
      const p = prompts[Math.floor(rand() * prompts.length)]
      list = p.slice(0, 1 + Math.floor(rand() * p.length))
    } else if (r < 0.6) list = [...(lists[Math.floor(rand() * lists.length)] ?? [])].reverse()
    else list = []
    const fresh = Math.floor(rand() * 8)
    for (let i = 0; i < fresh; i++) {
      const s = rand()
      list.push(
        s < 0.3
          ? base[Math.floor(rand() * base.length)]
          : s < 0.5
            ? twins[Math.floor(rand() * twins.length)]
            : key(word(), word()),
      )
    }
    lists.push(list)
  }
  return lists
}

describe('KeyInterner', () => {
  it('gives a list’s keys their ids in order of first sight, by idAfter as by idOf', () => {
    for (const expected of [0, 50_000]) {
      const production = new KeyInterner(expected) // unsized: grows many times over the run
      const reference = new ReferenceInterner()
      const lists = randomLists(4_000)
      let keys = 0
      for (const list of lists) {
        const byAfter = rand() < 0.7
        let id = -1
        for (const k of list) {
          id = byAfter ? production.idAfter(id, k.hi, k.lo) : production.idOf(k.hi, k.lo)
          expect(id).toBe(reference.id(k))
          keys++
        }
      }
      expect(keys).toBeGreaterThan(20_000)
      expect(production.size).toBeGreaterThan(4_096) // past the first table's room
    }
  })

  it('takes the key after `prev` only when both halves are that key’s', () => {
    const k = new KeyInterner()
    expect([k.idOf(1, 10), k.idOf(1, 11), k.idOf(2, 12)]).toEqual([0, 1, 2])
    expect(k.idAfter(0, 1, 11)).toBe(1) // the next id's key
    expect(k.idAfter(0, 9, 11)).toBe(3) // the next id's low half, another high half: a new key
    expect(k.idAfter(0, 1, 99)).toBe(4) // the next id's high half, another low half: a new key
    expect(k.idAfter(4, 2, 12)).toBe(2) // the last id as `prev` (nothing after it yet): looked up
    expect(k.idAfter(-1, 1, 10)).toBe(0)
    expect(k.size).toBe(5)
  })

  it('tells apart keys that share a half, also where they meet in the table', () => {
    const k = new KeyInterner()
    const n = 3_000 // in a table of 4,096 slots (then 8,192): probe runs hold keys with the same low half
    for (let i = 0; i < n; i++) expect(k.idOf(i, 5)).toBe(i)
    for (let i = 0; i < n; i++) expect(k.idOf(5, i)).toBe(i === 5 ? 5 : n + i - (i > 5 ? 1 : 0))
    for (let i = 0; i < n; i++) expect(k.idOf(i, 5)).toBe(i)
    expect(k.size).toBe(2 * n - 1)
  })

  it('reads JSON values as keys modulo 2^64', () => {
    const k = new KeyInterner()
    expect(k.id(-1n)).toBe(0)
    expect(k.id(2n ** 64n - 1n)).toBe(0)
    expect(k.id(7)).toBe(1)
    expect(k.id(7n)).toBe(1)
    expect(k.idAfter(0, 0, 7)).toBe(1)
    expect(k.id(2n ** 64n)).toBeUndefined()
    expect(k.id(1.5)).toBeUndefined()
  })

  it('reads a key as an unsigned 64-bit integer modulo any count, as BigInt arithmetic does', () => {
    const halves = [0, 1, 2, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]
    let seed = 0x9e3779b9
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0)
    for (let i = 0; i < 200; i++) halves.push(next())
    const counts = [1, 2, 3, 7, 1000, 1024, 4095, 2 ** 15 - 1, 2 ** 15, 2 ** 15 + 1, 65_536, 100_003]
    counts.push(
      2 ** 26 - 1,
      2 ** 26,
      2 ** 26 + 1,
      2 ** 30,
      2 ** 31,
      2 ** 32,
      2 ** 32 + 1,
      2 ** 33,
      2 ** 40 + 3,
    )
    const values = new Uint32Array(2 * halves.length * halves.length)
    let id = 0
    for (const hi of halves)
      for (const lo of halves) {
        values[2 * id] = hi
        values[2 * id + 1] = lo
        id++
      }
    for (const m of counts)
      for (let k = 0; k < id; k++) {
        const value = (BigInt(values[2 * k]) << 32n) | BigInt(values[2 * k + 1])
        if (unsignedModOf(values, k, m) !== Number(value % BigInt(m)))
          expect(unsignedModOf(values, k, m), `${value} mod ${m}`).toBe(Number(value % BigInt(m)))
      }
  })
})
