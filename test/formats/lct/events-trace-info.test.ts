// `lmt trace info` of LMCache `events`-level traces against `lmcache trace info` on the same files (recorded by
// LMCache's own recorder): the whole text line for line, and the events block's numbers in --json.
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import {EventsSummary, eventsSummaryLines} from '../../../src/formats/lct/events-summary.js'
import {FIXTURES, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'

const CASES = join(FIXTURES, 'lmcache', 'events')
const tmp = tempDir('lmt-events-info-')
afterAll(() => tmp.cleanup())

describe('lmt trace info on events traces agrees with lmcache trace info', () => {
  const cases = readdirSync(CASES).sort()
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(3))

  for (const name of cases)
    it(name, async () => {
      const dir = join(tmp.dir, name)
      const trace = join(dir, 'trace.lct')
      mkdirSync(dir, {recursive: true})
      writeFileSync(trace, gunzipSync(readFileSync(join(CASES, name, 'trace.lct.gz'))))
      const want = readFileSync(join(CASES, name, 'reference', 'trace-info.stdout.txt'), 'utf8')
      // LMCache was run as `lmcache trace info trace.lct` in the case's directory
      const r = lmtProcess(['trace', 'info', 'trace.lct'], {cwd: dir})
      expect(r.exitCode).toBe(
        Number(readFileSync(join(CASES, name, 'reference', 'trace-info.exit_code'), 'utf8')),
      )
      expect(r.stdout).toBe(want)
      const json = await lmt(['trace', 'info', trace, '--json'])
      const events = (json.result as {events: Parameters<typeof eventsSummaryLines>[0]}).events
      const block = want.slice(want.indexOf('  events:\n'))
      expect(eventsSummaryLines(events).join('\n') + '\n').toBe(block)
    })
})

describe('EventsSummary', () => {
  it('takes LMCache defaults for missing fields, sorts local before shared and counts restarts', () => {
    const s = new EventsSummary()
    s.add('events.batch', {
      instance_id: 'b',
      incarnation: 20,
      event_type: 'store',
      tier: 'l2',
      backend: 's3',
      shared: true,
      entries: [
        {size_bytes: 5, token_ids: [1]},
        {size_bytes: 7, token_ids: []},
      ],
    })
    s.add('events.batch', {
      instance_id: 'b',
      incarnation: 10,
      event_type: 'store',
      tier: 'l2',
      backend: 's3',
      shared: false,
      entries: [],
    })
    s.add('events.batch', {})
    s.add('events.lifecycle', {phase: 'start'})
    s.add('events.lifecycle', {})
    s.add('storage.other', {phase: 'x'})
    expect(eventsSummaryLines(s.json())).toEqual([
      '  events:',
      '    instances:                  2',
      '      ?: incarnations=[0] restarts=0',
      '      b: incarnations=[10, 20] restarts=1',
      '    batches (type/tier/backend/shared):',
      '      ?/?/-/local: 1',
      '      store/l2/s3/local: 1',
      '      store/l2/s3/shared: 1',
      '    entries:',
      '      ?: 0',
      '      store: 2',
      '    store_bytes:                12',
      '    entries_with_tokens:        1',
      '    lifecycle:                  ?=1, start=1',
    ])
  })
})
