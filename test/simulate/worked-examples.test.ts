import {cpSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, ROOT, tempDir} from '../helpers/cli.js'

const EX = join(ROOT, 'test', 'fixtures', 'simulate')
const tmp = tempDir()
afterAll(() => tmp.cleanup())
let n = 0

/** Copies an example folder and runs lmt simulate on it; returns the summary and a CSV reader. */
async function run(
  example: string,
  flags: string[] = [],
  edit?: (cfg: Record<string, unknown>) => void,
  traceEdit?: (t: string) => string,
) {
  const dir = join(tmp.dir, `${example}-${n++}`)
  cpSync(join(EX, example), dir, {recursive: true})
  if (edit) {
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
    edit(cfg)
    writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg))
  }
  if (traceEdit)
    writeFileSync(join(dir, 'trace.jsonl'), traceEdit(readFileSync(join(dir, 'trace.jsonl'), 'utf8')))
  const r = await lmt(['simulate', join(dir, 'config.json'), '--no-plots', '--json', ...flags])
  const summary = r.exitCode === 0 ? JSON.parse(r.stdout) : undefined
  return {
    r,
    summary,
    csv: (id: string) => readFileSync(join(dir, 'out', `${id}_hit_rates.csv`), 'utf8'),
    expected: (f: string) => readFileSync(join(dir, f), 'utf8'),
    dir,
  }
}

const inst = (s: {instances: Array<Record<string, unknown>>}, id = 'i') =>
  s.instances.find((x) => x.instance_id === id) as Record<string, number>

