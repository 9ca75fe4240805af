// simulate --sweep on configurations with a tier_strategy: per-tier columns worked by hand, a point equal to the
// single run at its capacity (the Optimizer's own file), the storage flag, and the oracles that are (not) defined.
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const JULY = join(FIXTURES, 'optimizer-july')
const tmp = tempDir()
afterAll(() => tmp.cleanup())

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** one block = 1 token × 1024 bytes: n blocks are n × 2^-20 GiB */
const KIB = 1024 / 2 ** 30

function tieredConfig(name: string, group: Json, trace: string): string {
  const path = join(tmp.dir, `${name}.json`)
  writeFileSync(
    path,
    JSON.stringify({
      trace_file_path: trace,
      output_result_path: join(tmp.dir, name),
      eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
      instance_groups: [{group_name: 'g', used_percentage: 1.0, quota_capacity: -1, ...group}],
    }),
  )
  return path
}

function trace(name: string, rows: Array<[string, number, number[]]>): string {
  const path = join(tmp.dir, `${name}.jsonl`)
  writeFileSync(
    path,
    rows
      .map(([type, s, keys]) =>
        JSON.stringify({
          type,
          instance_id: 'a',
          timestamp_ns: s * 1e9,
          keys,
          ...(type === 'get' ? {input_len: keys.length} : {}),
        }),
      )
      .join('\n') + '\n',
  )
  return path
}

const instance = (policy: string, params: Json = {shard_count: 1}) => ({
  instance_id: 'a',
  block_size: 1,
  bytes_per_token: 1024,
  eviction_policy_type: policy,
  eviction_policy_params: params,
})

const csvOf = (dir: string) =>
  readFileSync(join(tmp.dir, dir, 'sweep.csv'), 'utf8')
    .trim()
    .split('\n')
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(tmp.dir, dir, 'summary.json'), 'utf8'))

