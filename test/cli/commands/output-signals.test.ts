// Interrupted writers: SIGINT/SIGTERM at several moments leave the previous outputs byte for byte and no temporary
// file; convert --mode lct exits within about a second; simulate's output set is replaced whole or not at all.
import {existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmtProcess, spawnLmt, tempDir} from '../../helpers/cli.js'
import {hasTempOf} from '../../helpers/faults.js'
import {itSlow} from '../../helpers/slow.js'

const tmp = tempDir('lmt-signals-')
afterAll(() => tmp.cleanup())

function snapshot(dir: string): Map<string, Buffer> {
  const m = new Map<string, Buffer>()
  for (const f of readdirSync(dir).sort()) m.set(f, readFileSync(join(dir, f)))
  return m
}

/**
 * Spawns lmt, sends `signal` once `ready()` holds (polled every 2 ms, or after `afterMs`), and resolves with the exit
 * code, whether the signal was sent, and the milliseconds from the signal to the exit.
 */
async function interrupt(
  args: string[],
  signal: NodeJS.Signals,
  ready: (elapsedMs: number) => boolean,
): Promise<{code: number | null; sent: boolean; exitMs: number; stderr: string}> {
  const child = spawnLmt(args)
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const t0 = Date.now()
  let sentAt: number | undefined
  const timer = setInterval(() => {
    if (sentAt === undefined && ready(Date.now() - t0)) {
      sentAt = Date.now()
      child.kill(signal)
      clearInterval(timer)
    }
  }, 2)
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)))
  clearInterval(timer)
  return {code, sent: sentAt !== undefined, exitMs: sentAt === undefined ? 0 : Date.now() - sentAt, stderr}
}

describe('convert --mode lct interrupted', () => {
  const dir = join(tmp.dir, 'lct')
  mkdirSync(dir)
  const input = join(dir, 'in.jsonl')
  const lines: string[] = []
  for (let i = 0; i < 4000; i++) {
    const ids = Array.from({length: 48}, (_, k) => i * 7 + k)
    lines.push(JSON.stringify({timestamp: i, hash_ids: ids, input_length: 48 * 16, output_length: 1}))
  }
  writeFileSync(input, lines.join('\n') + '\n')
  const output = join(dir, 'out.lct')
  const args = ['convert', '-q', '-i', input, '-f', 'qwen_bailian', '--mode', 'lct', '-o', output]
  const entries = () => readdirSync(dir)

  it.each([
    ['SIGINT', 130, 'while converting', () => entries().some((f) => f.startsWith('.lmt-convert-'))],
    ['SIGTERM', 143, 'while converting', () => entries().some((f) => f.startsWith('.lmt-convert-'))],
    ['SIGINT', 130, 'while writing the .lct', () => entries().some((f) => f.startsWith('.out.lct.lmt-tmp-'))],
    [
      'SIGTERM',
      143,
      'while writing the .lct',
      () => entries().some((f) => f.startsWith('.out.lct.lmt-tmp-')),
    ],
  ] as const)(
    '%s (exit %d) %s: the old output stays, no temporary file, exit within a second',
    async (signal, exit, _when, ready) => {
      writeFileSync(output, 'the previous output')
      const r = await interrupt(args, signal, ready)
      expect(r.sent, r.stderr).toBe(true)
      expect(r.code, r.stderr).toBe(exit)
      expect(r.exitMs).toBeLessThan(1500)
      expect(entries().sort()).toEqual(['in.jsonl', 'out.lct'])
      expect(readFileSync(output, 'utf8')).toBe('the previous output')
    },
  )
})

