import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {KeyInterner} from '../../../src/simulate/input/key-interner.js'
import {newStats, readTraceRowBatches} from '../../../src/simulate/input/trace-source.js'
import {lmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const get = (ts: number, keys: number[], inputLen = keys.length * 4) =>
  `{"type": "get", "instance_id": "i", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}], "input_len": ${inputLen}}`
const write = (ts: number, keys: number[]) =>
  `{"type": "write", "instance_id": "i", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}]}`
const file = (name: string, lines: string[]): string => {
  const path = join(tmp.dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}
const options = (path: string, skipInvalid = false) => ({
  path,
  name: 't.jsonl',
  skipInvalid,
  mode: 'read_write' as const,
  keys: new KeyInterner(),
})

describe('readTraceRowBatches', () => {
  it('gives the rows in file order, in batches', async () => {
    const lines = Array.from({length: 50_000}, (_, t) => (t % 3 ? get(t, [t % 7, t]) : write(t, [t % 7, t])))
    const path = file('many.jsonl', lines)
    const batches: number[][] = []
    for await (const rows of readTraceRowBatches(options(path), newStats(path)))
      batches.push(rows.map((r) => r.lineNo))
    expect(batches.length).toBeGreaterThan(1) // more than one chunk read
    const flat = batches.flat()
    expect(flat).toEqual(Array.from({length: 50_000}, (_, i) => i + 1))
  })

  it('an invalid row throws after the rows before it were handed over; skipped with --skip-invalid', async () => {
    const path = file('bad.jsonl', [get(1, [1]), write(2, [1]), 'not json', get(3, [1])])
    const seen: number[] = []
    let error: Error | undefined
    try {
      for await (const rows of readTraceRowBatches(options(path), newStats(path)))
        seen.push(...rows.map((r) => r.lineNo))
    } catch (err) {
      error = err as Error
    }
    expect(seen).toEqual([1, 2])
    expect(error?.message).toMatch(/^t\.jsonl:3: /)
    const stats = newStats(path)
    const kept: number[] = []
    for await (const rows of readTraceRowBatches(options(path, true), stats))
      kept.push(...rows.map((r) => r.lineNo))
    expect(kept).toEqual([1, 2, 4])
    expect(stats.rows).toBe(4)
    expect(stats.invalid).toEqual({V1: 1})
  })

  it('a run reports an invalid row before a replay error of an earlier row of its replay batch', async () => {
    // rows are validated a replay batch (256 rows) ahead of the replay, as the original validates the whole
    // trace before replaying it: line 4 (not JSON) is reported, not line 2's partial tail (block size 4)
    const path = file('order.jsonl', [get(1, [1]), get(2, [1, 2], 4), write(3, [1]), 'not json'])
    const r = await lmt([
      'simulate',
      '--trace',
      path,
      '--block-size',
      '4',
      '--capacity-blocks',
      '10',
      '-o',
      join(tmp.dir, 'o'),
      '--json',
    ])
    expect(r.exitCode).toBe(1)
    const {error} = JSON.parse(r.stdout)
    expect(error.code).toBe('LMT_SIM_TRACE_ROW')
    expect(error.message).toMatch(/order\.jsonl:4: invalid JSON/)
    // without line 4 the partial tail is the error
    const tail = file('tail.jsonl', [get(1, [1]), get(2, [1, 2], 4), write(3, [1])])
    const t = await lmt([
      'simulate',
      '--trace',
      tail,
      '--block-size',
      '4',
      '--capacity-blocks',
      '10',
      '-o',
      join(tmp.dir, 'o2'),
      '--json',
    ])
    expect(JSON.parse(t.stdout).error.code).toBe('LMT_SIM_PARTIAL_TAIL')
  })
})
