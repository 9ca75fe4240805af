import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {lmt, spawnLmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let trace = ''

// two instances; 3,000 gets share one timestamp (more rows wait for AccWriteBlocks than a batch holds), then
// 30,000 rows at distinct timestamps (more batches than may be in flight, so the replay waits for the writer)
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

describe('hit-rate CSVs written on a writer thread', () => {
  it('are byte-identical to the ones written on the replay thread (--jobs 1)', async () => {
    const one = join(tmp.dir, 'one')
    const two = join(tmp.dir, 'two')
    expect((await run(one, ['--jobs', '1'])).exitCode).toBe(0)
    expect((await run(two, ['--jobs', '2'])).exitCode).toBe(0)
    for (const name of ['a_hit_rates.csv', 'b_hit_rates.csv']) {
      const a = readFileSync(join(one, name))
      expect(a.toString().split('\n').length).toBeGreaterThan(10_000)
      expect(readFileSync(join(two, name)).equals(a)).toBe(true)
    }
  })

  it.each([['1'], ['2']])(
    'a CSV that cannot be created is an output error naming it, with no CSV left (--jobs %s)',
    async (jobs) => {
      const out = join(tmp.dir, `blocked${jobs}`)
      mkdirSync(join(out, 'b_hit_rates.csv.tmp'), {recursive: true}) // a directory where the temp file goes
      const r = await run(out, ['--jobs', jobs])
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toMatch(/cannot write .*b_hit_rates\.csv: .*EISDIR/)
      expect(readdirSync(out).filter((f) => f.endsWith('.csv'))).toEqual([])
      expect(readdirSync(out).filter((f) => f.endsWith('.csv.tmp'))).toEqual(['b_hit_rates.csv.tmp'])
    },
  )
})

describe('an interrupted simulation', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit code, and neither a CSV nor a temporary file is left', async (sig, exitCode) => {
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
      if (existsSync(join(out, 'i_hit_rates.csv.tmp'))) {
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
    expect(readdirSync(out)).toEqual([])
  })
})
