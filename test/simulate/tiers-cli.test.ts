// lmt simulate on configurations of the July-2026 generation (a tier_strategy in a group): what it says and refuses
// beyond the byte comparisons of optimizer-july.test.ts.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const JULY = join(FIXTURES, 'optimizer-july')
const GEN = join(JULY, 'traces', 'gen.jsonl')
const tmp = tempDir()
afterAll(() => tmp.cleanup())

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** the config of July case `name` with its trace and an output folder of its own */
function caseConfig(name: string, out: string): Json {
  const c = JSON.parse(readFileSync(join(JULY, name, 'config.json'), 'utf8'))
  c.trace_file_path = GEN
  c.output_result_path = join(tmp.dir, out)
  return c
}

/** July case `name` played on its own trace, with its expected CSV of instance `id` */
function ownTrace(name: string, out: string, id = 't'): {c: Json; expected: string; csv: () => string} {
  const c = caseConfig(name, out)
  c.trace_file_path = join(JULY, name, 'trace.jsonl')
  return {
    c,
    expected: readFileSync(join(JULY, name, 'expected', `${id}_hit_rates.csv`), 'utf8'),
    csv: () => readFileSync(join(c.output_result_path, `${id}_hit_rates.csv`), 'utf8'),
  }
}

async function run(c: Json, file: string) {
  const path = join(tmp.dir, file)
  writeFileSync(path, JSON.stringify(c))
  const r = await lmt(['simulate', path, '--no-plots', '--quiet', '--json'])
  const summary =
    r.exitCode === 0
      ? JSON.parse(readFileSync(join(c.output_result_path, 'summary.json'), 'utf8'))
      : undefined
  return {...r, summary}
}

const codes = (summary: Json) => summary.notices.map((n: {code: string}) => n.code)

