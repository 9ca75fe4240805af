import {closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync} from 'node:fs'
import {basename, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {MAX_LINE_BYTES} from '../../../src/formats/json/line-reader.js'
import {lmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
const noBreaks = join(tmp.dir, 'no-breaks.jsonl')
const qwenRow = '{"timestamp": 1.5, "input_length": 40, "hash_ids": [1, 2]}'

beforeAll(() => {
  // a first "line" just over the limit (a binary or a corrupt file), then one good row
  const fd = openSync(noBreaks, 'w')
  const piece = Buffer.alloc(1 << 20, 0x78)
  for (let written = 0; written <= MAX_LINE_BYTES; written += piece.length) writeSync(fd, piece)
  writeSync(fd, `\n${qwenRow}\n`)
  closeSync(fd)
})
afterAll(() => tmp.cleanup())

/** `lmt simulate` in the quick form over `trace` with 10 blocks, outputs in `out`. */
const simulate = (trace: string, out: string, ...extra: string[]) =>
  lmt(['simulate', '--trace', trace, '--capacity-blocks', '10', '-o', out, ...extra])

describe('lines over the length limit', () => {
  it('convert skips such a line with a warning and counts it; the good rows convert', async () => {
    const out = join(tmp.dir, 'out.jsonl')
    const r = await lmt(['convert', '-i', noBreaks, '-f', 'qwen_bailian', '-o', out, '--json'])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toMatch(
      new RegExp(
        `no-breaks\\.jsonl:1: line_too_long: the line is ${MAX_LINE_BYTES + (1 << 20)} bytes long; lines longer than ${MAX_LINE_BYTES} bytes \\(64 MiB\\) are not read \\| x{100}\\.\\.\\.`,
      ),
    )
    const summary = JSON.parse(r.stdout)
    expect(summary.inputs[0]).toMatchObject({linesRead: 2, converted: 1, skipped: {line_too_long: 1}})
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(2)
  })

  it('simulate names the line and rule V1, or counts it under --skip-invalid', async () => {
    const trace = join(tmp.dir, 'trace.jsonl')
    const good = '{"type": "get", "instance_id": "i", "timestamp_ns": 5, "keys": [1], "input_len": 16}\n'
    writeFileSync(trace, readFileSync(noBreaks).subarray(0, MAX_LINE_BYTES + 10))
    writeFileSync(trace, '\n' + good, {flag: 'a'})
    const failed = await simulate(trace, join(tmp.dir, 's1'))
    expect(failed.exitCode).toBe(1)
    expect(failed.stderr).toContain('trace.jsonl:1: the line is')
    expect(failed.stderr).toContain('[V1]')
    const out = join(tmp.dir, 's2')
    const skipped = await simulate(trace, out, '--skip-invalid')
    expect(skipped.exitCode).toBe(0)
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))
    expect(summary.trace.skipped.invalid).toEqual({V1: 1})
    expect(summary.trace.rows_by_type.get).toBe(1)
  })
})

describe('a trace without a row to replay (quick form)', () => {
  // a run that replays nothing has no result: exit 1 and no outputs (it used to write an empty summary, exit 0)
  it.each([
    [
      'empty',
      '',
      'the trace has no rows',
      'check the trace and the configuration; a run must replay at least one row',
    ],
    [
      'all invalid',
      'not json\n',
      '1 of 1 rows were invalid and skipped (V1 1)',
      'run without --skip-invalid to see the first invalid row and why',
    ],
  ])('%s: LMT_SIM_NO_ROWS, exit 1, nothing written', async (_name, text, why, hint) => {
    const trace = join(tmp.dir, `t-${text.length}.jsonl`)
    writeFileSync(trace, text)
    const out = join(tmp.dir, `o-${text.length}`)
    const r = await simulate(trace, out, '--skip-invalid', '--json')
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error).toEqual({
      code: 'LMT_SIM_NO_ROWS',
      message: `${basename(trace)}: no row was replayed (${why}); nothing was written`,
      exitCode: 1,
      hint,
    })
    expect(existsSync(out)).toBe(false)
  })
})