describe('worked examples (docs/simulate.md §7.1)', () => {
  it('A: lru, infinite, prefix sharing', async () => {
    const x = await run('A')
    expect(x.r.exitCode).toBe(0)
    expect(x.csv('i')).toBe(x.expected('i_hit_rates.expected.csv'))
  })

  it.each([
    [1, [1, 6, 1, 0.111111]],
    [2, [3, 4, 2, 0.333333]],
    [3, [2, 3, 3, 0.222222]],
    [4, [5, 0, 4, 0.555556]],
    [-1, [5, 0, 4, 0.555556]],
  ])('B: K = %i', async (k, [hits, evictions, cached, rate]) => {
    const x = await run(
      'B',
      [],
      (c) => ((c.instance_groups as Array<Record<string, unknown>>)[0].quota_capacity_blocks = k),
    )
    const i = inst(x.summary)
    expect([i.hit_blocks, i.evictions, i.final_cached_blocks]).toEqual([hits, evictions, cached])
    expect(Number(x.csv('i').trim().split('\n').pop()?.split(',')[22])).toBeCloseTo(rate, 6)
    if (k === 2) expect(x.csv('i')).toBe(x.expected('i_hit_rates.k2.expected.csv'))
    if (k === 3) expect(x.csv('i')).toBe(x.expected('i_hit_rates.k3.expected.csv'))
  })

  it.each([
    [1, [0, 0, 2], [3, 0]],
    [2, [0, 2, 2], [3, 2]],
    [3, [0, 2, 2], [4, 2]],
  ])('C: eviction mode %i in bytes', async (mode, hits, cached) => {
    const x = await run('C', ['--eviction-mode', String(mode)])
    const a = inst(x.summary, 'a')
    const b = inst(x.summary, 'b')
    const csvA = x.csv('a').trim().split('\n').slice(1)
    expect([Number(csvA[0].split(',')[6]), b.hit_blocks, Number(csvA[1].split(',')[6])]).toEqual(hits)
    expect([a.final_cached_blocks, b.final_cached_blocks]).toEqual(cached)
    if (mode === 3) {
      expect(x.csv('a')).toBe(x.expected('a_hit_rates.mode3.expected.csv'))
      expect(x.csv('b')).toBe(x.expected('b_hit_rates.mode3.expected.csv'))
    }
  })

  it('D: random_lru with the default seed', async () => {
    const x = await run('D')
    const i = inst(x.summary)
    const hits = x
      .csv('i')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[6]))
    expect(hits).toEqual([0, 2, 2])
    expect([i.evictions, i.final_cached_blocks]).toEqual([2, 4])
  })

  it('E: leaf_aware_lru against lru', async () => {
    const la = await run('E')
    expect(
      la
        .csv('i')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.split(',')[6])),
    ).toEqual([2, 1])
    expect([inst(la.summary).evictions, inst(la.summary).final_cached_blocks]).toEqual([2, 3])
    const lru = await run('E', ['--policy', 'lru'])
    expect(
      lru
        .csv('i')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.split(',')[6])),
    ).toEqual([2, 0])
    expect([inst(lru.summary).evictions, inst(lru.summary).final_cached_blocks]).toEqual([2, 3])
  })

  it('F: request mode with delays 5 and 1; wrong row types fail with LMT_SIM_TRACE_MODE', async () => {
    const d5 = await run('F')
    expect(d5.csv('i')).toBe(d5.expected('i_hit_rates.delay5.expected.csv'))
    const d1 = await run('F', ['--write-delay-ns', '1'])
    expect(d1.csv('i')).toBe(d1.expected('i_hit_rates.delay1.expected.csv'))
    const wrong = await run('F', [], undefined, (t) => t.replace(/"request"/g, '"get"'))
    expect(wrong.r.exitCode).toBe(1)
    expect(JSON.parse(wrong.r.stdout).error.code).toBe('LMT_SIM_TRACE_MODE')
  })

  it('G: block_mask, local and remote hits', async () => {
    const x = await run('G')
    expect(x.csv('i')).toBe(x.expected('i_hit_rates.expected.csv'))
  })

  it('H: lru 2 hit blocks, belady 1, infinite 3; the run reports that the policy beats Belady', async () => {
    const x = await run('H', ['--oracle', 'all'])
    expect(inst(x.summary).hit_blocks).toBe(2)
    expect(x.summary.oracles.infinite[0]).toMatchObject({hit_blocks: 3, token_hit_rate: 0.75})
    expect(x.summary.oracles.belady[0]).toMatchObject({hit_blocks: 1, token_hit_rate: 0.25, quota_units: 1})
    expect(
      x.summary.notices.some(
        (n: {level: string; message: string}) =>
          n.level === 'warning' && n.message.includes('beats the Belady'),
      ),
    ).toBe(true)
  })

  it('B swept over K = 1…5 reproduces the table; infinite bounds every point; belady at K ≥ WSS equals infinite', async () => {
    const x = await run('B', ['--sweep', '--sweep-capacities', '1,2,3,4,5'])
    const rows = readFileSync(join(x.dir, 'out', 'sweep.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
    const group = (series: string) =>
      rows
        .filter((r) => r[0] === series && r[4] === '*')
        .map((r) => [Number(r[1]), Number(r[7]), Number(r[12])])
    expect(group('lru')).toEqual([
      [1, 1, 6],
      [2, 3, 4],
      [3, 2, 3],
      [4, 5, 0],
      [5, 5, 0],
    ])
    const inf = rows.find((r) => r[0] === 'infinite' && r[4] === '*') as string[]
    for (const [, hits] of group('lru')) expect(hits).toBeLessThanOrEqual(Number(inf[7]))
    expect(
      group('belady')
        .filter(([k]) => k >= 4)
        .map(([, h]) => h),
    ).toEqual([Number(inf[7]), Number(inf[7])])
    expect(x.summary.sweep.series).toEqual(['lru', 'belady', 'infinite'])
  })

  it('I: 64-bit keys, timestamp 0, writes without input_len, empty keys', async () => {
    const x = await run('I')
    expect(x.csv('i')).toBe(x.expected('i_hit_rates.expected.csv'))
  })

  it.each([
    ['"timestamp_ns":1.0', 'V4'],
    ['"timestamp_ns":-1', 'V5'],
    ['"keys":[1.5]', 'V8'],
    ['"keys":[18446744073709551616]', 'V8'],
  ])('I: a row with %s is rejected (%s) or skipped with --skip-invalid', async (field, rule) => {
    const bad = `{"type":"get","instance_id":"i",${field.startsWith('"timestamp') ? field : '"timestamp_ns":9'},${field.startsWith('"keys') ? field : '"keys":[1]'},"input_len":2}`
    const x = await run('I', [], undefined, (t) => t + bad + '\n')
    expect(x.r.exitCode).toBe(1)
    const err = JSON.parse(x.r.stdout).error
    expect(err.code).toBe('LMT_SIM_TRACE_ROW')
    expect(err.message).toContain(`trace.jsonl:4:`)
    expect(err.message).toContain(`[${rule}]`)
    const skipped = await run('I', ['--skip-invalid'], undefined, (t) => t + bad + '\n')
    expect(skipped.summary.trace.skipped.invalid[rule]).toBe(1)
  })

  it('I: partial tail is never skipped (V10); block_mask [1] is V9; a legacy row is V2', async () => {
    const tail = await run(
      'I',
      ['--skip-invalid'],
      undefined,
      (t) => t + '{"type":"get","instance_id":"i","timestamp_ns":9,"keys":[1,2],"input_len":1}\n',
    )
    expect(tail.r.exitCode).toBe(1)
    expect(JSON.parse(tail.r.stdout).error.code).toBe('LMT_SIM_PARTIAL_TAIL')
    const v9 = await run(
      'I',
      [],
      undefined,
      (t) =>
        t + '{"type":"get","instance_id":"i","timestamp_ns":9,"keys":[1],"input_len":1,"block_mask":[1]}\n',
    )
    expect(JSON.parse(v9.r.stdout).error.message).toContain('[V9]')
    const v2 = await run('I', [], undefined, (t) => t + '{"query_type":"prefix_match","total_keys":3}\n')
    expect(JSON.parse(v2.r.stdout).error.message).toContain('[V2]')
    const v1 = await run('I', [], undefined, (t) => t + '{"type":\n')
    expect(JSON.parse(v1.r.stdout).error.message).toContain('[V1]')
  })

  it('ttl with fallback equals lru; without fallback never evicts, with a notice', async () => {
    const ttl = await run('B', ['--policy', 'ttl'])
    expect(inst(ttl.summary).hit_blocks).toBe(3)
    const noFallback = await run('B', [], (c) => {
      const i = (c.instance_groups as Array<{instances: Array<Record<string, unknown>>}>)[0].instances[0]
      i.eviction_policy_type = 'ttl'
      i.eviction_policy_params = {fallback_on_pressure: false}
    })
    expect([inst(noFallback.summary).hit_blocks, inst(noFallback.summary).evictions]).toEqual([5, 0])
    expect(noFallback.summary.notices.some((x: {code: string}) => x.code === 'LMT_SIM_NOT_MODELLED')).toBe(
      true,
    )
  })
})
