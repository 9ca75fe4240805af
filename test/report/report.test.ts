// lmt report: the characterization on a hand-computed trace, the curves against independent lmt simulate runs,
// block-size inference and checking, the inputs (trace, conversion on the fly, configuration), the --json schema,
// and the output file's safety.
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Profile} from '../../src/report/characterize.js'
import {validatorFor} from '../../src/schemas.js'
import {BIN, FIXTURES, lmt, ROOT, tempDir} from '../helpers/cli.js'
import {leftovers} from '../helpers/faults.js'

type Doc = {
  answer: {
    grid: number[]
    curves: Array<{
      policy: string
      same_as: string | null
      points: Array<{capacity_blocks: number; token_hit_rate: number; method: string}>
    }>
    belady: {points: Array<{capacity_blocks: number; token_hit_rate: number; method: string}>}
    infinite: {token_hit_rate: number}
    wss_blocks: number
    capacity_table: Array<{
      policy: string
      needs: Array<{target: number; blocks: number | null; gb: number | null; how: string}>
    }>
    chosen_capacity: {blocks: number; gb: number | null; source: string}
    over_time: Array<{series: string; token_hit_rate: number}>
  }
  characterization: {instances: Profile[]; overall: Profile}
  config: {instances: Array<{instance_id: string; block_size: number; block_size_source: string}>}
  notices: Array<{code: string; message: string}>
  trace: Record<string, unknown>
}

const {dir, cleanup} = tempDir('lmt-report-')
afterAll(cleanup)

/** four requests of block size 4 (hand-computed below) */
const HAND = [
  {type: 'get', instance_id: 'i', timestamp_ns: 1_000_000_000, keys: [1, 2], input_len: 8},
  {type: 'write', instance_id: 'i', timestamp_ns: 1_000_000_001, keys: [1, 2]},
  {type: 'get', instance_id: 'i', timestamp_ns: 2_000_000_000, keys: [1, 2], input_len: 8},
  {type: 'write', instance_id: 'i', timestamp_ns: 2_000_000_001, keys: [1, 2, 3]},
  {type: 'get', instance_id: 'i', timestamp_ns: 3_000_000_000, keys: [5], input_len: 5},
  {type: 'write', instance_id: 'i', timestamp_ns: 3_000_000_001, keys: [5]},
  {type: 'get', instance_id: 'i', timestamp_ns: 4_000_000_000, keys: [1, 2, 3], input_len: 12},
  {type: 'write', instance_id: 'i', timestamp_ns: 4_000_000_001, keys: [1, 2, 3]},
]
const hand = join(dir, 'hand.jsonl')
const mooncake = join(FIXTURES, 'convert', 'mooncake_conversation_head200.bs512.expected.jsonl')

async function report(args: string[]): Promise<Doc> {
  const r = await lmt(['report', ...args, '--json', '--no-progress'])
  if (r.exitCode !== 0) throw new Error(`lmt report failed (${r.exitCode}): ${r.stdout} ${r.stderr}`)
  return JSON.parse(r.stdout) as Doc
}

async function simulateRate(trace: string, bs: number, cap: number, policy: string, oracle = 'none') {
  const out = join(dir, `sim-${policy}-${cap}-${oracle}`)
  const r = await lmt([
    'simulate',
    '--trace',
    trace,
    '--block-size',
    String(bs),
    '--capacity-blocks',
    String(cap),
    '--policy',
    policy,
    '--oracle',
    oracle,
    '--no-plots',
    '--json',
    '-o',
    out,
  ])
  expect(r.exitCode).toBe(0)
  const s = JSON.parse(r.stdout) as {
    groups: Array<{totals: {token_hit_rate: number}}>
    oracles: {belady: Array<{token_hit_rate: number}> | null} | null
  }
  return oracle === 'belady'
    ? (s.oracles?.belady?.[0].token_hit_rate as number)
    : s.groups[0].totals.token_hit_rate
}

beforeAll(() => writeFileSync(hand, HAND.map((r) => JSON.stringify(r)).join('\n') + '\n'))

