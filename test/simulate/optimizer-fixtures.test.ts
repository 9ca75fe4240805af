// lmt simulate against the real C++ Optimizer's per-get results (test/fixtures/optimizer/README.md): every row of
// every folder must match, random_lru included (its victims in libstdc++'s std::partial_sort order).
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FIXTURES, ROOT, lmt, tempDir} from '../helpers/cli.js'

const OPTIMIZER = join(FIXTURES, 'optimizer')
const tmp = tempDir()
afterAll(() => tmp.cleanup())
const trace = join(tmp.dir, 'syn.jsonl')

beforeAll(async () => {
  const r = await lmt([
    'convert',
    '-q',
    '-i',
    join(ROOT, 'samples', 'mooncake_synthetic_trace.jsonl'),
    '-f',
    'qwen_bailian',
    '--instance-block-sizes',
    'instance:512',
    '-o',
    trace,
  ])
  expect(r.exitCode, r.stderr).toBe(0)
})

/** per get: timestamp, cached, read and hit blocks, tab-separated like expected.tsv */
function csvRows(csv: string): string[] {
  const [header, ...lines] = csv.trim().split('\n')
  const names = header.split(',')
  const at = ['TimestampNs', 'CachedBlocks', 'ReadBlocks', 'HitBlocks'].map((c) => names.indexOf(c))
  expect(at).not.toContain(-1)
  return lines.map((l) => {
    const f = l.split(',')
    return at.map((i) => f[i]).join('\t')
  })
}

const folders = readdirSync(OPTIMIZER, {withFileTypes: true})
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()

describe('the Optimizer’s per-get results on the synthetic Mooncake trace', () => {
  it('has the twelve runs', () => {
    expect(folders).toHaveLength(12)
    expect(folders.filter((f) => f.includes('random_lru'))).toHaveLength(9)
  })

  it.each(folders)('%s: every row matches', async (folder) => {
    const out = join(tmp.dir, folder)
    const config = join(tmp.dir, `${folder}.json`)
    const template = JSON.parse(readFileSync(join(OPTIMIZER, folder, 'lmt_config.json'), 'utf8'))
    writeFileSync(config, JSON.stringify({...template, trace_file_path: trace, output_result_path: out}))
    const r = await lmt(['simulate', config, '--no-plots', '--quiet'])
    expect(r.exitCode, r.stderr).toBe(0)
    const expected = readFileSync(join(OPTIMIZER, folder, 'expected.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
    const got = csvRows(readFileSync(join(out, 'instance_hit_rates.csv'), 'utf8'))
    expect(got.length).toBe(expected.length)
    const first = got.findIndex((row, i) => row !== expected[i])
    expect(first, `first differing get: ${first + 1}`).toBe(-1)
  })
})
