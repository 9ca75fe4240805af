import {describe, expect, it, vi} from 'vitest'
import {LineArena, type StoredLine} from '../../../src/convert/fast/line-arena.js'

const bytesOf = (l: StoredLine): string => l.slab.subarray(l.start, l.end).toString()
const add = (arena: LineArena, text: string): StoredLine => {
  const slot = arena.begin()
  slot.ascii(text)
  return slot.end()
}

describe('LineArena', () => {
  it('reuses a filled slab once all its lines are released, and never one with a line still held', () => {
    const arena = new LineArena(64)
    const made = vi.spyOn(Buffer, 'allocUnsafe')
    try {
      const held: Array<[StoredLine, string]> = []
      let released = 0
      for (let i = 0; i < 2000; i++) {
        const text = `line ${i} ${'x'.repeat(i % 17)}\n`
        const l = add(arena, text)
        // every 50th line is kept a long time; the rest are released a few lines later
        held.push([l, text])
        if (held.length > 5) {
          const k = held.findIndex(([, t]) => !t.startsWith('line ') || Number(t.split(' ')[1]) % 50 !== 0)
          const [old, oldText] = held.splice(k, 1)[0]
          expect(bytesOf(old)).toBe(oldText) // untouched until its release
          arena.release(old)
          released++
        }
      }
      for (const [l, t] of held) expect(bytesOf(l)).toBe(t)
      expect(released).toBeGreaterThan(1900)
      // ~2000 lines of ~15 bytes fill ~500 slabs of 64 bytes: only the slabs with a held line are new ones
      const slabs = made.mock.calls.filter(([n]) => n === 64).length
      expect(slabs).toBeLessThan(60)
    } finally {
      made.mockRestore()
    }
  })

  it('reuses a slab only once every line of it is released', () => {
    const arena = new LineArena(64)
    const line = (c: string) => add(arena, c.repeat(29) + '\n')
    const a1 = line('a')
    const a2 = line('A') // a's slab is full now
    const b1 = line('b')
    arena.release(a1)
    const b2 = line('B')
    const c1 = line('c') // b's slab is full: a new slab, since a2 still holds a's
    expect(c1.slab).not.toBe(a1.slab)
    arena.release(a2)
    arena.release(b1)
    const c2 = line('C')
    const d1 = line('d') // c's slab is full: a's, every line of which is out, is reused
    expect(d1.slab).toBe(a1.slab)
    expect(bytesOf(b2)).toBe('B'.repeat(29) + '\n') // b2 still held: b's slab untouched
    expect(bytesOf(c2)).toBe('C'.repeat(29) + '\n')
    expect(bytesOf(d1)).toBe('d'.repeat(29) + '\n')
  })
})