describe('lmt report: the characterization', () => {
  it('a first block a write brought in before any get had it is still a distinct first block of the gets', async () => {
    const rows = [
      {type: 'write', instance_id: 'i', timestamp_ns: 1_000_000_000, keys: [7]},
      {type: 'get', instance_id: 'i', timestamp_ns: 2_000_000_000, keys: [7, 8], input_len: 8},
      {type: 'write', instance_id: 'i', timestamp_ns: 2_000_000_001, keys: [7, 8]},
      {type: 'get', instance_id: 'i', timestamp_ns: 3_000_000_000, keys: [9], input_len: 4},
      {type: 'write', instance_id: 'i', timestamp_ns: 3_000_000_001, keys: [9]},
    ]
    const trace = join(dir, 'write-first.jsonl')
    writeFileSync(trace, rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
    const doc = await report(['--trace', trace, '--block-size', '4', '-o', join(dir, 'write-first.html')])
    expect(doc.characterization.instances[0].distinct_first_blocks).toBe(2) // 7 and 9
    // the stack pass cannot read a write before its get: no reuse distances, so no empty chart, and a note says why
    expect(doc.characterization.instances[0].reuse_distance.available).toBe(false)
    const html = readFileSync(join(dir, 'write-first.html'), 'utf8')
    expect(html).not.toContain('id="chart-reuse-distance"')
    expect(html).toContain('id="chart-reuse-time"')
    expect(html).toContain('Reuse distance is measured by simulate')
  })

  it('a hand-computed trace: sharing, distinct prefixes, reuse distance and time, popularity, block size', async () => {
    const doc = await report(['--trace', hand, '-o', join(dir, 'hand.html')])
    expect(doc.config.instances).toEqual([{instance_id: 'i', block_size: 4, block_size_source: 'inferred'}])
    const p = doc.characterization.instances[0]
    expect(p.requests).toBe(4)
    expect(p.input_tokens).toBe(33)
    expect(p.distinct_blocks).toBe(4) // 1, 1/2, 1/2/3, 5
    expect(p.distinct_first_blocks).toBe(2) // 1 and 5
    expect(p.distinct_request_prefixes).toBe(3) // [1,2], [5], [1,2,3]
    // blocks already seen: 0 of 2, 2 of 2, 0 of 1, 3 of 3
    expect(p.sharing.seen_block_share).toBeCloseTo(5 / 8, 12)
    expect(p.sharing.histogram.map((b: {count: number}) => b.count)).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 2])
    // LRU stack distances of the re-referenced get blocks: request 2 (1 → 2, 2 → 1), request 4 (1 → 4, 2 → 3, 3 → 2)
    expect(p.reuse_distance.available).toBe(true)
    expect(p.reuse_distance.first_references).toBe(3)
    expect(p.reuse_distance.stats).toMatchObject({count: 5, min: 1, p50: 2, max: 4})
    const dist = Object.fromEntries(
      p.reuse_distance.histogram.map((b: {from: number; count: number}) => [b.from, b.count]),
    )
    expect(dist).toEqual({1: 1, 2: 3, 4: 1})
    // reuse times: 1 s − 1 ns twice, 2 s − 1 ns three times
    expect(p.reuse_time.stats.count).toBe(5)
    expect(p.reuse_time.stats.min).toBeCloseTo(0.999999999, 9)
    expect(p.reuse_time.stats.max).toBeCloseTo(1.999999999, 9)
    // get references per block: 1 and 1/2 three times, 1/2/3 and 5 once
    expect(p.popularity.points).toEqual([
      {rank: 1, references: 3},
      {rank: 2, references: 3},
      {rank: 3, references: 1},
      {rank: 4, references: 1},
    ])
    expect(p.popularity.top_1pct_share).toBeCloseTo(3 / 8, 12)
    expect(p.over_time.reduce((s: number, t: {requests: number}) => s + t.requests, 0)).toBe(4)
    expect(p.over_time.at(-1)?.cumulative_blocks).toBe(4)
    expect(doc.characterization.overall.sharing).toEqual(p.sharing)
  })
})

