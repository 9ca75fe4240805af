// Prefix-tree LRU has no inclusion property, worked by hand (docs/simulate.md §6.6): one instance, block size 4,
// exact eviction, capacity in blocks. Blocks are key paths: a = [1], b = [1,2], c = [1,2,3], d = [1,2,3,4]. A get
// hits the live prefix and refreshes it; a write inserts the missing blocks without refreshing the live ones; the
// least recently used block goes first (a root evicted before its children leaves a placeholder).
//
//                          2 blocks                          3 blocks
//  get [1]      write [1]  0 hits; {a}                       0 hits; {a}
//  get [1,2,3,4] write …   1 hit (a); +b,c,d, evict a,b:     1 hit (a); +b,c,d, evict a: {b,c,d}
//                          {c,d}
//  get [1,2]    write [1,2] 0 hits (a gone); +a,b, evict c,d: 0 hits; +a (b is live), evict b: {c,d,a}
//                          {a,b}
//  get [1,2]    write [1,2] 2 hits                           1 hit (a; b gone); +b, evict c: {d,a,b}
//
// 3 hits at 2 blocks, 2 at 3: after the third unit b is cached at 2 blocks and not at 3. The sweep, the single runs
// and the stack method (which may only use a point it proves exact) must all say so, and the plot must say why.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {inclusionNote} from '../../src/simulate/output/inclusion-note.js'
import {lmt, tempDir} from '../helpers/cli.js'

const {dir, cleanup} = tempDir('lmt-inclusion-')
afterAll(cleanup)

const units = [[1], [1, 2, 3, 4], [1, 2], [1, 2]]
const trace = join(dir, 'inclusion.jsonl')
writeFileSync(
  trace,
  units
    .flatMap((keys, u) => [
      {type: 'get', instance_id: 'i', timestamp_ns: 10 * u + 1, keys, input_len: 4 * keys.length},
      {type: 'write', instance_id: 'i', timestamp_ns: 10 * u + 2, keys},
    ])
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
)

/** the lru hit blocks of each point of a sweep, from sweep.csv */
function lruHits(out: string): Record<string, number> {
  const hits: Record<string, number> = {}
  for (const line of readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n').slice(1)) {
    const c = line.split(',')
    if (c[0] === 'lru' && c[4] === '*') hits[c[1]] = Number(c[7])
  }
  return hits
}

describe('prefix-tree LRU lacks the inclusion property', () => {
  it('2 blocks hit 3 blocks, 3 blocks hit 2: single runs, the sweep replayed and with the stack method', async () => {
    for (const [k, hits] of [
      [2, 3],
      [3, 2],
    ]) {
      const r = await lmt([
        'simulate',
        '--trace',
        trace,
        '--block-size',
        '4',
        '--capacity-blocks',
        String(k),
        '-o',
        join(dir, `single-${k}`),
        '--json',
        '--no-plots',
      ])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout).groups[0].totals.hit_blocks).toBe(hits)
    }
    for (const stack of ['off', 'auto']) {
      const out = join(dir, `sweep-${stack}`)
      const r = await lmt([
        'simulate',
        '--trace',
        trace,
        '--block-size',
        '4',
        '--sweep',
        '--sweep-capacities',
        '1,2,3,4',
        '--stack',
        stack,
        '-j',
        '1',
        '-o',
        out,
        '--json',
      ])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(lruHits(out)).toEqual({1: 1, 2: 3, 3: 2, 4: 5}) // 1 block: a, then d, then b; 4 hold all: 0+1+2+2
      const spec = JSON.parse(readFileSync(join(out, 'sweep_hit_rate.vl.json'), 'utf8'))
      expect(spec.title.subtitle.join(' ')).toMatch(/^Not monotone, and correct: .*no inclusion property/)
    }
  })

  it('the plot note: "may fall" for a rising curve, "not monotone" when it falls', () => {
    expect(
      inclusionNote([
        {capacity: 1, rate: 0.1},
        {capacity: 2, rate: 0.2},
      ]),
    ).toMatch(/^The curve may fall/)
    expect(
      inclusionNote([
        {capacity: 2, rate: 0.3},
        {capacity: 1, rate: 0.1},
        {capacity: 3, rate: 0.2},
      ]),
    ).toMatch(/^Not monotone/)
  })
})
