// The quick form's notice names the group's capacity as the run uses it: a sweep's capacity is swept (its
// configuration holds -1 only until each point sets its own), a single run's -1 is an infinite cache.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, tempDir} from '../helpers/cli.js'

const {dir, cleanup} = tempDir('lmt-quick-notice-')
afterAll(cleanup)

const trace = join(dir, 'units.jsonl')
writeFileSync(
  trace,
  [[1], [1, 2]]
    .flatMap((keys, u) => [
      {type: 'get', instance_id: 'i', timestamp_ns: 10 * u + 1, keys, input_len: 4 * keys.length},
      {type: 'write', instance_id: 'i', timestamp_ns: 10 * u + 2, keys},
    ])
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
)

describe('the quick form notice', () => {
  it('says a sweep sweeps the capacity, not that it is infinite', async () => {
    const r = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--sweep',
      '--sweep-capacities',
      '1,2',
      '-o',
      join(dir, 'sweep'),
      '--no-plots',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain('notice: quick form: one group "default" (its capacity swept), every instance')
    expect(r.stderr + r.stdout).not.toContain('infinite)')
  })

  it('says a single run at -1 blocks is infinite', async () => {
    const r = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--capacity-blocks',
      '-1',
      '-o',
      join(dir, 'single'),
      '--no-plots',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain('notice: quick form: one group "default" (infinite), every instance')
  })
})