describe('simulate --sweep of a tiered group', () => {
  // three blocks written through to an unlimited SSD, then read back in write order: an HBM tier of 1 or 2 blocks
  // holds none of them when it is read (each promotion pushes out the next block read), 3 blocks hold all
  const scan = trace('scan', [
    ['write', 1, [1]],
    ['write', 2, [2]],
    ['write', 3, [3]],
    ['get', 4, [1]],
    ['get', 5, [2]],
    ['get', 6, [3]],
  ])
  const twoTiers = {
    tier_strategy: {hierarchical_eviction_enabled: true, write_mode: 'write_through'},
    storages: [
      {unique_name: 'hbm', priority: 0, capacity: KIB},
      {unique_name: 'ssd', priority: 1, capacity: -1},
    ],
    instances: [instance('lru')],
  }

  it('gives each tier its hit tokens, rate and final blocks per point, worked by hand', async () => {
    const config = tieredConfig('scan', twoTiers, scan)
    const r = await lmt(['simulate', config, '--sweep', '--sweep-capacities', '1,2,3', '--no-plots'])
    expect(r.exitCode, r.stderr).toBe(0)
    const tierCols =
      'tier0_hit_tokens,tier0_token_hit_rate,tier0_final_blocks,tier1_hit_tokens,tier1_token_hit_rate,tier1_final_blocks'
    // at 1 block: 2 evictions by the writes, 3 by the promotions; at 2 blocks: 1 by the writes, 3 by the promotions
    expect(csvOf('scan')).toEqual([
      `series,capacity_blocks,capacity_gb,quota_blocks,instance_id,requests,read_blocks,hit_blocks,input_tokens,hit_tokens,token_hit_rate,block_hit_rate,evictions,method,${tierCols}`,
      'lru,1,9.53674e-07,1,a,3,3,3,3,3,1,1,5,replay,0,0,1,3,1,3',
      'lru,1,9.53674e-07,1,*,3,3,3,3,3,1,1,5,replay,0,0,1,3,1,3',
      'lru,2,1.90735e-06,2,a,3,3,3,3,3,1,1,4,replay,0,0,2,3,1,3',
      'lru,2,1.90735e-06,2,*,3,3,3,3,3,1,1,4,replay,0,0,2,3,1,3',
      'lru,3,2.86102e-06,3,a,3,3,3,3,3,1,1,0,replay,3,1,3,0,0,3',
      'lru,3,2.86102e-06,3,*,3,3,3,3,3,1,1,0,replay,3,1,3,0,0,3',
      'infinite,inf,inf,inf,a,3,3,3,3,3,1,1,0,replay,3,1,3,0,0,3',
      'infinite,inf,inf,inf,*,3,3,3,3,3,1,1,0,replay,3,1,3,0,0,3',
    ])
    const sweep = summaryOf('scan').sweep
    expect(sweep.unit).toBe('gib')
    expect(sweep.tiers).toEqual({
      names: ['hbm', 'ssd'],
      swept_tier: 'hbm',
      capacities_gb: [null, -1],
      infinite_is_ceiling: true,
    })
    expect(sweep.points[0].tiers).toEqual([
      {tier: 'hbm', hit_tokens: 0, token_hit_rate: 0, final_blocks: 1},
      {tier: 'ssd', hit_tokens: 3, token_hit_rate: 1, final_blocks: 3},
    ])
    expect(sweep.stack).toMatchObject({eligible: false, replayed_points: 3})
    expect(r.stdout).toContain('capacity 1.90735e-06 GiB: lru token hit rate 1 = hbm 0 + ssd 1')
  })

  it('varies the storage --sweep-storage names, the others keeping their capacity', async () => {
    // the HBM tier stays at 1 block; the SSD tier of 1 block holds the last block written only, then the block
    // each read promotes into HBM is gone from the SSD tier only when the SSD tier itself runs over
    const config = tieredConfig('scan-ssd', twoTiers, scan)
    const r = await lmt([
      'simulate',
      config,
      '--sweep',
      '--sweep-storage',
      'ssd',
      '--sweep-capacities',
      '1,3',
      '--no-plots',
      '--quiet',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const rows = csvOf('scan-ssd')
    // 1 block each: both tiers hold block 3 after the writes; reads of 1 and 2 miss (a miss stops the prefix, and
    // a read never inserts), the read of 3 hits in HBM
    expect(rows[1]).toBe('lru,1,9.53674e-07,1,a,3,3,1,3,1,0.333333,0.333333,4,replay,1,0.333333,1,0,0,1')
    expect(rows[3]).toBe('lru,3,2.86102e-06,3,a,3,3,3,3,3,1,1,5,replay,0,0,1,3,1,3')
    expect(summaryOf('scan-ssd').sweep.tiers).toMatchObject({swept_tier: 'ssd', capacities_gb: [KIB, null]})
  })

  it('a point is the single run at its capacity, byte for byte: here the Optimizer’s own file', async () => {
    const c = JSON.parse(readFileSync(join(JULY, 'tiny_t2_wt_promote', 'config.json'), 'utf8'))
    c.trace_file_path = join(JULY, 'tiny_t2_wt_promote', 'trace.jsonl')
    c.output_result_path = join(tmp.dir, 'tiny')
    const path = join(tmp.dir, 'tiny.json')
    writeFileSync(path, JSON.stringify(c))
    const expected = readFileSync(join(JULY, 'tiny_t2_wt_promote', 'expected', 't_hit_rates.csv'), 'utf8')
    // hbm holds 3 blocks of 4 × 256 bytes, ssd 10: the configured capacities, reached from either tier
    for (const [storage, blocks, gib] of [
      ['hbm', '3', 'gib-2.86102e-06'],
      ['ssd', '10', 'gib-9.53674e-06'],
    ]) {
      const r = await lmt([
        'simulate',
        path,
        '--sweep',
        '--sweep-storage',
        storage,
        '--sweep-capacities',
        `1,${blocks}`,
        '--keep-point-csv',
        '--no-plots',
        '--quiet',
      ])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(join(tmp.dir, 'tiny', 'points', gib, 't_hit_rates.csv'), 'utf8')).toBe(expected)
    }
  })

  /** a July case's configuration, its trace and output folder filled in */
  const julyCase = (name: string) => {
    const c = JSON.parse(readFileSync(join(JULY, name, 'config.json'), 'utf8'))
    c.trace_file_path = join(JULY, name, readFileSync(join(JULY, name, 'trace.ref'), 'utf8').trim())
    c.output_result_path = join(tmp.dir, name)
    const path = join(tmp.dir, `${name}.json`)
    writeFileSync(path, JSON.stringify(c))
    const g = c.instance_groups[0]
    return {
      path,
      gib: String(g.tier_strategy.hierarchical_eviction_enabled ? g.storages[0].capacity : g.quota_capacity),
    }
  }

  // the sharded LRU's shards (key values, not ids), rows' ttl_us, equal timestamps in std::sort's order, request
  // rows with their delay: each point is the single run, on this thread and on a worker thread
  it.each(['t2_lru_default_gen', 'ttl_rowttl_gen', 'ties_t2_mc', 'req_delay30ms_ttl_t2_gen'])(
    'a point of %s is the Optimizer’s own run at that capacity',
    async (name) => {
      const {path, gib} = julyCase(name)
      const expected = join(JULY, name, 'expected')
      const files = readdirSync(expected)
      const kept = await lmt([
        'simulate',
        path,
        '--sweep',
        '--sweep-unit',
        'gib',
        '--sweep-capacities',
        gib,
        '--keep-point-csv',
        '--no-plots',
        '--quiet',
      ])
      expect(kept.exitCode, kept.stderr).toBe(0)
      const [point] = readdirSync(join(tmp.dir, name, 'points'))
      for (const f of files)
        expect(readFileSync(join(tmp.dir, name, 'points', point, f), 'utf8')).toBe(
          readFileSync(join(expected, f), 'utf8'),
        )
      // two points on two threads: a worker plays the first
      const threads = await lmt([
        'simulate',
        path,
        '--sweep',
        '--sweep-unit',
        'gib',
        '--sweep-capacities',
        `${gib},1`,
        '--jobs',
        '2',
        '--no-plots',
        '--quiet',
      ])
      expect(threads.exitCode, threads.stderr).toBe(0)
      const accHitTokens = files.reduce((sum, f) => {
        const lines = readFileSync(join(expected, f), 'utf8').trim().split('\n')
        const col = lines[0].split(',').indexOf('AccHitTokens')
        return sum + Number(lines[lines.length - 1].split(',')[col])
      }, 0)
      const first = summaryOf(name).sweep.points[0]
      expect(first.tiers.reduce((a: number, t: Json) => a + t.hit_tokens, 0)).toBe(accHitTokens)
    },
  )

  it('says at which points a TTL under tiers stranded blocks, as the single run says it', async () => {
    // ttl, write_through, promotion and propagation off, refresh on, TTL 2 s: the configuration that makes the
    // Optimizer read a freed block (docs/simulate.md §10.6)
    const c = JSON.parse(readFileSync(join(JULY, 't2_wt_gen', 'config.json'), 'utf8'))
    c.trace_file_path = join(JULY, 'traces', 'gen.jsonl')
    c.output_result_path = join(tmp.dir, 'stranded')
    const g = c.instance_groups[0]
    g.tier_strategy = {...g.tier_strategy, promote_enabled: false, access_propagation_enabled: false}
    g.default_block_ttl_seconds = 2
    g.instances[0].eviction_policy_type = 'ttl'
    g.instances[0].eviction_policy_params = {}
    const path = join(tmp.dir, 'stranded.json')
    writeFileSync(path, JSON.stringify(c))
    const r = await lmt([
      'simulate',
      path,
      '--sweep',
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      `${g.storages[0].capacity},1`,
      '--jobs',
      '2',
      '--no-plots',
      '--quiet',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const warning = summaryOf('stranded').notices.find((n: Json) => n.code === 'LMT_SIM_TTL_STRANDED')
    expect(warning?.level).toBe('warning')
    expect(warning?.message).toMatch(/^at [12] of the 2 points, up to \d+ blocks expired through one tier/)
    const clean = await lmt([
      'simulate',
      julyCase('ttl_t2_casc_gen').path,
      '--sweep',
      '--sweep-points',
      '3',
      '--no-plots',
      '--quiet',
    ])
    expect(clean.exitCode, clean.stderr).toBe(0)
    expect(summaryOf('ttl_t2_casc_gen').notices.map((n: Json) => n.code)).not.toContain(
      'LMT_SIM_TTL_STRANDED',
    )
  })

  it('takes fractions of the working set in bytes when the instances’ blocks differ in size, worked by hand', async () => {
    // a: 2 blocks of 1 KiB, b: 1 block of 3 KiB; the working set is 5 KiB, in units of 1 KiB (the largest size both
    // block sizes are multiples of): fractions 0.2, 0.6 and 1 are 1, 3 and 5 KiB
    const path = join(tmp.dir, 'two-sizes.jsonl')
    const rows: Array<[string, string, number, number[]]> = [
      ['write', 'a', 1, [1, 2]],
      ['write', 'b', 2, [1]],
      ['get', 'a', 3, [1, 2]],
      ['get', 'b', 4, [1]],
    ]
    writeFileSync(
      path,
      rows
        .map(([type, id, s, keys]) =>
          JSON.stringify({
            type,
            instance_id: id,
            timestamp_ns: s * 1e9,
            keys,
            ...(type === 'get' ? {input_len: keys.length} : {}),
          }),
        )
        .join('\n') + '\n',
    )
    const config = tieredConfig(
      'two-sizes',
      {
        tier_strategy: {hierarchical_eviction_enabled: true},
        storages: [{unique_name: 'hbm', priority: 0, capacity: -1}],
        instances: [
          {...instance('lru'), instance_id: 'a'},
          {...instance('lru'), instance_id: 'b', bytes_per_token: 3072},
        ],
      },
      path,
    )
    const r = await lmt([
      'simulate',
      config,
      '--sweep',
      '--sweep-unit',
      'fraction',
      '--sweep-capacities',
      '0.2,0.6,1',
      '--no-plots',
      '--quiet',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    // 1 KiB: a's write keeps one block (the prefix misses), b's block is evicted; 3 KiB: a keeps both, b's 3 KiB
    // block does not fit beside them (mode 3 evicts the writer's); 5 KiB: everything fits
    expect(csvOf('two-sizes').filter((l) => l.includes(',*,'))).toEqual([
      'lru,,9.53674e-07,,*,2,3,0,3,0,0,0,2,replay,0,0,1',
      'lru,,2.86102e-06,,*,2,3,2,3,2,0.666667,0.666667,1,replay,2,0.666667,2',
      'lru,,4.76837e-06,,*,2,3,3,3,3,1,1,0,replay,3,1,3',
      'infinite,inf,inf,inf,*,2,3,3,3,3,1,1,0,replay,3,1,3',
    ])
    const blocks = await lmt(['simulate', config, '--sweep', '--sweep-capacities', '1,2', '--no-plots'])
    expect(blocks.exitCode).toBe(2)
    expect(blocks.stderr).toMatch(
      /a sweep of a tiered group in blocks needs one block size in bytes across the group \(its instances' are 1024, 3072\)\nhint: sweep in GiB \(--sweep-unit gib\) or in fractions of the working set \(--sweep-unit fraction\)/,
    )
  })

  it('refuses a storage that is not one, or one of a group without per-storage capacities', async () => {
    const config = tieredConfig('bad', twoTiers, scan)
    const unknown = await lmt(['simulate', config, '--sweep', '--sweep-storage', 'nvme', '--no-plots'])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toMatch(
      /--sweep-storage: "nvme" is not a storage of group "g"\nhint: use one of hbm, ssd/,
    )
    const shared = tieredConfig(
      'shared',
      {...twoTiers, tier_strategy: {hierarchical_eviction_enabled: false}, quota_capacity: KIB},
      scan,
    )
    const flat = await lmt(['simulate', shared, '--sweep', '--sweep-storage', 'ssd', '--no-plots'])
    expect(flat.exitCode).toBe(2)
    expect(flat.stderr).toMatch(
      /--sweep-storage needs a group with a tier_strategy and hierarchical eviction/,
    )
    // without it, the sweep varies the shared quota: 3 blocks hold the scan, every hit in tier 0, "shared"
    const ok = await lmt(['simulate', shared, '--sweep', '--sweep-capacities', '3', '--no-plots', '--quiet'])
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(csvOf('shared')[1]).toBe('lru,3,2.86102e-06,3,a,3,3,3,3,3,1,1,0,replay,3,1,3')
    expect(summaryOf('shared').sweep.tiers.names).toEqual(['shared'])
  })

  it('with blocks that can expire, a capacity may beat every tier unlimited: reported, not taken for a ceiling', async () => {
    // TTL 10 s. Unlimited: block 1 written at 1 s is present when written again at 5 s (a write does not refresh
    // it) and has expired at 12 s. One block: writing 2 evicts 1, writing 1 again revives it with a fresh TTL
    // (5 s + 10 s), so the read at 12 s hits.
    const ttl = trace('ttl', [
      ['write', 1, [1]],
      ['write', 2, [2]],
      ['write', 5, [1]],
      ['get', 12, [1]],
    ])
    const config = tieredConfig(
      'ttl',
      {
        default_block_ttl_seconds: 10,
        tier_strategy: {hierarchical_eviction_enabled: true},
        storages: [{unique_name: 'hbm', priority: 0, capacity: KIB}],
        instances: [instance('ttl', {})],
      },
      ttl,
    )
    const single = await lmt(['simulate', config, '--oracle', 'all', '--no-plots', '--json'])
    expect(single.exitCode, single.stderr).toBe(0)
    const s = summaryOf('ttl')
    expect(s.groups[0].totals.hit_tokens).toBe(1)
    expect(s.oracles.infinite[0].token_hit_rate).toBe(0)
    expect(s.oracles.belady).toBeNull()
    const messages = s.notices.map((n: {message: string}) => n.message).join('\n')
    expect(messages).toMatch(/no Belady reference for a configuration with a tier_strategy/)
    const sweep = await lmt([
      'simulate',
      config,
      '--sweep',
      '--sweep-capacities',
      '1',
      '--no-plots',
      '--quiet',
    ])
    expect(sweep.exitCode, sweep.stderr).toBe(0)
    expect(csvOf('ttl').slice(1)).toEqual([
      'ttl,1,9.53674e-07,1,a,1,1,1,1,1,1,1,2,replay,1,1,1',
      'ttl,1,9.53674e-07,1,*,1,1,1,1,1,1,1,2,replay,1,1,1',
      'infinite,inf,inf,inf,a,1,1,0,1,0,0,0,0,replay,0,0,1',
      'infinite,inf,inf,inf,*,1,1,0,1,0,0,0,0,replay,0,0,1',
    ])
    expect(summaryOf('ttl').sweep.tiers.infinite_is_ceiling).toBe(false)
  })
})
