// Capacities: the conversions of config/capacity.ts by hand; a sweep in GiB against the same sweep in blocks
// (Belady at its capacity, not the infinite ceiling); a GiB capacity without the bytes of a block refused in every
// form; and one capacity expressed every way lmt accepts it giving the same numbers through the quick form, a
// configuration file, a sweep and the report (GiB from bytes per token and from a KV layout), none above the
// infinite ceiling.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {
  blocksToGib,
  capacityUnitOf,
  gibToBlocks,
  pointCapacity,
  quotaBlocks,
  weightOf,
} from '../../src/simulate/config/capacity.js'
import {checkBelowCeiling} from '../../src/simulate/oracles/ceiling.js'
import type {GroupConfig, InstanceConfig} from '../../src/simulate/config/config.js'
import {isLmtError} from '../../src/errors.js'
import {validatorFor} from '../../src/schemas.js'
import {lmt, tempDir} from '../helpers/cli.js'

const {dir, cleanup} = tempDir('lmt-capacity-')
afterAll(cleanup)
let runs = 0

type Row = {type: 'get' | 'write'; keys: number[]}

/** rows as the standard JSONL of one instance `i`, every get's input_len a whole number of blocks */
function traceFile(rows: Row[], bs: number): string {
  const path = join(dir, `t${runs++}.jsonl`)
  const lines = rows.map((r, k) =>
    JSON.stringify({
      type: r.type,
      instance_id: 'i',
      timestamp_ns: 1000 + k,
      keys: r.keys,
      ...(r.type === 'get' ? {input_len: Math.max(1, r.keys.length) * bs} : {}),
    }),
  )
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

async function json(args: string[]): Promise<Record<string, unknown>> {
  const r = await lmt([...args, '--json', '--no-progress', ...(args[0] === 'simulate' ? ['--no-plots'] : [])])
  if (r.exitCode !== 0)
    throw new Error(`lmt ${args.join(' ')} failed (${r.exitCode}): ${r.stdout}${r.stderr}`)
  return JSON.parse(r.stdout) as Record<string, unknown>
}

/** the block hit counts of a sweep's one point, per series, from its sweep.csv */
function sweepHits(out: string): Record<string, number> {
  const lines = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n').slice(1)
  const hits: Record<string, number> = {}
  for (const l of lines) {
    const c = l.split(',')
    if (c[4] === '*') hits[c[0]] = Number(c[7])
  }
  return hits
}

describe('the conversions, by hand', () => {
  // 2x36x512x8x128 bfloat16: 75,497,472 bytes a block, 147,456 a token at 512 tokens a block
  const B = 147_456 * 512
  it('GiB to blocks truncates the bytes, then whole blocks (2^30 bytes a GiB)', () => {
    expect(gibToBlocks(1, B)).toBe(14) // 1,073,741,824 / 75,497,472 = 14.2
    expect(gibToBlocks(10, B)).toBe(142)
    expect(gibToBlocks(64, B)).toBe(910) // 68,719,476,736 / 75,497,472 = 910.2
    expect(gibToBlocks(2 ** -20, 1024)).toBe(1)
    expect(gibToBlocks(2 ** -20 - 2 ** -40, 1024)).toBe(0)
    expect(blocksToGib(14, B)).toBe((14 * B) / 2 ** 30)
  })

  it('units: gib and its synonym gb, blocks, fraction; sweep points', () => {
    expect(capacityUnitOf('GiB')).toBe('gib')
    expect(capacityUnitOf('gb')).toBe('gib')
    expect(capacityUnitOf('blocks')).toBe('blocks')
    expect(capacityUnitOf('fraction')).toBe('fraction')
    expect(capacityUnitOf('tb')).toBeUndefined()
    expect(pointCapacity('fraction', 0.25, 10)).toEqual({blocks: 3}) // round(2.5) = 3
    expect(pointCapacity('fraction', 0.0001, 10)).toEqual({blocks: 1})
    expect(pointCapacity('blocks', 7.4, 10)).toEqual({blocks: 7})
    expect(pointCapacity('gib', 1.5, 10)).toEqual({gb: 1.5})
  })

  it('a GiB capacity weighs a block in bytes, needs bytes per token, and holds floor(quota / weight) blocks', () => {
    const inst: InstanceConfig = {
      instance_id: 'i',
      block_size: 512,
      bytes_per_token: 147_456,
      eviction_policy_type: 'lru',
      eviction_policy_params: {},
    }
    const g: GroupConfig = {group_name: 'g', quota_capacity: 64, used_percentage: 1, instances: [inst]}
    expect(weightOf(g, inst)).toBe(B)
    expect(quotaBlocks(g, inst)).toBe(910)
    expect(quotaBlocks({...g, used_percentage: 0.5}, inst)).toBe(455)
    expect(quotaBlocks({...g, quota_capacity: -1}, inst)).toBeNull()
    const blocks: GroupConfig = {
      group_name: 'g',
      quota_capacity_blocks: 910,
      used_percentage: 1,
      instances: [inst],
    }
    expect(weightOf(blocks, inst)).toBe(1)
    expect(quotaBlocks(blocks, inst)).toBe(910)
    const without = {...inst, bytes_per_token: undefined}
    let err: unknown
    try {
      weightOf(g, without)
    } catch (e) {
      err = e
    }
    expect(isLmtError(err) && err.kind).toBe('SIM_BYTES_PER_TOKEN_MISSING')
  })

  it('a rate above the infinite ceiling is a coded error', () => {
    expect(() => checkBelowCeiling('x', 3, 10, 3)).not.toThrow()
    let err: unknown
    try {
      checkBelowCeiling('sweep point 1 blocks, lru', 4, 10, 3)
    } catch (e) {
      err = e
    }
    expect(isLmtError(err) && err.kind).toBe('SIM_ABOVE_CEILING')
    expect((err as Error).message).toContain('token hit rate 0.4 is above the infinite-capacity ceiling 0.3')
  })
})

describe('a sweep in GiB', () => {
  // docs/simulate.md §6.4's example at capacity 1: belady 1 hit, lru 2, infinite 3
  const rows: Row[] = [
    {type: 'write', keys: [1]},
    {type: 'get', keys: [0]},
    {type: 'write', keys: [0]},
    {type: 'get', keys: [1]},
    {type: 'get', keys: [0]},
    {type: 'get', keys: [0]},
  ]
  const oneBlock = String(2 ** -10) // a block of 1 token × 2^20 bytes: 1 MiB

  it('gives Belady at its capacity, as the same sweep in blocks does (not the infinite ceiling)', async () => {
    const trace = traceFile(rows, 1)
    const common = ['simulate', '--trace', trace, '--block-size', '1', '--sweep', '-j', '1']
    const gib = join(dir, 'sweep-gib')
    const summary = await json([
      ...common,
      '--bytes-per-token',
      String(2 ** 20),
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      oneBlock,
      '-o',
      gib,
    ])
    const blocks = join(dir, 'sweep-blocks')
    await json([...common, '--sweep-unit', 'blocks', '--sweep-capacities', '1', '-o', blocks])
    expect(sweepHits(gib)).toEqual({lru: 2, belady: 1, infinite: 3})
    expect((summary.sweep as {unit: string}).unit).toBe('gib')
    expect(validatorFor('simulate-summary.schema.json')(summary)).toBe(true)
    expect(sweepHits(blocks)).toEqual({lru: 2, belady: 1, infinite: 3})
    const csv = readFileSync(join(gib, 'sweep.csv'), 'utf8')
    expect(csv).toContain(`lru,1,0.000976562,1,*,`) // %g of 2^-10
    // gb is the same unit
    const gb = join(dir, 'sweep-gb')
    await json([
      ...common,
      '--bytes-per-token',
      String(2 ** 20),
      '--sweep-unit',
      'gb',
      '--sweep-capacities',
      oneBlock,
      '-o',
      gb,
    ])
    expect(readFileSync(join(gb, 'sweep.csv'), 'utf8')).toBe(csv)
  })

  it('without the bytes of a block is a usage error in the quick form and with a configuration', async () => {
    const trace = traceFile(rows, 1)
    const quick = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '1',
      '--sweep',
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      '1,10',
      '-o',
      join(dir, 'w2'),
      '--json',
    ])
    expect(quick.exitCode).toBe(2)
    expect(quick.stdout).toContain('LMT_CLI_FLAG_NEEDS')
    expect(quick.stdout).toContain('--bytes-per-token or --kv-layout')
    const config = join(dir, 'blocks-config.json')
    writeFileSync(
      config,
      JSON.stringify({
        trace_file_path: trace,
        output_result_path: join(dir, 'w2-config'),
        eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
        instance_groups: [
          {
            group_name: 'g',
            quota_capacity_blocks: 1,
            used_percentage: 1,
            instances: [{instance_id: 'i', block_size: 1, eviction_policy_type: 'lru'}],
          },
        ],
      }),
    )
    const withConfig = await lmt([
      'simulate',
      config,
      '--sweep',
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      '1',
      '--json',
    ])
    expect(withConfig.exitCode).toBe(2)
    expect(withConfig.stdout).toContain('LMT_SIM_BYTES_PER_TOKEN_MISSING')
    const both = await lmt([
      'simulate',
      '--trace',
      trace,
      '--capacity',
      '1',
      '--kv-layout',
      '4x4:uint8',
      '--bytes-per-token',
      '4',
      '--json',
    ])
    expect(both.exitCode).toBe(2)
    expect(both.stdout).toContain('LMT_CLI_FLAGS_EXCLUSIVE')
  })
})