describe('tiered configurations', () => {
  it('a TTL under tiers that strands blocks in the reference runs to the end with a warning saying what lmt did', async () => {
    // the configuration that makes the Optimizer read a freed block: ttl, write_through, promotion and
    // propagation off, refresh on, default TTL 2 s
    const c = caseConfig('t2_wt_gen', 'stranded')
    const g = c.instance_groups[0]
    g.tier_strategy = {
      hierarchical_eviction_enabled: true,
      write_mode: 'write_through',
      promote_enabled: false,
      access_propagation_enabled: false,
    }
    g.default_block_ttl_seconds = 2
    g.ttl_refresh_on_read = true
    g.instances[0].eviction_policy_type = 'ttl'
    g.instances[0].eviction_policy_params = {}
    const r = await run(c, 'stranded.json')
    expect(r.exitCode, r.stderr).toBe(0)
    const warning = r.summary.notices.find((n: {code: string}) => n.code === 'LMT_SIM_TTL_STRANDED')
    expect(warning?.level).toBe('warning')
    expect(warning?.message).toMatch(
      /^\d+ blocks expired through one tier .* lmt removed them from every tier/,
    )
    expect(existsSync(join(c.output_result_path, 'gen_hit_rates.csv'))).toBe(true)
  })

  it('a ghost-free TTL configuration gets no such warning', async () => {
    const r = await run(caseConfig('ttl_t2_casc_gen', 'clean'), 'clean.json')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(codes(r.summary)).not.toContain('LMT_SIM_TTL_STRANDED')
  })

  it('an lru without shard_count is sharded, with a notice; shard_count 1 is exact LRU, without one', async () => {
    const sharded = await run(caseConfig('t2_lru_default_gen', 'sharded'), 'sharded.json')
    expect(sharded.exitCode, sharded.stderr).toBe(0)
    expect(codes(sharded.summary)).toContain('LMT_SIM_SHARDED_LRU')
    const exact = await run(caseConfig('t2_casc_gen', 'exact'), 'exact.json')
    expect(codes(exact.summary)).not.toContain('LMT_SIM_SHARDED_LRU')
  })

  it('the CSV names each tier in its columns, in priority order', async () => {
    const c = caseConfig('t3_wt_gen', 'three')
    const r = await run(c, 'three.json')
    expect(r.exitCode, r.stderr).toBe(0)
    const header = readFileSync(join(c.output_result_path, 'gen_hit_rates.csv'), 'utf8').split('\n')[0]
    expect(header.split(',').slice(24)).toEqual([
      'Tier0(hbm)_HitTokens',
      'Tier1(dram)_HitTokens',
      'Tier2(ssd)_HitTokens',
      'Tier0(hbm)_HitRate',
      'Tier1(dram)_HitRate',
      'Tier2(ssd)_HitRate',
      'AccTier0(hbm)_HitRate',
      'AccTier1(dram)_HitRate',
      'AccTier2(ssd)_HitRate',
      'Tier0(hbm)_BlockNum',
      'Tier1(dram)_BlockNum',
      'Tier2(ssd)_BlockNum',
    ])
  })

  it.each([
    [
      'several storages without a tier_strategy',
      (c: Json) => delete c.instance_groups[0].tier_strategy,
      /missing required tier_strategy/,
    ],
    [
      'an unknown write mode',
      (c: Json) => (c.instance_groups[0].tier_strategy.write_mode = 'write_back'),
      /write_mode is invalid: write_back/,
    ],
    [
      'a selective threshold of 0',
      (c: Json) => (c.instance_groups[0].tier_strategy.selective_write_threshold = 0),
      /selective_write_threshold must be positive/,
    ],
    [
      'a flow that skips a tier',
      (c: Json) => (c.instance_groups[0].tier_strategy.tier_flows = [{from_tier: 'hbm', to_tier: 'ssd'}]),
      /not an adjacent priority edge/,
    ],
    ['no eviction_mode', (c: Json) => delete c.eviction_params.eviction_mode, /eviction_mode is required/],
  ])('refuses %s, as the Optimizer does', async (_what, change, message) => {
    const c = caseConfig('t3_wt_gen', 'refused')
    change(c)
    const r = await run(c, 'refused.json')
    expect(r.exitCode).not.toBe(0)
    expect(r.stdout + r.stderr).toMatch(message)
    expect(existsSync(join(c.output_result_path, 'gen_hit_rates.csv'))).toBe(false)
  })

  it('an eviction_mode of 4 is accepted and never evicts: the run equals the one with unlimited tiers', async () => {
    const four = ownTrace('tiny_t2_wt_promote', 'mode4')
    four.c.eviction_params.eviction_mode = 4
    const r = await run(four.c, 'mode4.json')
    expect(r.exitCode, r.stderr).toBe(0)
    const warning = r.summary.notices.find((n: {message: string}) => /eviction_mode 4/.test(n.message))
    expect(warning).toMatchObject({code: 'LMT_SIM_UNUSUAL_VALUE', level: 'warning'})
    const unlimited = ownTrace('tiny_t2_wt_promote', 'unlimited')
    for (const s of unlimited.c.instance_groups[0].storages) s.capacity = -1
    expect((await run(unlimited.c, 'unlimited.json')).exitCode).toBe(0)
    expect(four.csv()).toBe(unlimited.csv())
    // mode 3 at the configured capacities evicts (22 blocks from hbm): a different file
    expect(four.csv()).not.toBe(four.expected)
    // a configuration without tier_strategy keeps modes 1–3 only
    const old = caseConfig('t1_hier_single_gen', 'old')
    delete old.instance_groups[0].tier_strategy
    old.eviction_params.eviction_mode = 4
    const refused = await run(old, 'old.json')
    expect(refused.exitCode).toBe(2)
    expect(refused.stdout + refused.stderr).toMatch(
      /eviction_mode must be equal to one of the allowed values: 1, 2, 3/,
    )
  })

  it.each([
    [
      'a group without storages',
      (c: Json) =>
        c.instance_groups.push({...structuredClone(c.instance_groups[0]), group_name: 'e', storages: []}),
      /\/instance_groups\/1 skipped with its instances, as the Optimizer skips it: it has no storages/,
    ],
    [
      'a group whose name appears earlier',
      (c: Json) => c.instance_groups.push(structuredClone(c.instance_groups[0])),
      /\/instance_groups\/1 skipped with its instances, as the Optimizer skips it: its group_name "g" appears earlier/,
    ],
    [
      'an instance whose id appears earlier',
      (c: Json) => {
        const twin = structuredClone(c.instance_groups[0].instances[0])
        twin.eviction_policy_type = 'random_lru'
        c.instance_groups[0].instances.push(twin)
      },
      /\/instance_groups\/0\/instances\/1 skipped, as the Optimizer skips it: its instance_id "t" appears earlier/,
    ],
  ])(
    'skips %s with a warning, as the Optimizer does: the first one plays unchanged',
    async (_what, change, message) => {
      const {c, expected, csv} = ownTrace('tiny_t2_wt_promote', 'skip')
      change(c)
      const r = await run(c, 'skip.json')
      expect(r.exitCode, r.stderr).toBe(0)
      const warning = r.summary.notices.find((n: {code: string}) => n.code === 'LMT_SIM_SKIPPED_CONFIG')
      expect(warning?.level).toBe('warning')
      expect(warning?.message).toMatch(message)
      expect(csv()).toBe(expected)
      expect(r.summary.instances.map((i: {instance_id: string}) => i.instance_id)).toEqual(['t'])
    },
  )

  it('refuses a configuration whose every group is skipped', async () => {
    const {c} = ownTrace('tiny_t2_wt_promote', 'none')
    c.instance_groups[0].storages = []
    const r = await run(c, 'none.json')
    expect(r.exitCode).toBe(2)
    expect(r.stdout + r.stderr).toMatch(/no instance remains once the skipped groups are left out/)
  })

  it('lmt report plays a tiered configuration tier by tier rather than untiered', async () => {
    const c = caseConfig('t2_wt_gen', 'sweep')
    const path = join(tmp.dir, 'sweep.json')
    writeFileSync(path, JSON.stringify(c))
    const report = await lmt(['report', path, '-o', join(tmp.dir, 'report.html'), '--no-progress'])
    expect(report.exitCode, report.stderr).toBe(0)
    expect(report.stderr).not.toMatch(/does not play configurations with a tier_strategy/)
    expect(report.stdout).toMatch(/^at hbm [\d.e-]+ GiB: [\d.]+ token hit rate: hbm [\d.]+, ssd [\d.]+$/m)
  })

  it('--kv-layout is refused by simulate and report: a tiered group sizes its blocks by its instances', async () => {
    const c = caseConfig('t2_wt_gen', 'kv-layout')
    const path = join(tmp.dir, 'kv-layout.json')
    writeFileSync(path, JSON.stringify(c))
    const layout = ['--kv-layout', '2x36x512x8x128:bfloat16']
    for (const args of [
      ['simulate', path, ...layout, '--no-plots', '--json'],
      ['simulate', path, ...layout, '--sweep', '--sweep-capacities', '1,2', '--no-plots', '--json'],
      ['report', path, ...layout, '-o', join(tmp.dir, 'kv-layout.html'), '--json'],
    ]) {
      const r = await lmt(args)
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(JSON.parse(r.stdout).error).toMatchObject({
        code: 'LMT_CLI_FLAG_NEEDS',
        message: '--kv-layout needs a configuration without tier_strategy',
      })
      expect(JSON.parse(r.stdout).error.hint).toMatch(/block_size × bytes_per_token/)
    }
    expect(existsSync(c.output_result_path)).toBe(false)
    expect(existsSync(join(tmp.dir, 'kv-layout.html'))).toBe(false)
  })

  it('a group with one storage and no tier_strategy keeps lmt’s own form (24 columns)', async () => {
    const c = caseConfig('t1_hier_single_gen', 'own')
    const g = c.instance_groups[0]
    delete g.tier_strategy
    g.quota_capacity = 0.0244140625
    g.instances[0].eviction_policy_params = {}
    const r = await run(c, 'own.json')
    expect(r.exitCode, r.stderr).toBe(0)
    const header = readFileSync(join(c.output_result_path, 'gen_hit_rates.csv'), 'utf8').split('\n')[0]
    expect(header.split(',')).toHaveLength(24)
    expect(codes(r.summary)).not.toContain('LMT_SIM_SHARDED_LRU')
  })
})
