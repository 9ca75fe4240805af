import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, ROOT, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const RAW = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
const outDir = () => join(tmp.dir, `o${Math.random().toString(36).slice(2)}`)

describe('simulate on a trace that is not Get+Write JSONL, or that replays nothing', () => {
  it('a raw Mooncake trace names the conversion it needs (exit 1), with and without --skip-invalid', async () => {
    for (const extra of [[], ['--skip-invalid'], ['--block-size', '512', '--skip-invalid']]) {
      const out = outDir()
      const r = await lmt(['simulate', '--trace', RAW, '--capacity-blocks', '-1', '-o', out, ...extra])
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain(
        'mooncake_conversation_trace.jsonl is not the Get+Write JSONL that lmt simulate and lmt report read: its first line looks like a mooncake trace; run `lmt convert -f mooncake` first',
      )
      expect(r.stderr).toContain(`lmt convert -f mooncake -i ${RAW}`)
      expect(existsSync(out)).toBe(false) // no summary, no plot, not even the directory
    }
    const j = await lmt(['simulate', '--trace', RAW, '--capacity-blocks', '-1', '-o', outDir(), '--json'])
    expect(JSON.parse(j.stdout).error).toMatchObject({code: 'LMT_SIM_TRACE_NOT_CONVERTED', exitCode: 1})
  })

  it('a Qwen-Bailian trace and a publisher log are named too', async () => {
    for (const [file, format] of [
      ['qwen_bailian_sample.jsonl', 'qwen_bailian'],
      ['event_publisher.log', 'publisher_log'],
    ]) {
      const r = await lmt([
        'simulate',
        '--trace',
        join(FIXTURES, 'convert', file),
        '--capacity-blocks',
        '-1',
        '-o',
        outDir(),
      ])
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain(`looks like a ${format} trace; run \`lmt convert -f ${format}\` first`)
    }
  })

  it('an empty trace, or one whose every row is skipped, is an error with no outputs', async () => {
    const empty = join(tmp.dir, 'empty.jsonl')
    writeFileSync(empty, '\n')
    const out = outDir()
    const r = await lmt(['simulate', '--trace', empty, '--capacity-blocks', '-1', '-o', out, '--json'])
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error).toEqual({
      code: 'LMT_SIM_NO_ROWS',
      message: 'empty.jsonl: no row was replayed (the trace has no rows); nothing was written',
      exitCode: 1,
      hint: 'check the trace and the configuration; a run must replay at least one row',
    })
    expect(existsSync(out)).toBe(false)
    const junk = join(tmp.dir, 'junk.jsonl')
    writeFileSync(junk, '{"foo": 1}\n{"type": "get"}\n')
    const s = await lmt([
      'simulate',
      '--trace',
      junk,
      '--capacity-blocks',
      '-1',
      '-o',
      outDir(),
      '--skip-invalid',
    ])
    expect(s.exitCode).toBe(1)
    expect(s.stderr).toContain(
      'junk.jsonl: no row was replayed (2 of 2 rows were invalid and skipped (V3 2))',
    )
    expect(s.stderr).toContain('run without --skip-invalid')
  })

  it('a configuration none of whose instances is in the trace replays nothing', async () => {
    const cfg = join(tmp.dir, 'other.json')
    writeFileSync(
      cfg,
      JSON.stringify({
        trace_file_path: join(FIXTURES, 'simulate', 'A', 'trace.jsonl'),
        output_result_path: outDir(),
        instance_groups: [
          {group_name: 'g', quota_capacity_blocks: -1, instances: [{instance_id: 'nobody', block_size: 4}]},
        ],
      }),
    )
    for (const extra of [[], ['--sweep', '--sweep-capacities', '1,2']]) {
      const r = await lmt(['simulate', cfg, '--json', ...extra])
      expect(r.exitCode).toBe(1)
      const e = JSON.parse(r.stdout).error
      expect(e.code).toBe('LMT_SIM_NO_ROWS')
      expect(e.message).toMatch(/rows are of instances that are not configured \(i\)/)
    }
  })
})
