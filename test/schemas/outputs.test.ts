// The JSON documents lmt writes validate against their schemas in schemas/ (ajv, draft 2020-12): trace info --json,
// every trace dump line, and replay's summary, storage model and per-record JSONL, on every .lct fixture.
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../src/schemas.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const LCT = join(FIXTURES, 'lct')
const traces = readdirSync(LCT).filter((f) => f.endsWith('.lct'))

function expectValid(schema: string, doc: unknown): void {
  const validate = validatorFor(schema)
  expect(validate(doc), `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true)
}

describe('schemas of lmt trace outputs', () => {
  it.each(traces)('trace info --json of %s', async (name) => {
    const r = await lmt(['trace', 'info', join(LCT, name), '--json'])
    const doc = JSON.parse(r.stdout)
    if (r.exitCode === 0) expectValid('trace-info.schema.json', doc)
    else expectValid('error.schema.json', doc) // a file that is not a readable trace
  })

  it.each(
    traces.flatMap(
      (name) =>
        [
          [name, []],
          [name, ['--raw']],
          [name, ['--limit', '1']],
        ] as const,
    ),
  )('every line of trace dump %s %j', async (name, extra) => {
    const r = await lmt(['trace', 'dump', join(LCT, name), ...extra])
    const lines = r.stdout.trimEnd().split('\n').filter(Boolean)
    if (r.exitCode !== 0) return expect(lines).toEqual([]) // refused before the first frame (tested elsewhere)
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expectValid('trace-dump-line.schema.json', JSON.parse(line))
    expect(JSON.parse(lines[lines.length - 1])).toHaveProperty('end')
  })

  it('a schema rejects what it should (a frame line without its kind, an unknown info key)', () => {
    expect(validatorFor('trace-dump-line.schema.json')({frame: 0, offset: 0, length: 3})).toBe(false)
    expect(validatorFor('trace-info.schema.json')({file: 'x'})).toBe(false)
  })
})

describe('schemas of lmt replay outputs', () => {
  const FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU']
  it.each([
    ['v2_full_prefetch_cycle.lct', []],
    ['v2_truncated_tail.lct', []],
    [
      'v2_full_prefetch_cycle.lct',
      ['--l2-adapter', '{"type":"mock","max_size_gb":1,"mock_bandwidth_gb":4}'], // (no spaces: the test helper splits on them),
    ],
  ] as const)('summary, storage model and JSONL lines of %s %j', async (name, extra) => {
    const out = join(tmp.dir, `${name}-${extra.length}`)
    const jsonl = join(out, 'records.jsonl')
    const r = await lmt([
      'replay',
      join(LCT, name),
      ...FLAGS,
      ...extra,
      '-q',
      '--json',
      '--output-dir',
      out,
      '--jsonl-out',
      jsonl,
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const summary = JSON.parse(readFileSync(join(out, 'trace_replay_summary.json'), 'utf8'))
    expectValid('replay-summary.schema.json', summary)
    expectValid('replay-storage-model.schema.json', summary.model)
    if (extra.length > 0) expect(summary.model.l2).toHaveLength(1)
    const lines = readFileSync(jsonl, 'utf8').trimEnd().split('\n')
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expectValid('replay-record.schema.json', JSON.parse(line))
  })
})
