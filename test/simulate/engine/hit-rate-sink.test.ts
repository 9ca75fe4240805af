import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {lmt, spawnLmt, tempDir} from '../../helpers/cli.js'
import {hasTempOf, lmtProcessFull} from '../../helpers/faults.js'
import {newAccumulatedCounts, newReadRecord} from '../../../src/simulate/engine/hit-rate-csv.js'
import {DeferredHitRateSink, InlineHitRateSink} from '../../../src/simulate/engine/hit-rate-sink.js'
import {XorShift64} from '../../../src/simulate/engine/xorshift64.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let trace = ''

// two instances; 3,000 gets share one timestamp (more rows wait for AccWriteBlocks than a batch holds), then
// 30,000 rows at distinct timestamps
beforeAll(() => {
  const lines: string[] = []
  let seed = 7
  const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
  const row = (type: string, inst: string, ts: number) => {
    const keys = Array.from({length: 1 + rand(6)}, () => rand(40))
    return JSON.stringify(
      type === 'get'
        ? {type, instance_id: inst, timestamp_ns: ts, keys, input_len: keys.length * 4 + rand(4)}
        : {type, instance_id: inst, timestamp_ns: ts, keys},
    )
  }
  for (let i = 0; i < 3000; i++) lines.push(row(rand(4) === 0 ? 'write' : 'get', i % 2 ? 'a' : 'b', 5))
  for (let t = 6; t < 30_006; t++) lines.push(row(rand(3) === 0 ? 'write' : 'get', rand(2) ? 'a' : 'b', t))
  trace = join(tmp.dir, 'two.jsonl')
  writeFileSync(trace, lines.join('\n') + '\n')
})

const run = (out: string, extra: string[]) =>
  lmt([
    'simulate',
    '--trace',
    trace,
    '--block-size',
    '4',
    '--capacity-blocks',
    '30',
    '-o',
    out,
    '--no-plots',
    ...extra,
  ])

