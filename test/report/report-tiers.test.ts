/// <reference lib="dom" />
// lmt report on a tiered configuration (a tier_strategy in a group): its answer is simulate --sweep's, tier by tier,
// and the tiers add up to the group's total as simulate's sweep.csv gives it; the page renders in Chromium.
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {chromium} from 'playwright-core'
import {afterAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../src/schemas.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const JULY = join(FIXTURES, 'optimizer-july')
const CHROMIUM = '/usr/bin/chromium'
const tmp = tempDir()
afterAll(() => tmp.cleanup())

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** July case t2_wt_gen (HBM then SSD, write-through) on the July traces' gen.jsonl */
function tieredConfig(): string {
  const c = JSON.parse(readFileSync(join(JULY, 't2_wt_gen', 'config.json'), 'utf8'))
  c.trace_file_path = join(JULY, 'traces', 'gen.jsonl')
  c.output_result_path = join(tmp.dir, 'unused')
  const path = join(tmp.dir, 't2_wt_gen.json')
  writeFileSync(path, JSON.stringify(c))
  return path
}

async function report(args: string[]): Promise<Json> {
  const r = await lmt(['report', ...args, '--json', '--no-progress'])
  expect(r.exitCode, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

/** simulate --sweep's summary.json and the group's total hit tokens of each point from its sweep.csv */
async function simulateSweep(config: string, out: string, args: string[]) {
  const dir = join(tmp.dir, out)
  const r = await lmt([
    'simulate',
    config,
    '--sweep',
    '--oracle',
    'none',
    '--no-plots',
    '-q',
    '-o',
    dir,
    ...args,
  ])
  expect(r.exitCode, r.stderr).toBe(0)
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'))
  const csv = readFileSync(join(dir, 'sweep.csv'), 'utf8').trim().split('\n')
  const head = csv[0].split(',')
  const totals = csv
    .slice(1)
    .map((l) => l.split(','))
    .filter((c) => c[head.indexOf('instance_id')] === '*' && c[0] !== 'infinite')
    .map((c) => ({
      hitTokens: Number(c[head.indexOf('hit_tokens')]),
      rate: Number(c[head.indexOf('token_hit_rate')]),
    }))
  return {sweep: summary.sweep, totals}
}

/** the point's tiers add up to its total, and the total is simulate's */
function expectSums(p: Json, total: {hitTokens: number; rate: number}) {
  expect(p.tiers.reduce((a: number, t: Json) => a + t.hit_tokens, 0)).toBe(p.hit_tokens)
  expect(p.hit_tokens).toBe(total.hitTokens)
  expect(p.tiers.reduce((a: number, t: Json) => a + t.token_hit_rate, 0)).toBeCloseTo(p.token_hit_rate, 12)
  expect(p.token_hit_rate).toBeCloseTo(total.rate, 5) // sweep.csv prints six significant digits
}

describe('lmt report of a tiered configuration', () => {
  const config = tieredConfig()

  it('gives every point and the chosen one tier by tier, as simulate --sweep does', async () => {
    const html = join(tmp.dir, 'default.html')
    const doc = await report([config, '-o', html])
    const sim = await simulateSweep(config, 'default', ['--sweep-points', '12'])
    const a = doc.answer
    const validate = validatorFor('tiers-report.schema.json')
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true)
    expect(validate({...doc, format: 'lmt.report'})).toBe(false)
    expect(a.tiers).toEqual(sim.sweep.tiers.names)
    expect(a.swept_tier).toBe('hbm')
    expect(a.points).toHaveLength(12)
    a.points.forEach((p: Json, i: number) => {
      expect(p.capacity_gb).toBe(sim.sweep.points[i].capacity_gb)
      expect(p.tiers).toEqual(sim.sweep.points[i].tiers)
      expectSums(p, sim.totals[i])
    })
    // the chosen capacity is a point of the grid: the smallest at 90 % of every tier unlimited
    const at = a.points.findIndex((p: Json) => p.capacity_gb === a.chosen.capacity_gb)
    expect(a.chosen.source).toBe('ceiling_90')
    expect(a.chosen.tiers).toEqual(sim.sweep.points[at].tiers)
    expect(a.chosen.token_hit_rate).toBeGreaterThanOrEqual(0.9 * a.infinite.token_hit_rate)
    expect(a.points.slice(0, at).every((p: Json) => p.token_hit_rate < 0.9 * a.infinite.token_hit_rate)).toBe(
      true,
    )
    // the page names each tier's share in words, and says what it leaves out
    const page = readFileSync(html, 'utf8')
    const shares = a.chosen.tiers.map((t: Json) => `${t.tier} ${t.token_hit_rate.toFixed(3)}`).join(', ')
    expect(page).toContain(`<b>${a.chosen.token_hit_rate.toFixed(3)}</b> token hit rate: <b>${shares}</b>`)
    expect(page).toMatch(/Left out for tiers: <b>Belady \(next need\) reference<\/b>/)
    expect(page).not.toContain('lmt-report-tiers-') // the temporary folder of the sweep
  })

  it('characterizes the trace as the untiered report does, with the same section on the page', async () => {
    const html = join(tmp.dir, 'trace.html')
    const doc = await report([config, '--points', '3', '-o', html])
    const untiered = await report([
      '--trace',
      join(JULY, 'traces', 'gen.jsonl'),
      '--block-size',
      '64',
      '--points',
      '3',
      '-o',
      join(tmp.dir, 'untiered.html'),
    ])
    expect(doc.characterization).toEqual(untiered.characterization)
    expect(doc.characterization.instances[0]).toMatchObject({instance_id: 'gen', requests: 360})
    const page = readFileSync(html, 'utf8')
    const section = (p: string) =>
      p.slice(p.indexOf('<section id="trace">'), p.indexOf('</section>', p.indexOf('<section id="trace">')))
    expect(section(page)).toBe(section(readFileSync(join(tmp.dir, 'untiered.html'), 'utf8')))
    expect(page).toContain('id="chart-reuse-distance"')
    // bins of a 14 s trace are below a second: their width is not "0 s"
    expect(page).toMatch(/requests per 0\.\d+ s/)
    expect(page).not.toMatch(/ per 0 s/)
  })

  it.skipIf(!existsSync(CHROMIUM))('draws the total and every tier in headless Chromium', async () => {
    const html = join(tmp.dir, 'browser.html')
    const doc = await report([config, '-o', html])
    const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'lmt-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    })
    try {
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (e) => problems.push(e.message))
      page.on('requestfailed', (q) => problems.push(q.url()))
      await page.goto(`file://${html}`)
      await page.waitForSelector('body[data-rendered="true"]', {timeout: 30_000})
      const marks = await page.evaluate(() => {
        const state = (window as unknown as {lmtReport: {errors: string[]; markCounts(id: string): Json}})
          .lmtReport
        return {errors: state.errors, counts: state.markCounts('chart-tiers')}
      })
      expect(problems).toEqual([])
      expect(marks.errors).toEqual([])
      // one point per capacity for the total and for each tier
      expect(marks.counts.points_marks).toBe(doc.answer.points.length * (doc.answer.tiers.length + 1))
    } finally {
      await context.close()
    }
  })

  it('varies --sweep-storage and answers at --capacity, as simulate --sweep-storage does there', async () => {
    const doc = await report([
      config,
      '--sweep-storage',
      'ssd',
      '--capacity',
      '0.01',
      '-o',
      join(tmp.dir, 's.html'),
    ])
    const sim = await simulateSweep(config, 'ssd', [
      '--sweep-storage',
      'ssd',
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      '0.01',
    ])
    const a = doc.answer
    expect(a.swept_tier).toBe('ssd')
    expect(a.chosen).toMatchObject({capacity_gb: 0.01, source: 'flag'})
    expect(a.chosen.tiers).toEqual(sim.sweep.points[0].tiers)
    expectSums(a.chosen, sim.totals[0])
    expect(a.capacities_gb).toEqual(sim.sweep.tiers.capacities_gb)
  })

  it('refuses what does not apply to tiers, and --sweep-storage without them', async () => {
    const blocks = await lmt(['report', config, '--capacity-blocks', '10', '-o', join(tmp.dir, 'b.html')])
    expect(blocks.exitCode).toBe(2)
    expect(blocks.stderr).toMatch(/--capacity-blocks needs a configuration without tier_strategy/)
    const plain = await lmt([
      'report',
      '--trace',
      join(JULY, 'traces', 'gen.jsonl'),
      '--sweep-storage',
      'ssd',
      '-o',
      join(tmp.dir, 'p.html'),
    ])
    expect(plain.exitCode).toBe(2)
    expect(plain.stderr).toMatch(/--sweep-storage needs a configuration with a tier_strategy/)
    // several groups: the report's own --group, not simulate's --sweep-group
    const c = JSON.parse(readFileSync(join(JULY, 'two_groups_genxy', 'config.json'), 'utf8'))
    c.trace_file_path = join(JULY, 'traces', 'genxy.jsonl')
    const two = join(tmp.dir, 'two-groups.json')
    writeFileSync(two, JSON.stringify(c))
    const needed = await lmt(['report', two, '-o', join(tmp.dir, 't.html')])
    expect(needed.exitCode).toBe(2)
    expect(needed.stderr).toMatch(/several groups \(gx, gy\): name the one to answer for with --group/)
    const unknown = await lmt(['report', two, '--group', 'x', '-o', join(tmp.dir, 't.html')])
    expect(unknown.stderr).toMatch(/--group: no group "x"/)
  })
})

describe('lmt report of a trace of request rows, as simulate replays them', () => {
  /** the July case's configuration, its trace filled in */
  const julyConfig = (name: string, edit: (c: Json) => void = () => {}) => {
    const c = JSON.parse(readFileSync(join(JULY, name, 'config.json'), 'utf8'))
    c.trace_file_path = join(JULY, name, readFileSync(join(JULY, name, 'trace.ref'), 'utf8').trim())
    c.output_result_path = join(tmp.dir, 'unused')
    edit(c)
    const path = join(tmp.dir, `${name}.json`)
    writeFileSync(path, JSON.stringify(c))
    return {path, config: c}
  }
  /** the group's AccHitTokens at the end of the Optimizer's own run */
  const optimizerHitTokens = (name: string, file: string) => {
    const lines = readFileSync(join(JULY, name, 'expected', file), 'utf8')
      .trim()
      .split('\n')
    return Number(lines[lines.length - 1].split(',')[lines[0].split(',').indexOf('AccHitTokens')])
  }

  it('a tiered configuration: request rows, their 30 ms write delay and TTLs, at the configured capacity', async () => {
    const name = 'req_delay30ms_ttl_t2_gen'
    const {path, config} = julyConfig(name)
    const hbm = config.instance_groups[0].storages[0].capacity
    const doc = await report([
      path,
      '--capacity',
      String(hbm),
      '--points',
      '3',
      '-o',
      join(tmp.dir, 'r.html'),
    ])
    expect(doc.answer.chosen.capacity_gb).toBe(hbm)
    expect(doc.answer.chosen.hit_tokens).toBe(optimizerHitTokens(name, 'gen_hit_rates.csv'))
    // writes 30 ms after their reads are no get+write units: the page says why reuse distance is not measured
    expect(doc.characterization.instances[0].reuse_distance.available).toBe(false)
    expect(readFileSync(join(tmp.dir, 'r.html'), 'utf8')).toContain(
      'it stopped at <b>gen</b>: gets and writes do not pair up in the trace (line 1: a get not followed by its write)',
    )
    // --write-delay-ns is simulate's: the writes land 1 ns after their reads, as simulate --write-delay-ns 1 plays it
    const quick = await report([
      path,
      '--capacity',
      String(hbm),
      '--points',
      '3',
      '--write-delay-ns',
      '1',
      '-o',
      join(tmp.dir, 'r1.html'),
    ])
    const sim = await simulateSweep(path, 'req1', [
      '--write-delay-ns',
      '1',
      '--sweep-unit',
      'gib',
      '--sweep-capacities',
      String(hbm),
    ])
    expectSums(quick.answer.chosen, sim.totals[0])
    expect(quick.answer.chosen.hit_tokens).not.toBe(doc.answer.chosen.hit_tokens)
  })

  it('a configuration without tiers: --replay-mode request and --write-delay-ns, worked by hand', async () => {
    // two requests of the same two blocks, 1 s apart: with a 1 ns delay the first one's write lands before the
    // second request, which hits both blocks (2 of 4 tokens, with every capacity); with a 2 s delay it lands after
    const trace = join(tmp.dir, 'requests.jsonl')
    writeFileSync(
      trace,
      [1, 2]
        .map((s) =>
          JSON.stringify({
            type: 'request',
            instance_id: 'a',
            timestamp_ns: s * 1e9,
            keys: [1, 2],
            input_len: 2,
          }),
        )
        .join('\n') + '\n',
    )
    const path = join(tmp.dir, 'requests.json')
    writeFileSync(
      path,
      JSON.stringify({
        trace_file_path: trace,
        eviction_params: {eviction_mode: 3},
        instance_groups: [
          {
            group_name: 'g',
            quota_capacity_blocks: 2,
            instances: [{instance_id: 'a', block_size: 1, eviction_policy_type: 'lru'}],
          },
        ],
      }),
    )
    const refused = await lmt(['report', path, '-o', join(tmp.dir, 'q.html')])
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr).toMatch(
      /a "request" row in trace_replay.mode "read_write"\nhint: .*--replay-mode request/,
    )
    const soon = await report([path, '--replay-mode', 'request', '-o', join(tmp.dir, 'q1.html')])
    expect(soon.config.replay_mode).toBe('request')
    expect(soon.answer.infinite.token_hit_rate).toBe(0.5)
    const late = await report([
      path,
      '--replay-mode',
      'request',
      '--write-delay-ns',
      '2000000000',
      '-o',
      join(tmp.dir, 'q2.html'),
    ])
    expect(late.answer.infinite.token_hit_rate).toBe(0)
  })
})
