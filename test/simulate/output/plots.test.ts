import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {blockSizeLabel, dataDomain, rateDomain, wrapWords} from '../../../src/simulate/output/plots.js'
import {convertSampleMooncake, lmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let mc = ''
beforeAll(async () => {
  mc = join(tmp.dir, 'mc.jsonl')
  await convertSampleMooncake(mc)
})

const spec = (out: string, name: string) => JSON.parse(readFileSync(join(out, `${name}.vl.json`), 'utf8'))

describe('plot axes and titles', () => {
  it('a rate axis runs from 0 to a round value just above the data', () => {
    expect(rateDomain([0.1, 0.37338])).toEqual([0, 0.4])
    expect(rateDomain([0.281531])).toEqual([0, 0.3])
    expect(rateDomain([0.0592572])).toEqual([0, 0.06])
    expect(rateDomain([0.3])).toEqual([0, 0.3])
    expect(rateDomain([0.97])).toEqual([0, 1])
    expect(rateDomain([1])).toEqual([0, 1])
    expect(rateDomain([0, 0])).toEqual([0, 0.1])
  })

  it('a note wraps between words, a word longer than a line on a line of its own', () => {
    expect(wrapWords('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd'])
    expect(wrapWords('aa bbbbbbb cc', 5)).toEqual(['aa', 'bbbbbbb', 'cc'])
    expect(wrapWords('short', 80)).toEqual(['short'])
  })

  it('a data axis spans the data, widened beyond a single value', () => {
    expect(dataDomain([3, 1, 7])).toEqual([1, 7])
    expect(dataDomain([0, 0])).toEqual([0, 1])
    expect(dataDomain([5000], true)).toEqual([2500, 10000])
  })

  it('the title names the block size, or each instance’s when they differ', () => {
    expect(blockSizeLabel([{id: 'i', blockSize: 512}])).toBe('block size 512')
    expect(
      blockSizeLabel([
        {id: 'a', blockSize: 4},
        {id: 'b', blockSize: 16},
      ]),
    ).toBe('block sizes 4 (a), 16 (b)')
    expect(blockSizeLabel('abcde'.split('').map((id, n) => ({id, blockSize: 2 ** n})))).toBe(
      'block sizes 1–16',
    )
  })
})

describe('simulate plots', () => {
  it('the hit rate over time fits its data: y 0–0.4, x the trace’s time range, one series without legend', async () => {
    const out = join(tmp.dir, 'run')
    const r = await lmt(['simulate', '--trace', mc, '--capacity-blocks', '-1', '-o', out])
    expect(r.exitCode, r.stderr).toBe(0)
    const s = spec(out, 'hit_rate_over_time')
    expect(s.title).toBe('mc.jsonl — lru, cache size inf, block size 512')
    expect(s.encoding.y.scale).toEqual({domain: [0, 0.4]})
    const ts = s.data.values.map((v: {t: number}) => v.t)
    expect(s.encoding.x.scale).toEqual({domain: [0, Math.max(...ts)], nice: false, zero: false})
    expect(Math.max(...ts)).toBeGreaterThan(3000) // the trace spans about an hour
    expect(s.encoding.color).toBeUndefined()
    const svg = readFileSync(join(out, 'hit_rate_over_time.svg'), 'utf8')
    expect(svg).toContain('block size 512')
    expect(svg).not.toContain('role-legend')
  })

  it('several instances get a legend; each instance’s block size is in the title', async () => {
    const trace = join(tmp.dir, 'multi.jsonl')
    const rows = [
      {type: 'write', instance_id: 'a', timestamp_ns: 1e9, keys: [1, 2, 3]},
      {type: 'write', instance_id: 'b', timestamp_ns: 2e9, keys: [7, 8]},
      {type: 'get', instance_id: 'a', timestamp_ns: 4e9, keys: [1, 2, 3], input_len: 14},
      {type: 'get', instance_id: 'b', timestamp_ns: 5e9, keys: [7, 8], input_len: 40},
    ]
    writeFileSync(trace, rows.map((x) => JSON.stringify(x)).join('\n') + '\n')
    const out = join(tmp.dir, 'multi')
    const r = await lmt(['simulate', '--trace', trace, '--capacity-blocks', '-1', '-o', out])
    expect(r.exitCode, r.stderr).toBe(0)
    const s = spec(out, 'hit_rate_over_time')
    expect(s.title).toBe('multi.jsonl — lru, cache size inf, block sizes 4 (a), 16 (b)')
    // a: 12 of 14 tokens, b: 32 of 40 → 0.857 on a 0–0.9 axis; time from the first row: 3 s to 4 s
    expect(s.encoding.y.scale).toEqual({domain: [0, 0.9]})
    expect(s.encoding.x.scale.domain).toEqual([3, 4])
    expect(s.encoding.color).toEqual({field: 'instance', type: 'nominal', title: 'instance'})
    expect(s.mark.point).toBe(true)
    expect(readFileSync(join(out, 'hit_rate_over_time.svg'), 'utf8')).toContain('role-legend')
  })

  it('no get, no plot (and a notice saying so)', async () => {
    const trace = join(tmp.dir, 'writes.jsonl')
    writeFileSync(trace, '{"type":"write","instance_id":"i","timestamp_ns":5,"keys":[1]}\n')
    const out = join(tmp.dir, 'writes')
    const r = await lmt(['simulate', '--trace', trace, '--capacity-blocks', '-1', '-o', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.notices.map((n: {code: string}) => n.code)).toContain('LMT_SIM_NO_PLOT')
    expect(existsSync(join(out, 'hit_rate_over_time.svg'))).toBe(false)
    expect(doc.outputs).toEqual(['summary.json'])
  })

  it('a sweep: log x over the swept capacities, y to the ceiling, a legend only with two series', async () => {
    const out = join(tmp.dir, 'sweep')
    const r = await lmt(['simulate', '--trace', mc, '--sweep', '--sweep-capacities', '1000,17090', '-o', out])
    expect(r.exitCode, r.stderr).toBe(0)
    const s = spec(out, 'sweep_hit_rate')
    expect(s.title.text).toBe('mc.jsonl — group default, capacity in blocks, block size 512')
    expect(s.title.subtitle.join(' ')).toMatch(/^The curve may fall: .*no inclusion property/)
    // the long note in lines from the plot's left edge: nothing but the y axis left of the plot
    expect(Math.max(...s.title.subtitle.map((l: string) => l.length))).toBeLessThanOrEqual(95)
    const svg = readFileSync(join(out, 'sweep_hit_rate.svg'), 'utf8')
    expect(Number(/transform="translate\((\d+(?:\.\d+)?),/.exec(svg)?.[1])).toBeLessThan(80)
    const line = s.layer[0].encoding
    expect(line.x.scale).toEqual({type: 'log', domain: [1000, 17090], nice: false})
    expect(line.y.scale).toEqual({domain: [0, 0.4]}) // the infinite ceiling 0.373
    expect(line.color.field).toBe('series') // the policy and Belady
    const alone = join(tmp.dir, 'sweep-alone')
    await lmt([
      'simulate',
      '--trace',
      mc,
      '--sweep',
      '--sweep-capacities',
      '5000',
      '--oracle',
      'none',
      '-o',
      alone,
    ])
    const one = spec(alone, 'sweep_hit_rate').layer[0].encoding
    expect(one.color).toBeUndefined()
    expect(one.x.scale.domain).toEqual([2500, 10000])
  })
})