describe('lmt report: the answer', () => {
  let doc: Doc
  beforeAll(async () => {
    doc = await report([
      '--trace',
      mooncake,
      '--block-size',
      '512',
      '--policies',
      'all',
      '--points',
      '8',
      '-o',
      join(dir, 'mc.html'),
    ])
  })

  it('every point of every curve equals an independent lmt simulate run (policies, Belady, infinite)', async () => {
    expect(doc.config.instances[0]).toMatchObject({block_size: 512, block_size_source: 'flag'})
    const curves = doc.answer.curves
    expect(curves.map((c) => c.policy)).toEqual(['lru', 'random_lru', 'leaf_aware_lru', 'ttl'])
    expect(curves[3].same_as).toBe('lru')
    for (const c of curves.filter((x) => x.same_as === null))
      for (const p of c.points)
        expect(p.token_hit_rate).toBe(await simulateRate(mooncake, 512, p.capacity_blocks, c.policy))
    for (const p of doc.answer.belady.points)
      if (p.method === 'replay')
        expect(p.token_hit_rate).toBe(await simulateRate(mooncake, 512, p.capacity_blocks, 'lru', 'belady'))
    expect(doc.answer.infinite.token_hit_rate).toBe(await simulateRate(mooncake, 512, -1, 'lru'))
    expect(doc.answer.grid.at(-1)).toBe(doc.answer.wss_blocks)
  })

  it('the capacity table: the first grid point at or above each target, log-interpolated below it', () => {
    const inf = doc.answer.infinite.token_hit_rate
    for (const row of doc.answer.capacity_table) {
      const curve =
        row.policy === 'belady' ? doc.answer.belady : doc.answer.curves.find((c) => c.policy === row.policy)
      for (const need of row.needs) {
        const pts = curve?.points ?? []
        const i = pts.findIndex((p) => p.token_hit_rate >= need.target * inf - 1e-12)
        if (i <= 0) continue
        expect(need.blocks).toBeGreaterThan(pts[i - 1].capacity_blocks)
        expect(need.blocks).toBeLessThanOrEqual(pts[i].capacity_blocks)
      }
    }
    const lru90 = doc.answer.capacity_table[0].needs[2]
    expect(doc.answer.chosen_capacity).toEqual({blocks: lru90.blocks, gb: null, source: 'lru_90'})
  })

  it('the hit rate at the chosen capacity is the exact replay of each policy there', async () => {
    const cap = doc.answer.chosen_capacity.blocks
    for (const s of doc.answer.over_time.filter((x) => x.series !== 'infinite capacity'))
      expect(s.token_hit_rate).toBe(await simulateRate(mooncake, 512, cap, s.series))
  })

  it('--json validates against schemas/report.schema.json', () => {
    const validate = validatorFor('report.schema.json')
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true)
    expect(validate({...doc, format: 'other'})).toBe(false)
  })
})