describe('simulate --sweep interrupted: the output set is replaced whole or not at all', () => {
  const dir = join(tmp.dir, 'sweep')
  mkdirSync(dir)
  const trace = join(dir, 'trace.jsonl')
  const lines: string[] = []
  for (let t = 0; t < 200_000; t++) {
    const keys = [t % 7, (t * 13) % 101, t % 1009, t]
    lines.push(
      t % 2
        ? `{"type": "write", "instance_id": "i", "timestamp_ns": ${t}, "keys": [${keys.join(', ')}]}`
        : `{"type": "get", "instance_id": "i", "timestamp_ns": ${t}, "keys": [${keys.join(', ')}], "input_len": 64}`,
    )
  }
  writeFileSync(trace, lines.join('\n') + '\n')
  const out = join(dir, 'out')
  const sweep = (caps: string) => [
    'simulate',
    '--trace',
    trace,
    '--block-size',
    '16',
    '--sweep',
    '--sweep-capacities',
    caps,
    '-q',
    '-o',
    out,
  ]

  it('an old set from a first run', () => {
    expect(lmtProcess(sweep('100,1000')).exitCode).toBe(0)
    expect(readdirSync(out).sort()).toEqual([
      'summary.json',
      'sweep.csv',
      'sweep_hit_rate.svg',
      'sweep_hit_rate.vl.json',
    ])
  })

  // the moments: once the new sweep.csv is written (before, the old code renamed it at once and then rendered the
  // plot), once the plot is, and at a fixed time
  const changed = (old: Map<string, Buffer>, name: string) => () =>
    hasTempOf(out, name) ||
    (existsSync(join(out, name)) && !readFileSync(join(out, name)).equals(old.get(name) as Buffer))
  const moments = [
    ['SIGINT', 'sweep.csv', 2100],
    ['SIGTERM', 'sweep.csv', 2200],
    ['SIGINT', 'sweep_hit_rate.svg', 2300],
    ['SIGTERM', 'sweep_hit_rate.vl.json', 2400],
    ['SIGINT', 3000, 2500],
  ] as const
  const title = '%s once %s is written: the old set, byte for byte, or the whole new one'
  const check = async (
    signal: (typeof moments)[number][0],
    moment: (typeof moments)[number][1],
    last: number,
  ) => {
    // each run's last point differs from every earlier run's: its files differ from the old ones
    const old = snapshot(out)
    const ready = typeof moment === 'number' ? (ms: number) => ms >= moment : changed(old, moment)
    const r = await interrupt(sweep(`150,1500,${last}`), signal, ready)
    const now = snapshot(out)
    expect([...now.keys()]).toEqual([...old.keys()]) // no temporary, no backup left
    const unchanged = [...old].every(([name, bytes]) => now.get(name)?.equals(bytes))
    if (unchanged) {
      // interrupted before the set was replaced (null: by the default action, before the handler was installed)
      expect([signal === 'SIGINT' ? 130 : 143, null], r.stderr).toContain(r.code)
    } else {
      // replaced: every file is the new run's (null: the signal came after the outputs, once the handler was gone)
      expect([0, null], r.stderr).toContain(r.code)
      expect(readFileSync(join(out, 'sweep.csv'), 'utf8')).toContain(`,${last},`)
      const points = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).sweep.points
      expect(points.map((p: {capacity_blocks: number}) => p.capacity_blocks)).toEqual([150, 1500, last])
      expect(readFileSync(join(out, 'sweep_hit_rate.vl.json'), 'utf8')).toContain(`"capacity": ${last}`)
    }
  }
  it('SIGINT while reading into a new output folder: exit 130, and the folder it made is gone', async () => {
    const fresh = join(dir, 'fresh', 'out')
    const args = [
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '16',
      '--capacity-blocks',
      '500',
      '-q',
      '-o',
      fresh,
    ]
    const r = await interrupt(args, 'SIGINT', () => existsSync(fresh))
    expect(r.sent, r.stderr).toBe(true)
    expect(r.code, r.stderr).toBe(130)
    expect(existsSync(fresh)).toBe(false)
  })

  // the first moment in every run; the whole family of moments in npm run test:all
  it.each(moments.slice(0, 1))(title, check)
  itSlow.each(moments.slice(1))(title, check)
})
