// `lmt simulate -i LOG_DIR -f lmcache_lookup --policy lmcache_lru` against LMCache's own cache simulator: every run
// of every case in test/fixtures/lmcache/lookup-hash (logs written by LMCache's writer, the simulator's stdout kept
// byte for byte). The JSON's totals and the text from "Simulation parameters" to the last separator must be equal;
// sweeps give each point's hit rate as LMCache's table prints it and its CSV holds it.
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../../helpers/cli.js'

const CASES = join(FIXTURES, 'lmcache', 'lookup-hash')
const SEP = '='.repeat(60)

interface Run {
  id: string
  action: 'simulate' | 'sweep'
  gib?: number
  kv?: number
  model?: string
  min?: number
  max?: number
  points?: number
}

const tmp = tempDir('lmt-lmcache-golden-')
afterAll(() => tmp.cleanup())

/** The case's log directory, gunzipped under its own file names. */
function logsOf(name: string): string {
  const dir = join(tmp.dir, name, 'logs')
  mkdirSync(dir, {recursive: true})
  for (const f of readdirSync(join(CASES, name, 'logs')))
    writeFileSync(join(dir, f.replace(/\.gz$/, '')), gunzipSync(readFileSync(join(CASES, name, 'logs', f))))
  return dir
}

/** The chunk size of a case (every lookup of a case has the same). */
function chunkSizeOf(logs: string): number {
  const first = readdirSync(logs).sort()[0]
  return JSON.parse(readFileSync(join(logs, first), 'utf8').split('\n')[0]).chunk_size
}

function csvRows(text: string): Record<string, string>[] {
  const [head, ...rows] = text.trim().split(/\r?\n/)
  const keys = head.split(',')
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], v])))
}

const cases = readdirSync(CASES).sort()

describe('lmcache_lru agrees with LMCache cache-simulator on every fixture run', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(4))

  for (const name of cases) {
    const runs = (JSON.parse(readFileSync(join(CASES, name, 'case.json'), 'utf8')) as {runs: Run[]}).runs
    const exits = JSON.parse(readFileSync(join(CASES, name, 'reference', 'runs.json'), 'utf8')) as Array<{
      run: string
      exit_code: number
    }>
    for (const run of runs) {
      const ref = readFileSync(join(CASES, name, 'reference', `${run.id}.stdout.txt`), 'utf8')
      const exit = exits.find((e) => e.run === run.id)?.exit_code
      it(`${name} ${run.id}`, async () => {
        const logs = logsOf(name)
        const chunk = chunkSizeOf(logs)
        const bpt = run.kv === undefined ? [] : ['--bytes-per-token', String(run.kv / chunk)]
        const model = run.model === undefined ? [] : ['--instance', run.model]
        if (exit !== 0) {
          // LMCache cannot size a chunk from `torch.` dtype names and exits 1; lmt reads them
          const r = await lmt([
            'simulate',
            '-i',
            logs,
            '-f',
            'lmcache_lookup',
            '--policy',
            'lmcache_lru',
            '--capacity',
            String(run.gib),
            '--json',
            ...model,
          ])
          expect(r.exitCode).toBe(0)
          expect((r.result as {kv_bytes_source: string}).kv_bytes_source).toBe('layout')
          return
        }
        if (run.action === 'simulate') {
          const args = [
            'simulate',
            '-i',
            logs,
            '-f',
            'lmcache_lookup',
            '--policy',
            'lmcache_lru',
            '--capacity',
            String(run.gib),
            ...bpt,
            ...model,
          ]
          const json = await lmt([...args, '--json'])
          expect(json.exitCode, json.stderr).toBe(0)
          const doc = json.result as Record<string, number>
          const num = (label: string) =>
            Number(
              /: ([\d,]+)/
                .exec(ref.split('\n').find((l) => l.includes(label)) as string)?.[1]
                .replaceAll(',', ''),
            )
          expect(doc.total_tokens).toBe(num('Total tokens'))
          expect(doc.total_hit_tokens).toBe(num('Hit tokens'))
          expect(doc.evictions).toBe(num('Total evictions'))
          const human = await lmt(args)
          expect(human.exitCode).toBe(0)
          const want = ref.slice(ref.indexOf('Simulation parameters:'), ref.lastIndexOf(SEP) + SEP.length)
          const got = human.stdout.slice(
            human.stdout.indexOf('Simulation parameters:'),
            human.stdout.lastIndexOf(SEP) + SEP.length,
          )
          expect(got).toBe(want)
        } else {
          const csv = csvRows(readFileSync(join(CASES, name, 'reference', `${run.id}.csv`), 'utf8'))
          const listed = [
            '--sweep',
            '--sweep-unit',
            'gb',
            '--sweep-capacities',
            csv.map((r) => r.capacity_gib).join(','),
          ]
          const spaced = [
            '--sweep',
            '--sweep-unit',
            'gb',
            '--sweep-min',
            String(run.min),
            '--sweep-max',
            String(run.max),
            '--sweep-points',
            String(run.points),
          ]
          for (const sweep of [listed, spaced]) {
            const base = [
              'simulate',
              '-i',
              logs,
              '-f',
              'lmcache_lookup',
              '--policy',
              'lmcache_lru',
              ...sweep,
              ...bpt,
              ...model,
            ]
            const json = await lmt([...base, '--json'])
            expect(json.exitCode, json.stderr).toBe(0)
            const pts = (json.result as {points: Array<Record<string, number>>}).points
            expect(
              pts.map((p) => [
                p.capacity_bytes,
                p.capacity_chunks,
                p.total_hit_tokens,
                p.total_tokens,
                p.evictions,
              ]),
            ).toEqual(
              csv.map((r) => [
                Number(r.capacity_bytes),
                Number(r.cache_capacity_chunks),
                Number(r.total_hit_tokens),
                Number(r.total_tokens),
                Number(r.eviction_count),
              ]),
            )
            const human = await lmt(base)
            const want = ref.slice(ref.indexOf('Sweeping'), ref.indexOf('\n\nPlot saved'))
            expect(human.stdout).toContain(want)
          }
        }
      })
    }
  }
})
