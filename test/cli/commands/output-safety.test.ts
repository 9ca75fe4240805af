// What every command does with the places it writes to, beyond a full disk: a link planted at a temporary name is
// never followed (its target keeps its bytes), an output that is one of the inputs is refused before any work (the
// input keeps its bytes), an output that is a link is replaced by a file, and two runs writing the same outputs at
// once both succeed and leave one run's complete set.
import {linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'
import {leftovers, lmtAsync, lmtProcessFull} from '../../helpers/faults.js'
import {outputFiles} from '../../helpers/run-outputs.js'
import {keys, LAYOUT, type Rec, writeTrace} from '../../replay/helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const LCT = join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct')
const REPLAY_FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU']
let trace = ''
let bigLct = ''
let otherLct = ''

beforeAll(() => {
  // a Get+Write trace: two instances, 6,000 rows
  const lines: string[] = []
  let seed = 11
  const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
  for (let t = 1; t <= 6000; t++) {
    const ks = Array.from({length: 1 + rand(6)}, () => rand(300))
    const inst = rand(2) ? 'a' : 'b'
    lines.push(
      JSON.stringify(
        rand(3) === 0
          ? {type: 'write', instance_id: inst, timestamp_ns: t, keys: ks}
          : {type: 'get', instance_id: inst, timestamp_ns: t, keys: ks, input_len: ks.length * 4},
      ),
    )
  }
  trace = join(tmp.dir, 'trace.jsonl')
  writeFileSync(trace, lines.join('\n') + '\n')
  // a storage .lct long enough that two replays recording it overlap
  const recs: Rec[] = []
  for (let i = 0; i < 6000; i++)
    recs.push(
      [i * 0.01, 'reserve_write', {keys: keys(i % 500), layout_desc: LAYOUT, mode: 'new'}],
      [i * 0.01 + 0.005, 'finish_write', {keys: keys(i % 500)}],
    )
  bigLct = writeTrace(join(tmp.dir, 'big.lct'), recs)
  // another one, of 10,000 records: each output of a replay tells which of the two it replayed
  otherLct = writeTrace(join(tmp.dir, 'other.lct'), recs.slice(0, 10_000))
})

/** A folder with a victim file beside it; links to the victim at `names` in the folder. */
function planted(name: string, names: string[]): {dir: string; victim: string} {
  const dir = join(tmp.dir, name)
  mkdirSync(dir, {recursive: true})
  const victim = join(tmp.dir, `${name}-victim`)
  writeFileSync(victim, 'VICTIM\n')
  for (const n of names) symlinkSync(victim, join(dir, n))
  return {dir, victim}
}