describe('lmt report: inputs', () => {
  it('GB from --bytes-per-token or --kv-layout; --capacity-blocks chooses the over-time capacity', async () => {
    const a = await report([
      '--trace',
      mooncake,
      '--block-size',
      '512',
      '--points',
      '4',
      '--bytes-per-token',
      '1024',
      '--capacity-blocks',
      '50',
      '-o',
      join(dir, 'gb.html'),
    ])
    const b = await report([
      '--trace',
      mooncake,
      '--block-size',
      '512',
      '--points',
      '4',
      '--kv-layout',
      '2x8x512x8x4:float16',
      '--capacity-blocks',
      '50',
      '-o',
      join(dir, 'gb2.html'),
    ])
    expect(a.answer.chosen_capacity).toEqual({blocks: 50, gb: (50 * 512 * 1024) / 2 ** 30, source: 'flag'})
    expect(b.answer.chosen_capacity.gb).toBe(a.answer.chosen_capacity.gb) // 2·8·512·8·4·2 bytes = 512 tokens × 1024
    const need = a.answer.capacity_table[0].needs[1]
    expect(need.gb).toBe(((need.blocks as number) * 512 * 1024) / 2 ** 30)
  })

  it('-i x -f mooncake converts on the fly: the same answer as the converted trace', async () => {
    const input = join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl')
    const onTheFly = await report([
      '-i',
      input,
      '-f',
      'mooncake',
      '--points',
      '4',
      '-o',
      join(dir, 'fly.html'),
    ])
    const converted = join(dir, 'h200.jsonl')
    expect((await lmt(['convert', '-q', '-i', input, '-f', 'mooncake', '-o', converted])).exitCode).toBe(0)
    const direct = await report(['--trace', converted, '--points', '4', '-o', join(dir, 'direct.html')])
    expect(onTheFly.answer).toEqual(direct.answer)
    expect(onTheFly.config.instances[0]).toMatchObject({block_size: 512, block_size_source: 'inferred'})
    expect(onTheFly.characterization).toEqual(direct.characterization)
    expect(readdirSync(dir).filter((n) => n.startsWith('.lmt-convert'))).toEqual([])
  })

  it('an Optimizer configuration: its block size is used, its capacity replaced by the grid', async () => {
    const cfgDir = join(dir, 'cfg')
    mkdirSync(cfgDir, {recursive: true})
    writeFileSync(join(cfgDir, 'trace.jsonl'), readFileSync(hand))
    const config = JSON.parse(readFileSync(join(FIXTURES, 'simulate', 'A', 'config.json'), 'utf8'))
    writeFileSync(join(cfgDir, 'config.json'), JSON.stringify(config))
    const doc = await report([join(cfgDir, 'config.json'), '-o', join(cfgDir, 'r.html')])
    expect(doc.config.instances).toEqual([{instance_id: 'i', block_size: 4, block_size_source: 'config'}])
    expect(doc.answer.infinite.token_hit_rate).toBeCloseTo(20 / 33, 12) // request 2: 8 tokens, request 4: 12
  })

  it('a block size too large for the trace is simulate’s partial-tail error (exit 1)', async () => {
    const r = await lmt([
      'report',
      '--trace',
      hand,
      '--block-size',
      '8',
      '-o',
      join(dir, 'bad.html'),
      '--json',
    ])
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_SIM_PARTIAL_TAIL')
    expect(existsSync(join(dir, 'bad.html'))).toBe(false)
  })

  it('an output that is a directory is refused (exit 2); nothing half-written is left', async () => {
    const target = join(dir, 'adir')
    mkdirSync(target)
    const r = await lmt(['report', '--trace', hand, '-o', target, '--json'])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_OUTPUT_NOT_REGULAR')
    expect(leftovers(dir)).toEqual([])
  })
})

describe('lmt report: Ctrl-C', () => {
  it('SIGINT during a run exits 130 within a second and leaves no output, temporary or converted trace', async () => {
    const work = join(dir, 'sigint')
    const tmp = join(work, 'tmp')
    mkdirSync(tmp, {recursive: true})
    const out = join(work, 'r.html')
    const child = spawn(
      process.execPath,
      [
        BIN,
        'report',
        '-i',
        join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl'),
        '-f',
        'mooncake',
        '-o',
        out,
        // random_lru's replays make the run last long enough to be interrupted on any machine
        '--policies',
        'all',
      ],
      {env: {...process.env, TMPDIR: tmp, NO_COLOR: '1'}},
    )
    let stderr = ''
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)))
    // well inside the run: its conversion folder exists (the handler is installed beside it), then a little more;
    // start-up alone can take seconds on a loaded machine, so a fixed delay could land before the handler
    const started = Date.now()
    while (readdirSync(tmp).length === 0 && Date.now() - started < 30_000)
      await new Promise((r) => setTimeout(r, 20))
    expect(readdirSync(tmp).length, 'the conversion folder appeared').toBe(1)
    await new Promise((r) => setTimeout(r, 300))
    const sent = Date.now()
    child.kill('SIGINT')
    const code = await exited
    expect(code, stderr).toBe(130)
    expect(Date.now() - sent).toBeLessThan(1500)
    expect(stderr).toContain('interrupted by SIGINT')
    expect(readdirSync(work).sort()).toEqual(['tmp'])
    expect(readdirSync(tmp)).toEqual([])
  })
})