/** random get+write units of one instance over a small key alphabet (prefixes shared, sometimes partly) */
const unitsArb = fc.array(
  fc.record({
    keys: fc.array(fc.integer({min: 0, max: 3}), {minLength: 1, maxLength: 5}),
    cut: fc.integer({min: 0, max: 5}),
  }),
  {minLength: 3, maxLength: 30},
)

/** a path's keys: key j is (j, symbol), so sequences share prefixes and never one key at two depths */
const pathKeys = (keys: number[]) => keys.map((k, j) => j * 4 + k + 1)

describe('one capacity, every way lmt accepts it', () => {
  it('quick form, configuration, sweep and report give the same numbers, none above the ceiling', async () => {
    await fc.assert(
      fc.asyncProperty(
        unitsArb,
        fc.constantFrom(1, 2, 4),
        fc.integer({min: 1, max: 64}),
        fc.integer({min: 1, max: 12}),
        async (units, bs, bpt, n) => {
          const rows: Row[] = units.flatMap((u) => {
            const q = pathKeys(u.keys)
            return [
              {type: 'get' as const, keys: q.slice(0, Math.max(1, q.length - u.cut))},
              {type: 'write' as const, keys: q},
            ]
          })
          const trace = traceFile(rows, bs)
          const gib = (n * bs * bpt) / 2 ** 30 // exact: a small integer times a power of two
          const run = runs
          const out = (name: string) => join(dir, `p${run}-${name}`)
          const quick = ['simulate', '--trace', trace, '--block-size', String(bs), '--oracle', 'all']
          // the quick form, in blocks and in GiB
          const byBlocks = await json([...quick, '--capacity-blocks', String(n), '-o', out('qb')])
          const byGib = await json([
            ...quick,
            '--capacity',
            String(gib),
            '--bytes-per-token',
            String(bpt),
            '-o',
            out('qg'),
          ])
          // a configuration file, in blocks and in GiB
          const config = (cap: Record<string, number>, withBpt: boolean, name: string) => {
            const path = join(dir, `p${run}-${name}.json`)
            writeFileSync(
              path,
              JSON.stringify({
                trace_file_path: trace,
                output_result_path: out(name),
                eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
                instance_groups: [
                  {
                    group_name: 'default',
                    ...cap,
                    used_percentage: 1,
                    instances: [
                      {
                        instance_id: 'i',
                        block_size: bs,
                        ...(withBpt ? {bytes_per_token: bpt} : {}),
                        eviction_policy_type: 'lru',
                      },
                    ],
                  },
                ],
              }),
            )
            return path
          }
          const cfgBlocks = await json([
            'simulate',
            config({quota_capacity_blocks: n}, false, 'cb'),
            '--oracle',
            'all',
          ])
          const cfgGib = await json([
            'simulate',
            config({quota_capacity: gib}, true, 'cg'),
            '--oracle',
            'all',
          ])
          // the bytes of a block as a KV layout: bs × bpt bytes
          const layout = `${bs}x${bpt}:uint8`
          const byLayout = await json([
            ...quick,
            '--capacity',
            String(gib),
            '--kv-layout',
            layout,
            '-o',
            out('ql'),
          ])
          const cfgLayout = await json([
            'simulate',
            config({quota_capacity: gib}, false, 'cl'),
            '--kv-layout',
            layout,
            '--oracle',
            'all',
          ])
          const singles = [byBlocks, byGib, cfgBlocks, cfgGib, byLayout, cfgLayout]
          type Totals = {hit_blocks: number; hit_tokens: number; evictions: number; token_hit_rate: number}
          type Group = {totals: Totals; quota_blocks: number}
          type Oracles = {infinite: Array<{hit_blocks: number}>; belady: Array<{hit_blocks: number}>}
          const facts = singles.map((s) => {
            const g = (s.groups as Group[])[0]
            const o = s.oracles as Oracles
            return {
              quota_blocks: g.quota_blocks,
              hit_blocks: g.totals.hit_blocks,
              hit_tokens: g.totals.hit_tokens,
              evictions: g.totals.evictions,
              belady: o.belady[0].hit_blocks,
              infinite: o.infinite[0].hit_blocks,
            }
          })
          for (const f of facts.slice(1)) expect(f).toEqual(facts[0])
          const [ref] = facts
          expect(ref.quota_blocks).toBe(n)
          expect(ref.hit_blocks).toBeLessThanOrEqual(ref.infinite)
          expect(ref.belady).toBeLessThanOrEqual(ref.infinite)
          // LRU may beat Belady (a miss does not insert): never without a coded warning
          if (ref.hit_blocks > ref.belady)
            expect((byBlocks.notices as Array<{code: string}>).map((x) => x.code)).toContain(
              'LMT_SIM_UNUSUAL_VALUE',
            )
          // a sweep of the one point, in blocks, GiB and as a fraction of the working set
          const sweep = ['simulate', '--trace', trace, '--block-size', String(bs), '--sweep', '-j', '1']
          await json([...sweep, '--sweep-unit', 'blocks', '--sweep-capacities', String(n), '-o', out('sb')])
          await json([
            ...sweep,
            '--sweep-unit',
            'gib',
            '--sweep-capacities',
            String(gib),
            '--bytes-per-token',
            String(bpt),
            '-o',
            out('sg'),
          ])
          const wss = (byBlocks.oracles as Oracles).infinite.length > 0 ? await workingSet(trace, bs) : 0
          await json([
            ...sweep,
            '--sweep-unit',
            'fraction',
            '--sweep-capacities',
            String(n / wss),
            '-o',
            out('sf'),
          ])
          await json([
            ...sweep,
            '--sweep-unit',
            'gib',
            '--sweep-capacities',
            String(gib),
            '--kv-layout',
            layout,
            '-o',
            out('sl'),
          ])
          for (const name of ['sb', 'sg', 'sf', 'sl'])
            expect(sweepHits(out(name))).toEqual({
              lru: ref.hit_blocks,
              belady: ref.belady,
              infinite: ref.infinite,
            })
          // the report's replays at the capacity, in blocks and in GiB
          const report = [
            'report',
            '--trace',
            trace,
            '--block-size',
            String(bs),
            '--policies',
            'lru',
            '-j',
            '1',
          ]
          type Doc = {
            answer: {
              chosen_capacity: {blocks: number}
              over_time: Array<{series: string; token_hit_rate: number}>
            }
          }
          const rb = (await json([
            ...report,
            '--capacity-blocks',
            String(n),
            '-o',
            out('rb.html'),
          ])) as unknown as Doc
          const rg = (await json([
            ...report,
            '--capacity',
            String(gib),
            '--bytes-per-token',
            String(bpt),
            '-o',
            out('rg.html'),
          ])) as unknown as Doc
          const rl = (await json([
            ...report,
            '--capacity',
            String(gib),
            '--kv-layout',
            layout,
            '-o',
            out('rl.html'),
          ])) as unknown as Doc
          for (const r of [rb, rg, rl]) {
            expect(r.answer.chosen_capacity.blocks).toBe(n)
            const lru = r.answer.over_time.find((s) => s.series === 'lru')
            expect(lru?.token_hit_rate).toBe((byBlocks.groups as Group[])[0].totals.token_hit_rate)
          }
        },
      ),
      {numRuns: 8},
    )
  }, 240_000)
})

/** the working set in blocks: the infinite cache's final blocks */
async function workingSet(trace: string, bs: number): Promise<number> {
  const s = await json([
    'simulate',
    '--trace',
    trace,
    '--block-size',
    String(bs),
    '--capacity-blocks',
    '-1',
    '-o',
    join(dir, `wss${runs++}`),
  ])
  return (s.groups as Array<{totals: {final_cached_blocks: number}}>)[0].totals.final_cached_blocks
}