describe('hit-rate CSV rows written later (DeferredHitRateSink)', () => {
  // the same calls to an inline and a deferred sink, with drains at random points (also while rows wait for their
  // AccWriteBlocks), 3,000 rows at one timestamp (the deferred arrays grow) and more completed rows than it holds
  // before writing by itself
  it('give byte-identical files to rows written as they come', () => {
    const inline = new InlineHitRateSink()
    const deferred = new DeferredHitRateSink()
    const dir = join(tmp.dir, 'sinks')
    mkdirSync(dir, {recursive: true})
    const g = new XorShift64(99n)
    const rnd = (n: number) => Number(g.next() % BigInt(n))
    for (const [k, s] of [inline, deferred].entries())
      for (let f = 0; f < 3; f++) s.open(f, join(dir, `${k}-${f}`))
    const accWrite = [0, 0, 0]
    const acc = newAccumulatedCounts()
    const rec = newReadRecord()
    let ts = 1_700_000_000_000_000_000n
    let rows = 0
    const step = (sameTs: number) => {
      for (let i = 0; i < sameTs; i++, rows++) {
        const file = rnd(3)
        rec.read = 1 + rnd(200)
        rec.localHit = rnd(rec.read)
        rec.remoteHit = rnd(rec.read - rec.localHit + 1)
        rec.cached = rnd(100_000)
        rec.cachedAll = rec.cached + rnd(100_000)
        rec.inputTokens = rec.read * 16 + rnd(16)
        rec.bs = 16
        acc.read_blocks += rec.read
        acc.hit_blocks += rec.localHit + rec.remoteHit
        acc.input_tokens += rec.inputTokens
        acc.local_hit_tokens += rec.localHit * 16
        acc.remote_hit_tokens += rec.remoteHit * 16
        acc.hit_tokens += (rec.localHit + rec.remoteHit) * 16
        for (const s of [inline, deferred]) s.row(file, ts, rec, acc)
        if (rnd(7) === 0) deferred.drain() // rows of this timestamp still wait
      }
      for (let f = 0; f < 3; f++) accWrite[f] += rnd(50)
      for (const s of [inline, deferred]) s.complete((f) => accWrite[f])
      if (rnd(5) === 0) deferred.drain()
      ts += BigInt(1 + rnd(1000))
    }
    step(3000)
    while (rows < 40_000) step(1 + rnd(3))
    inline.close(true)
    deferred.close(true)
    for (let f = 0; f < 3; f++) {
      const a = readFileSync(join(dir, `0-${f}`))
      expect(a.toString().split('\n').length).toBeGreaterThan(10_000)
      expect(readFileSync(join(dir, `1-${f}`)).equals(a)).toBe(true)
    }
  })

  it('abandoned: no file is left', () => {
    const dir = join(tmp.dir, 'abandoned')
    mkdirSync(dir, {recursive: true})
    const s = new DeferredHitRateSink()
    s.open(0, join(dir, 'x'))
    s.row(0, 5n, newReadRecord(), newAccumulatedCounts())
    s.complete(() => 0)
    s.close(false)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('hit-rate CSVs of a run', () => {
  it('the streamed run and the re-sorted one (rows held in memory) write the same bytes', async () => {
    const lines = readFileSync(trace, 'utf8').trimEnd().split('\n')
    // two rows of distinct timestamps swapped: the trace is re-read and sorted back into the same order
    const i = lines.length - 10
    ;[lines[i], lines[i + 1]] = [lines[i + 1], lines[i]]
    const swapped = join(tmp.dir, 'swapped.jsonl')
    writeFileSync(swapped, lines.join('\n') + '\n')
    const one = join(tmp.dir, 'streamed')
    const two = join(tmp.dir, 'resorted')
    expect((await run(one, [])).exitCode).toBe(0)
    const r = await lmt([
      'simulate',
      '--trace',
      swapped,
      '--block-size',
      '4',
      '--capacity-blocks',
      '30',
      '-o',
      two,
      '--no-plots',
    ])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toContain('LMT_SIM_RESORT')
    for (const name of ['a_hit_rates.csv', 'b_hit_rates.csv']) {
      const a = readFileSync(join(one, name))
      expect(a.toString().split('\n').length).toBeGreaterThan(10_000)
      expect(readFileSync(join(two, name)).equals(a)).toBe(true)
    }
  })

  // a disk that takes 64 KiB per file: the CSVs outgrow it during the run
  it('a CSV that cannot be written is an output error naming it, and no CSV or temporary file is left', () => {
    const out = join(tmp.dir, 'full')
    mkdirSync(out, {recursive: true})
    const args = ['simulate', '--trace', trace, '--block-size', '4', '--capacity-blocks', '30', '-o', out]
    const r = lmtProcessFull([...args, '--no-plots', '--json'], 64 << 10)
    expect(r.exitCode).toBe(1)
    const {error} = JSON.parse(r.stdout)
    expect(error.code).toBe('LMT_SIM_OUTPUT_FAILED')
    expect(error.message).toMatch(/cannot write .*\/[ab]_hit_rates\.csv: /)
    expect(error.message).toMatch(/EFBIG/)
    expect(readdirSync(out)).toEqual([]) // the other CSV was written out but not renamed into place
  })

  it('links planted at the temporary names of earlier versions are never followed', async () => {
    const out = join(tmp.dir, 'planted')
    mkdirSync(out, {recursive: true})
    const victim = join(tmp.dir, 'victim-sink')
    writeFileSync(victim, 'VICTIM\n')
    for (const name of ['.lmt-new.b_hit_rates.csv.tmp', '.lmt-new.b_hit_rates.csv', 'summary.json.tmp'])
      symlinkSync(victim, join(out, name))
    const r = await run(out, [])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    expect(readFileSync(join(out, 'b_hit_rates.csv'), 'utf8')).toMatch(/^TimestampNs,/)
  })
})

describe('an interrupted simulation', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: exit code, and neither a CSV, a temporary file nor the output folder is left',
    async (sig, exitCode) => {
      const big = join(tmp.dir, `big-${sig}.jsonl`)
      const lines: string[] = []
      for (let t = 0; t < 400_000; t++) {
        const keys = [t % 7, (t * 13) % 101, t % 1009, t]
        lines.push(
          t % 2
            ? `{"type": "write", "instance_id": "i", "timestamp_ns": ${t}, "keys": [${keys.join(', ')}]}`
            : `{"type": "get", "instance_id": "i", "timestamp_ns": ${t}, "keys": [${keys.join(', ')}], "input_len": 64}`,
        )
      }
      writeFileSync(big, lines.join('\n') + '\n')
      const out = join(tmp.dir, `interrupted-${sig}`)
      const child = spawnLmt([
        'simulate',
        '--trace',
        big,
        '--block-size',
        '16',
        '--capacity-blocks',
        '1000',
        '-o',
        out,
      ])
      let stderr = ''
      child.stderr.on('data', (d) => (stderr += d))
      // interrupt once the CSV is being written
      const timer = setInterval(() => {
        if (hasTempOf(out, 'i_hit_rates.csv')) {
          clearInterval(timer)
          child.kill(sig)
        }
      }, 5)
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) =>
        child.on('close', (c, s) => res([c, s])),
      )
      clearInterval(timer)
      expect({code, signal}, stderr).toEqual({code: exitCode, signal: null})
      expect(stderr).toContain(`error: interrupted by ${sig}`)
      expect(existsSync(out)).toBe(false) // the folder the run made, with no CSV or temporary in it
    },
  )
})