describe('links planted at the temporary names lmt used to write through', () => {
  it('report -o: the link target keeps its bytes, the page is a file', async () => {
    const {dir, victim} = planted('report', ['r.html.tmp'])
    const r = await lmt([
      'report',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--points',
      '3',
      '--policies',
      'lru',
      '-o',
      join(dir, 'r.html'),
      '-q',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    expect(lstatSync(join(dir, 'r.html')).isFile()).toBe(true)
  })

  it('simulate -o: summary.json and the CSVs', async () => {
    const names = ['summary.json.tmp', '.lmt-new.a_hit_rates.csv.tmp', '.lmt-new.a_hit_rates.csv']
    const {dir, victim} = planted('simulate', names)
    const r = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--capacity-blocks',
      '50',
      '-o',
      dir,
      '-q',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    for (const f of ['summary.json', 'a_hit_rates.csv', 'b_hit_rates.csv'])
      expect(lstatSync(join(dir, f)).isFile()).toBe(true)
  })

  it('replay: the summary, the CSV and the --record file', async () => {
    const names = ['trace_replay_summary.json.tmp', 'trace_replay_ops.csv.tmp', 'rec.lct.tmp']
    const {dir, victim} = planted('replay', names)
    const r = await lmt([
      'replay',
      LCT,
      ...REPLAY_FLAGS,
      '--output-dir',
      dir,
      '--record',
      join(dir, 'rec.lct'),
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    for (const f of ['trace_replay_summary.json', 'trace_replay_ops.csv', 'rec.lct'])
      expect(lstatSync(join(dir, f)).isFile()).toBe(true)
  })

  it('replay --jsonl-out at a link: the link is replaced by the log, its target keeps its bytes', async () => {
    const {dir, victim} = planted('jsonl-link', ['records.jsonl'])
    const r = await lmt([
      'replay',
      LCT,
      ...REPLAY_FLAGS,
      '-q',
      '--output-dir',
      dir,
      '--jsonl-out',
      join(dir, 'records.jsonl'),
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    expect(lstatSync(join(dir, 'records.jsonl')).isFile()).toBe(true)
    expect(readFileSync(join(dir, 'records.jsonl'), 'utf8')).toMatch(/^\{"qualname": /)
  })
})

describe('an output that is one of the inputs', () => {
  const same = (name: string, file: string, content: string | Buffer) => {
    const dir = join(tmp.dir, name)
    mkdirSync(dir, {recursive: true})
    writeFileSync(join(dir, file), content)
    return dir
  }
  const refused = (r: {exitCode: number; stdout: string}) => {
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_OUTPUT_IS_INPUT')
  }
  const lctBytes = readFileSync(LCT)

  it.each([
    ['--jsonl-out', 'r.lct'],
    ['--record', 'r.lct'],
    ['--record', 'hard.lct'],
    ['--record', 'soft.lct'],
  ])(
    'replay X %s (X itself, or a hard or symbolic link to it) is refused; X keeps its bytes',
    async (flag, out) => {
      const dir = same(`replay${flag}${out}`, 'r.lct', lctBytes)
      linkSync(join(dir, 'r.lct'), join(dir, 'hard.lct'))
      symlinkSync(join(dir, 'r.lct'), join(dir, 'soft.lct'))
      const r = await lmt([
        'replay',
        join(dir, 'r.lct'),
        ...REPLAY_FLAGS,
        '--output-dir',
        join(dir, 'o'),
        flag,
        join(dir, out),
        '--json',
      ])
      refused(r)
      expect(readFileSync(join(dir, 'r.lct')).equals(lctBytes)).toBe(true)
    },
  )

  it('replay X --output-dir <X’s folder> with X named trace_replay_ops.csv is refused', async () => {
    const dir = same('replay-csv', 'trace_replay_ops.csv', lctBytes)
    const r = await lmt([
      'replay',
      join(dir, 'trace_replay_ops.csv'),
      ...REPLAY_FLAGS,
      '--output-dir',
      dir,
      '--json',
    ])
    refused(r)
    expect(readFileSync(join(dir, 'trace_replay_ops.csv')).equals(lctBytes)).toBe(true)
  })

  it('report --trace X -o X is refused; X keeps its bytes', async () => {
    const text = readFileSync(trace)
    const dir = same('report-same', 'm.jsonl', text)
    const r = await lmt([
      'report',
      '--trace',
      join(dir, 'm.jsonl'),
      '--block-size',
      '4',
      '-o',
      join(dir, 'm.jsonl'),
      '--json',
    ])
    refused(r)
    expect(readFileSync(join(dir, 'm.jsonl')).equals(text)).toBe(true)
    expect(readdirSync(dir)).toEqual(['m.jsonl'])
  })

  it.each(['b_hit_rates.csv', 'summary.json', 'a_hit_rates.csv'])(
    'simulate --trace <dir>/%s -o <dir> is refused; the trace keeps its bytes, nothing is left',
    async (name) => {
      const text = readFileSync(trace)
      const dir = same(`simulate-${name}`, name, text)
      const r = await lmt([
        'simulate',
        '--trace',
        join(dir, name),
        '--block-size',
        '4',
        '--capacity-blocks',
        '50',
        '-o',
        dir,
        '--json',
      ])
      refused(r)
      expect(readFileSync(join(dir, name)).equals(text)).toBe(true)
      expect(readdirSync(dir)).toEqual([name])
    },
  )

  it('convert: a hard link to the input is the input too', async () => {
    const dir = same(
      'convert-hard',
      'in.jsonl',
      readFileSync(join(FIXTURES, '..', '..', 'samples', 'qwen_bailian_sample.jsonl')),
    )
    linkSync(join(dir, 'in.jsonl'), join(dir, 'out.jsonl'))
    const r = await lmt([
      'convert',
      '-i',
      join(dir, 'in.jsonl'),
      '-f',
      'qwen_bailian',
      '-o',
      join(dir, 'out.jsonl'),
      '--json',
    ])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_CONVERT_OUTPUT_IS_INPUT')
  })
})

describe('two runs writing the same outputs at once', () => {
  it('replay --record to one path: both succeed, the recording is whole (two rounds)', async () => {
    const dir = join(tmp.dir, 'race-replay')
    mkdirSync(dir)
    const rec = join(dir, 'rec.lct')
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(
        ['0.0625', '1'].map((gb) =>
          lmtAsync([
            'replay',
            bigLct,
            '--l1-size-gb',
            gb,
            '--eviction-policy',
            'LRU',
            '--output-dir',
            dir,
            '--record',
            rec,
            '-q',
            '--json',
          ]),
        ),
      )
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0)
      const info = lmtProcess(['trace', 'info', rec, '--json'])
      expect(info.exitCode, info.stderr).toBe(0)
      expect(JSON.parse(info.stdout).total_records).toBe(12_000)
      expect(info.stderr).toBe('')
      expect(leftovers(dir)).toEqual([])
    }
  })

  it('replay --output-dir, --record and --jsonl-out into one folder: both succeed, one run’s whole set (two rounds)', async () => {
    const dir = join(tmp.dir, 'race-replay-set')
    const args = (lct: string) => [
      'replay',
      lct,
      ...REPLAY_FLAGS,
      '--output-dir',
      dir,
      '--record',
      join(dir, 'rec.lct'),
      '--jsonl-out',
      join(dir, 'records.jsonl'),
      '-q',
      '--json',
    ]
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all([bigLct, otherLct].map((lct) => lmtAsync(args(lct))))
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0)
      expect(leftovers(dir)).toEqual([])
      expect(readdirSync(dir).sort()).toEqual([
        'rec.lct',
        'records.jsonl',
        'trace_replay_ops.csv',
        'trace_replay_summary.json',
      ])
      // every file of the set counts the records of one and the same run
      const info = lmtProcess(['trace', 'info', join(dir, 'rec.lct'), '--json'])
      expect(info.stderr).toBe('')
      const n = JSON.parse(info.stdout).total_records
      expect([12_000, 10_000]).toContain(n)
      const log = readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n')
      expect(log.pop()).toBe('')
      expect(log).toHaveLength(n)
      for (const line of log) expect(JSON.parse(line)).toHaveProperty('qualname')
      const ops = JSON.parse(readFileSync(join(dir, 'trace_replay_summary.json'), 'utf8')).ops
      expect(Object.values(ops).reduce((a: number, o) => a + (o as {count: number}).count, 0)).toBe(n)
      const csvRows = readFileSync(join(dir, 'trace_replay_ops.csv'), 'utf8').trim().split('\r\n').slice(1)
      expect(csvRows.reduce((a, row) => a + Number(row.split(',')[1]), 0)).toBe(n)
      // and the run whose set it is printed that summary
      const mine = runs
        .map((r) => JSON.parse(r.stdout))
        .filter((d) => d.ops && JSON.stringify(d.ops) === JSON.stringify(ops))
      expect(mine.length).toBeGreaterThan(0)
    }
  })

  it('simulate -o one folder: both succeed and the folder holds one run’s complete set (two rounds)', async () => {
    const caps = ['20', '200']
    const alone = caps.map((c) => {
      const out = join(tmp.dir, `alone-${c}`)
      expect(
        lmtProcess([
          'simulate',
          '--trace',
          trace,
          '--block-size',
          '4',
          '--capacity-blocks',
          c,
          '-o',
          out,
          '-q',
        ]).exitCode,
      ).toBe(0)
      return outputFiles(out)
    })
    const shared = join(tmp.dir, 'race-simulate')
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(
        caps.map((c) =>
          lmtAsync([
            'simulate',
            '--trace',
            trace,
            '--block-size',
            '4',
            '--capacity-blocks',
            c,
            '-o',
            shared,
            '-q',
          ]),
        ),
      )
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0)
      expect(leftovers(shared)).toEqual([])
      const got = outputFiles(shared)
      const which = alone.findIndex((a) => a['a_hit_rates.csv'] === got['a_hit_rates.csv'])
      expect(which).toBeGreaterThanOrEqual(0)
      const mask = (files: Record<string, string>, dir: string) =>
        Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.replaceAll(dir, 'OUT')]))
      expect(mask(got, shared)).toEqual(mask(alone[which], join(tmp.dir, `alone-${caps[which]}`)))
    }
  })
})

describe('a disk that fills up during a sweep that keeps its point CSVs', () => {
  it('leaves no empty point folder and no temporary: the output folder is as it was', () => {
    const out = join(tmp.dir, 'sweep-full')
    mkdirSync(out)
    const args = [
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--sweep',
      '--sweep-capacities',
      '10,100,1000',
    ]
    const r = lmtProcessFull([...args, '--keep-point-csv', '--no-plots', '-o', out, '--json'], 8 << 10)
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_SIM_OUTPUT_FAILED')
    expect(readdirSync(out)).toEqual([])
  })
})
