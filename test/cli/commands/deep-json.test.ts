import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../../helpers/cli.js'
import {recordFrame} from '../../fuzz/lct-inputs.js'
import {header} from '../../formats/lct/helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const nest = (n: number) => '['.repeat(n) + ']'.repeat(n)
/** `row` (a JSON object line) with one more field the converters ignore, holding `value`. */
const withField = (row: string, value: string) => row.replace(/}\s*$/, `, "ignored": ${value}}`)
const fixtureLines = (name: string, n: number) =>
  readFileSync(join(FIXTURES, 'convert', name), 'utf8')
    .split('\n')
    .slice(0, n)

const cases = [
  {format: 'qwen_bailian', lines: fixtureLines('qwen_bailian_sample.jsonl', 3)},
  {format: 'mooncake', lines: fixtureLines('mooncake_conversation_head200.jsonl', 3)},
  {format: 'publisher_log', lines: fixtureLines('event_publisher.log', 3)}, // get, start write, finish write
]

async function convert(name: string, lines: string[], format: string) {
  const input = join(tmp.dir, `${name}.jsonl`)
  const out = join(tmp.dir, `${name}.out.jsonl`)
  writeFileSync(input, lines.join('\n') + '\n')
  const r = await lmt(['convert', '-i', input, '-f', format, '-o', out, '--json'])
  expect(r.exitCode, r.stderr).toBe(0)
  return {summary: JSON.parse(r.stdout), stderr: r.stderr, output: readFileSync(out, 'utf8')}
}

describe('deeply nested JSON lines (convert)', () => {
  it.each(cases)('$format: a line nested 5,000 deep is skipped as too_deep; the rest converts', async (c) => {
    const plain = await convert(`${c.format}-plain`, [c.lines[0], c.lines[2]], c.format)
    const deep = [c.lines[0], withField(c.lines[1], nest(5000)), c.lines[2]]
    const r = await convert(`${c.format}-deep`, deep, c.format)
    expect(r.summary.inputs[0]).toMatchObject({linesRead: 3, blankLines: 0, skipped: {too_deep: 1}})
    expect(r.stderr).toMatch(
      new RegExp(
        `${c.format}-deep\\.jsonl:2: too_deep: nesting deeper than 1000 levels \\(at column \\d+\\)`,
      ),
    )
    // the other lines give what they give without the deep one (publisher: a finish without its start)
    expect(r.output).toBe(plain.output)
  })

  it.each(cases)('$format: 1,000 levels in an ignored field are still a valid line', async (c) => {
    const plain = await convert(`${c.format}-ok-plain`, c.lines, c.format)
    const lines = [c.lines[0], withField(c.lines[1], nest(999)), c.lines[2]] // the row itself is level 1
    const r = await convert(`${c.format}-ok`, lines, c.format)
    expect(r.summary.inputs[0].skipped).toEqual(plain.summary.inputs[0].skipped)
    expect(r.output).toBe(plain.output)
  })
})

describe('deeply nested JSON rows (simulate)', () => {
  const rows = readFileSync(join(FIXTURES, 'simulate', 'A', 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
  const trace = join(tmp.dir, 'sim.jsonl')
  writeFileSync(trace, [rows[0], withField(rows[1], nest(5000)), ...rows.slice(2)].join('\n') + '\n')
  const simulate = (out: string, ...extra: string[]) =>
    lmt(['simulate', '--trace', trace, '--capacity-blocks', '10', '--block-size', '4', '-o', out, ...extra])

  it('names the line and rule V1 (a coded error, not a crash)', async () => {
    const r = await simulate(join(tmp.dir, 's1'), '--json')
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'LMT_SIM_TRACE_ROW'})
    expect(JSON.parse(r.stdout).error.message).toMatch(
      /^sim\.jsonl:2: invalid JSON: nesting deeper than 1000 levels at column \d+ \[V1\]$/,
    )
  })

  it('counts it under --skip-invalid and replays the other rows', async () => {
    const out = join(tmp.dir, 's2')
    const r = await simulate(out, '--skip-invalid')
    expect(r.exitCode, r.stderr).toBe(0)
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))
    expect(summary.trace.skipped.invalid).toEqual({V1: 1})
    expect(summary.trace.rows_by_type.write).toBe(rows.filter((r) => r.includes('"write"')).length - 1)
  })
})

describe('deeply nested msgpack in .lct frames', () => {
  it('a record nested 100,000 deep is skipped with a warning naming its offset (trace info and dump)', async () => {
    const deep = Buffer.concat([
      Buffer.from([0x81, 0xa1, 0x61]),
      Buffer.alloc(100_000, 0x91),
      Buffer.from([0xc0]),
    ])
    const records = [
      recordFrame('a.op', {n: 1}, 0.1),
      recordFrame('b.op', deep, 0.2),
      recordFrame('a.op', {n: 2}, 0.3),
    ]
    const file = join(tmp.dir, 'deep.lct')
    writeFileSync(file, Buffer.concat([header(), ...records]))
    const offset = header().length + records[0].length
    const warning = `warning: skipping malformed record at offset ${offset} (frame length ${records[1].length - 4}): not valid msgpack (nesting deeper than 64 at byte`
    const info = await lmt(['trace', 'info', file, '--json'])
    expect(info.exitCode).toBe(0)
    expect(JSON.parse(info.stdout)).toMatchObject({total_records: 2})
    expect(info.stderr).toContain(warning)
    const dump = await lmt(['trace', 'dump', file])
    expect(dump.exitCode).toBe(0)
    expect(dump.stdout).toContain(`"offset":${offset},"length":${records[1].length - 4},"kind":"malformed"`)
    expect(dump.stderr).toContain(warning)
  })
})
