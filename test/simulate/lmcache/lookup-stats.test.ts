// The bounded state of lmcache_lru's replay: hash keys interned once each (any string form, wide characters and lone
// surrogates included), and the rolling hit-rate series spilled to a scratch file that is read back exactly and
// leaves nothing behind.
import {readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {describe, expect, it} from 'vitest'
import {KeyIds} from '../../../src/simulate/lmcache/lookup-sim.js'
import {Histogram, LookupStats, SpilledSeries} from '../../../src/simulate/lmcache/lookup-stats.js'

const scratchFiles = () =>
  readdirSync(tmpdir()).filter((n) => n.startsWith(`lmt-lookup-rolling-${process.pid}-`))

function digest(i: number): string {
  let out = '0x'
  let h = (i * 2654435761) >>> 0
  for (let j = 0; j < 8; j++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0
    out += h.toString(16).padStart(8, '0')
  }
  return out
}

describe('KeyIds', () => {
  it('gives one id per distinct string, the same id again for an equal string, across table growth', () => {
    const ids = new KeyIds()
    const keys: string[] = []
    for (let i = 0; i < 70_000; i++) keys.push(digest(i))
    keys.push(
      '0x1f',
      '-0x1f',
      '#31',
      'not hex',
      'キー',
      '\ud800x',
      digest(5).toUpperCase().replace('0X', '0x'),
      '0x' + 'g'.repeat(64),
    )
    const first = keys.map((k) => ids.idOf(k))
    expect(new Set(first).size).toBe(keys.length)
    expect(ids.size).toBe(keys.length)
    // fresh copies of the strings (not the same objects) find the same ids
    expect(keys.map((k) => ids.idOf(`${k} `.slice(0, -1)))).toEqual(first)
    expect(ids.size).toBe(keys.length)
  })

  it("idsOf (a lookup's keys, guessing each from the key that followed the previous one) gives idOf's ids", () => {
    const guessed = new KeyIds()
    const direct = new KeyIds()
    const lookups = [[1, 2, 3], [1, 2, 3, 4], [1, 5, 3], [2, 3], [1, 2, 6, 4], [7], [1, 2, 3, 4]].map((l) =>
      l.map(digest),
    )
    for (const keys of lookups) {
      const out = new Int32Array(keys.length)
      guessed.idsOf(keys, out)
      expect([...out]).toEqual(keys.map((k) => direct.idOf(k)))
    }
    expect(guessed.size).toBe(direct.size)
  })

  it('tells digests apart that agree on all but one hex digit', () => {
    const ids = new KeyIds()
    const base = '0x' + '0'.repeat(64)
    const variants = [base]
    for (let pos = 2; pos < 66; pos += 7) variants.push(base.slice(0, pos) + 'f' + base.slice(pos + 1))
    const got = variants.map((k) => ids.idOf(k))
    expect(new Set(got).size).toBe(variants.length)
  })
})

describe('SpilledSeries', () => {
  it('reads back every value exactly, from the buffer and from the scratch file, and removes the file', () => {
    const s = new SpilledSeries(4)
    const values = Array.from({length: 23}, (_, i) => i / 7 + 0.1)
    for (const v of values) s.push(v)
    expect(s.length).toBe(23)
    expect(values.map((_, i) => s.at(i))).toEqual(values)
    s.close()
    expect(scratchFiles()).toEqual([])
  })
})

describe('LookupStats', () => {
  it("Stat 4's points are LMCache's indices, equal with a small spilling buffer and without spilling", () => {
    const small = new LookupStats(8)
    const large = new LookupStats()
    let hit = 0
    let total = 0
    for (let i = 0; i < 1003; i++) {
      const seq = 100 + (i % 37)
      const h = (i * 13) % seq
      hit += h
      total += seq
      for (const st of [small, large]) st.lookupDone(h, seq, 0, hit, total)
    }
    small.finish()
    large.finish()
    expect(small.rollingPoints()).toEqual(large.rollingPoints())
    expect(small.rollingPoints().map((p) => p.after)).toEqual([100, 250, 501, 752, 1003])
    expect(scratchFiles()).toEqual([])
  })

  it('Stat 4 of six lookups names request 1 twice, as LMCache prints it (int(0.6) - 1 and int(1.5) - 1 give index 0)', () => {
    const st = new LookupStats()
    for (let i = 1; i <= 6; i++) st.lookupDone(0, 512, 0, 0, 512 * i)
    st.finish()
    expect(st.rollingPoints().map((p) => p.after)).toEqual([1, 1, 3, 4, 6])
  })

  it('Stat 3 counts each key hit and the keys hit at least once', () => {
    const st = new LookupStats()
    for (const k of [3, 3, 9, 3, 2000]) st.hitChunk(k, 0, 0)
    const h: Histogram = st.reuse()
    expect(st.reusedKeys).toBe(3)
    expect([h.n, h.sum, h.max]).toEqual([3, 5, 3])
    expect(h.percentiles([25, 50, 99])).toEqual({p25: 1, p50: 1, p99: 3})
    st.close()
  })
})
