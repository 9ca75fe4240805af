import {describe, expect, it} from 'vitest'
import {BinaryHeap} from '../../src/util/binary-heap.js'

/** A small deterministic generator (xorshift32) for the property tests. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s
  }
}

describe('BinaryHeap', () => {
  it('pops in order for random interleavings of push, pop and replaceTop (min and max)', () => {
    for (const [name, before] of [
      ['min', (a: number, b: number) => a < b],
      ['max', (a: number, b: number) => a > b],
    ] as const) {
      const next = rng(name === 'min' ? 7 : 11)
      const heap = new BinaryHeap<number>(before)
      const model: number[] = []
      const first = () => (name === 'min' ? Math.min(...model) : Math.max(...model))
      for (let step = 0; step < 5000; step++) {
        const op = next() % 3
        if (op === 0 || model.length === 0) {
          const v = next() % 1000
          heap.push(v)
          model.push(v)
        } else if (op === 1) {
          const want = first()
          expect(heap.pop()).toBe(want)
          model.splice(model.indexOf(want), 1)
        } else {
          const want = first()
          const v = next() % 1000
          heap.replaceTop(v)
          model.splice(model.indexOf(want), 1, v)
        }
        expect(heap.size).toBe(model.length)
        if (model.length > 0) expect(heap.peek()).toBe(first())
      }
    }
  })

  it('gives FIFO order among equal keys when the key carries a sequence number', () => {
    const heap = new BinaryHeap<{t: number; seq: number}>(
      (a, b) => a.t < b.t || (a.t === b.t && a.seq < b.seq),
    )
    const times = [3, 1, 3, 2, 1, 3, 2]
    times.forEach((t, seq) => heap.push({t, seq}))
    const out: string[] = []
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(`${e.t}:${e.seq}`)
    expect(out).toEqual(['1:1', '1:4', '2:3', '2:6', '3:0', '3:2', '3:5'])
    expect(heap.pop()).toBeUndefined()
  })
})
