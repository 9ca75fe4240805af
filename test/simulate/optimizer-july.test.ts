// lmt simulate against every file the July-2026 C++ Optimizer (tiers, TTL, sharded LRU, request rows) wrote, byte for
// byte (test/fixtures/optimizer-july/README.md). Each case folder holds the config with "TRACE" and "OUT"
// placeholders, the trace it reads (trace.ref) and expected/ (every *_hit_rates.csv the Optimizer wrote), or
// expected_exit when the Optimizer rejects the input: lmt must then exit non-zero and write no hit-rate CSV.
//
// EXPECTED_FAILING lists the cases lmt does not yet write identically. A listed case that starts passing fails the
// test, so the list only ever shrinks and always says where lmt stands.
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const JULY = join(FIXTURES, 'optimizer-july')
const EXPECTED_FAILING = new Set<string>([])

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const cases = readdirSync(JULY, {withFileTypes: true})
  .filter((d) => d.isDirectory() && existsSync(join(JULY, d.name, 'config.json')))
  .map((d) => d.name)
  .sort()

/** Runs one case; the names of the items that differ from the Optimizer's (empty: identical). */
async function differences(name: string): Promise<string[]> {
  const dir = join(JULY, name)
  const trace = resolve(dir, readFileSync(join(dir, 'trace.ref'), 'utf8').trim())
  const out = join(tmp.dir, name, 'out')
  const config = join(tmp.dir, name, 'config.json')
  const raw = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
  raw.trace_file_path = trace
  raw.output_result_path = out
  mkdirSync(dirname(config), {recursive: true})
  writeFileSync(config, JSON.stringify(raw))
  const r = await lmt(['simulate', config, '-o', out, '--no-plots', '--quiet'])
  const written = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('_hit_rates.csv')) : []
  if (existsSync(join(dir, 'expected_exit')))
    return r.exitCode !== 0 && written.length === 0 ? [] : [`${name}: lmt accepted it (exit ${r.exitCode})`]
  const diffs: string[] = []
  for (const file of readdirSync(join(dir, 'expected')).sort()) {
    const expected = readFileSync(join(dir, 'expected', file), 'utf8')
    if (!existsSync(join(out, file))) {
      diffs.push(`${file}: missing (exit ${r.exitCode}: ${r.stderr.split('\n')[0]})`)
      continue
    }
    const got = readFileSync(join(out, file), 'utf8')
    if (got === expected) continue
    const e = expected.split('\n')
    const g = got.split('\n')
    const line = e.findIndex((l, i) => l !== g[i])
    diffs.push(`${file}: line ${line + 1} differs`)
  }
  return diffs
}

describe('the July-2026 Optimizer’s hit-rate files, byte for byte', () => {
  it('has the 51 cases, and every listed failing case is one of them', () => {
    expect(cases).toHaveLength(51)
    for (const name of EXPECTED_FAILING) expect(cases).toContain(name)
  })

  it.each(cases)('%s', async (name) => {
    const diffs = await differences(name)
    if (EXPECTED_FAILING.has(name))
      expect(diffs, `${name} is now identical: remove it from EXPECTED_FAILING`).not.toEqual([])
    else expect(diffs).toEqual([])
  })
})
