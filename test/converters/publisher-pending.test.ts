import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const event = (fields: Record<string, unknown>) =>
  JSON.stringify({source: 'instA', ...fields}).replace('"KEYS"', String(fields.keys))

/** Each output line's type, timestamp and keys, as written. */
const traces = (output: string) =>
  readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => /"type": "(\w+)".*"timestamp_ns": (\d+), "keys": (\[[^\]]*\])/.exec(l)?.slice(1))

describe('publisher_log: events pending across many batches', () => {
  it('keep their keys once copied out of their batch (a get matched 3,000 lines later, a write never finished)', async () => {
    const lines = [
      event({type: 'GetCacheLocation', trigger_time_us: 1000, keys: [5, 6, 7]}),
      event({type: 'StartWriteCache', trigger_time_us: 1001, write_session_id: 'a', keys: [5, 6, 8, 9]}),
      '{"source":"instA","type":"StartWriteCache","trigger_time_us":1002,"write_session_id":"b","keys":[-9223372036854775808,1]}',
      ...Array.from({length: 3000}, (_, i) => event({type: 'Heartbeat', trigger_time_us: 1003 + i})),
      event({type: 'FinishWriteCache', trigger_time_us: 5000, write_session_id: 'a'}),
    ]
    const input = join(tmp.dir, 'pending.log')
    const output = join(tmp.dir, 'pending.jsonl')
    writeFileSync(input, lines.join('\n') + '\n')
    const r = await lmt(['convert', '-q', '-f', 'publisher_log', '-i', input, '-o', output])
    expect(r.exitCode).toBe(0)
    expect(traces(output)).toEqual([
      ['get', '1000000', '[5, 6, 7]'],
      ['write', '5000000', '[5, 6, 7]'],
      ['write', '101002000', '[-9223372036854775808, 1]'],
    ])
  })

  it('pair a write with the newest matching get among thousands of spilled ones sharing its first key', async () => {
    // 3,000 gets with first key 1 and second key 1000+i; then writes for gets 7 and 2,500 and one sharing only the
    // first key: each must find its own get however many spilled ones it passes on the way
    const gets = Array.from({length: 3000}, (_, i) =>
      event({type: 'GetCacheLocation', trigger_time_us: 1000 + i, keys: [1, 1000 + i, 5]}),
    )
    const write = (s: string, t: number, keys: number[]) => [
      event({type: 'StartWriteCache', trigger_time_us: t, write_session_id: s, keys}),
      event({type: 'FinishWriteCache', trigger_time_us: t + 1, write_session_id: s}),
    ]
    const lines = [
      ...gets,
      ...write('a', 9000, [1, 1007, 6]),
      ...write('b', 9010, [1, 5000, 5]),
      ...write('c', 9020, [1, 3500, 9, 9]),
    ]
    const input = join(tmp.dir, 'shared-first-key.log')
    const output = join(tmp.dir, 'shared-first-key.jsonl')
    writeFileSync(input, lines.join('\n') + '\n')
    const r = await lmt(['convert', '-q', '-f', 'publisher_log', '-i', input, '-o', output, '--json'])
    expect(r.exitCode).toBe(0)
    const writes = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.includes('"type": "write"'))
      .map((l) => /"timestamp_ns": (\d+), "keys": (\[[^\]]*\])/.exec(l)?.slice(1))
    expect(writes).toEqual([
      ['9001000', '[1, 1007, 5]'],
      ['9021000', '[1, 3500, 5]'],
    ])
    expect(JSON.parse(r.stdout).inputs[0].dropped).toEqual({write_unmatched: 2})
  })

  it('flush unfinished sessions in the order each was first started, a superseded one in its first place', async () => {
    // s1 is started, then s2, then s1 again (superseding it); neither finishes. The flush takes s1 first (its
    // first place, as a Python dict keeps it), so s1 pairs with the one get both match and s2 is written alone.
    const lines = [
      event({type: 'GetCacheLocation', trigger_time_us: 1000, keys: [5, 6, 7]}),
      event({type: 'StartWriteCache', trigger_time_us: 1001, write_session_id: 's1', keys: [5, 6, 8]}),
      event({type: 'StartWriteCache', trigger_time_us: 1002, write_session_id: 's2', keys: [5, 6, 9]}),
      event({type: 'StartWriteCache', trigger_time_us: 1003, write_session_id: 's1', keys: [5, 6, 10]}),
    ]
    const input = join(tmp.dir, 'superseded.log')
    const output = join(tmp.dir, 'superseded.jsonl')
    writeFileSync(input, lines.join('\n') + '\n')
    const r = await lmt(['convert', '-q', '-f', 'publisher_log', '-i', input, '-o', output, '--json'])
    expect(r.exitCode).toBe(0)
    expect(traces(output)).toEqual([
      ['get', '1000000', '[5, 6, 7]'],
      ['write', '101002000', '[5, 6, 9]'],
      ['write', '101003000', '[5, 6, 7]'],
    ])
    expect(JSON.parse(r.stdout).inputs[0].dropped).toEqual({start_superseded: 1})
  })
})
