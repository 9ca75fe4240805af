import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {decodedFixture, FIXTURE_NAMES, LCT} from '../../formats/lct/helpers.js'
import {lmt, lmtProcess, ROOT} from '../../helpers/cli.js'

const OPS = 'lmcache.v1.distributed.storage_manager.StorageManager'

describe('lmt trace info', () => {
  it('prints the report of §7.1 with the truncation warning on stderr, exit 0', async () => {
    const file = join(LCT, 'v2_truncated_tail.lct')
    const r = await lmt(['trace', 'info', file])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toBe(
      [
        `Trace file: ${file}`,
        '  level:                      storage',
        '  format_version:             1',
        '  trace_schema_version:       2',
        '  duration:                   0.150s',
        '  sm_config_digest:           6bddebcb6e17a2fd0b9b5ac9aa8984f6d2e17e3914b2274ec67ba18d084e19e5',
        '  total_records:              5',
        '  ops:',
        `    ${OPS}.finish_write: 1`,
        `    ${OPS}.read_prefetched_results.__enter__: 1`,
        `    ${OPS}.read_prefetched_results.__exit__: 1`,
        `    ${OPS}.reserve_write: 1`,
        `    ${OPS}.submit_prefetch_task: 1`,
        '',
      ].join('\n'),
    )
    expect(r.stderr).toBe('warning: truncated frame body at offset 2940 (got 427 of 430)\n')
  })

  it('placeholder and events headers', async () => {
    const p = await lmt(['trace', 'info', join(LCT, 'v1_header_only_placeholder.lct')])
    expect(p.stdout).toContain(
      '  duration:                   0.000s\n  sm_config_digest:           (none)\n  total_records:              0\n  ops: (none)\n',
    )
    const e = await lmt(['trace', 'info', join(LCT, 'events_level_meta_INFERRED.lct')])
    expect(e.stdout).toContain(
      '  cache_event_schema_version: 1\n  instance_id:                node-a\n  lmcache_version:            0.4.0\n  total_records:              2\n  ops:\n    events.lifecycle: 2\n',
    )
  })

  it('--json document', async () => {
    const file = join(LCT, 'v2_truncated_tail.lct')
    const r = await lmt(['trace', 'info', file, '--json'])
    const doc = JSON.parse(r.stdout)
    expect(Object.keys(doc)).toEqual([
      'file',
      'level',
      'format_version',
      'trace_schema_version',
      'duration_s',
      't_mono_start',
      't_wall_start',
      'sm_config_digest',
      'sm_config_json',
      'placeholder_header',
      'level_meta',
      'total_records',
      'ops',
      'frames_skipped',
      'truncated',
      'warnings',
    ])
    expect(doc).toMatchObject({
      file,
      duration_s: 0.15,
      t_mono_start: 12345.678,
      t_wall_start: 1750000000.125,
      placeholder_header: false,
      total_records: 5,
      truncated: true,
      frames_skipped: 0,
      warnings: ['truncated frame body at offset 2940 (got 427 of 430)'],
    })
    expect(Object.keys(doc.ops)).toHaveLength(5)
  })

  it('exit 1 with coded errors, exit 2 for usage errors', async () => {
    const bad = await lmt(['trace', 'info', join(LCT, 'bad_magic.lct'), '--json'])
    expect(bad.exitCode).toBe(1)
    expect(JSON.parse(bad.stdout)).toEqual({
      error: {
        code: 'LMT_LCT_BAD_MAGIC',
        message: `trace file '${join(LCT, 'bad_magic.lct')}': bad magic (got b'WRNG', expected b'LMCT')`,
        offset: 0,
        exitCode: 1,
        hint: expect.stringContaining(
          'the file is not an LMCache trace (.lct); a JSONL trace is read by `lmt simulate`',
        ),
      },
    })
    const g0 = await lmt(['trace', 'info', join(LCT, 'v0_pr1_lmcache_version_header.lct')])
    expect(g0.exitCode).toBe(1)
    expect(g0.stderr).toMatch(
      /^error: trace file '.*': this trace was written by the first LMCache trace recorder/,
    )
    // a text file where an .lct is expected: the bad-magic error first, with a hint saying what the file is not
    const jsonl = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
    for (const sub of ['info', 'dump']) {
      const text = await lmt(['trace', sub, jsonl])
      expect(text.exitCode).toBe(1)
      const lines = text.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`error: trace file '${jsonl}': bad magic (got b'{"ti', expected b'LMCT')`)
      expect(lines[1]).toMatch(
        /^hint: the file starts with text, so it is not an LMCache trace \(\.lct\); a JSONL trace is read by `lmt simulate`.*`lmt convert`/,
      )
      expect(text.stderr).not.toContain('--max-frame-bytes')
      const doc = JSON.parse((await lmt(['trace', sub, jsonl, '--json'])).stdout)
      expect(doc.error.code).toBe('LMT_LCT_BAD_MAGIC')
      expect(`hint: ${doc.error.hint}`).toBe(lines[1])
    }
    expect((await lmt(['trace', 'info'])).exitCode).toBe(2)
    expect(
      (await lmt(['trace', 'info', join(LCT, 'v1_reserve_finish.lct'), '--max-frame-bytes', '10'])).exitCode,
    ).toBe(2)
    expect(lmtProcess(['trace', 'info', '/nonexistent.lct']).exitCode).toBe(1)
  })
})

describe('lmt trace dump', () => {
  it.each(FIXTURE_NAMES.filter((n) => n !== 'bad_magic' && !n.startsWith('v0')))(
    '--raw output of %s equals decoded.json',
    async (name) => {
      const expected = decodedFixture(name)
      const r = await lmt(['trace', 'dump', join(LCT, `${name}.lct`), '--raw'])
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      const end = lines.pop()
      expect(end).toEqual({end: expected.end})
      expect(lines.map((l) => ({offset: l.offset, length: l.length, value: l.value}))).toEqual(
        expected.frames,
      )
      expect(lines.map((l) => l.kind)).toEqual(['header', ...expected.frames.slice(1).map(() => 'record')])
    },
  )

  it('decodes codec values by default', async () => {
    const r = await lmt(['trace', 'dump', join(LCT, 'v2_full_prefetch_cycle.lct'), '--limit', '1'])
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(3)
    expect(lines[1].value.args.keys[0]).toEqual({
      $ObjectKey: {
        chunk_hash: {$bytes_hex: '00000000'},
        model_name: 'test',
        kv_rank: 0,
        object_group_id: 0,
        cache_salt: '',
      },
    })
    expect(lines[2]).toEqual({end: 'limit reached'})
  })

  it.each([
    ['0', 2],
    ['100', 8],
  ])('--limit %s', async (limit, count) => {
    const r = await lmt(['trace', 'dump', join(LCT, 'v2_full_prefetch_cycle.lct'), '--limit', limit])
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(count)
    expect(JSON.parse(lines[lines.length - 1])).toEqual({end: limit === '0' ? 'limit reached' : 'clean EOF'})
  })
})
