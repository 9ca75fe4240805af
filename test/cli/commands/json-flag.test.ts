// --json means the same in every command: the document on stdout, nothing on stderr but warnings, and an error as
// the error document (code, message, exit code and the hint of the text form).
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../../src/schemas.js'
import {FIXTURES, ROOT, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const isError = validatorFor('error.schema.json')
const LCT = join(ROOT, 'samples', 'lct')

describe('--json', () => {
  it('convert: the summary on stdout; stderr holds the warnings and nothing else', async () => {
    const input = join(ROOT, 'samples', 'qwen_bailian_sample.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'q.jsonl'),
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    expect(JSON.parse(r.stdout).traces.total).toBe(18)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    for (const l of lines) expect(l).toMatch(/^warning: .*qwen_bailian_sample\.jsonl:\d+: /)
    // without --json the same run prints its banner and summary there
    const text = await lmt(['convert', '-i', input, '-f', 'qwen_bailian', '-o', join(tmp.dir, 'q2.jsonl')])
    expect(text.stderr).toContain('summary:')
  })

  it('replay and simulate: stderr is empty', async () => {
    const replay = await lmt([
      'replay',
      join(LCT, 'v2_full_prefetch_cycle.lct'),
      '--config-from-header',
      '--output-dir',
      join(tmp.dir, 'replay'),
      '--json',
    ])
    expect(replay.exitCode).toBe(0)
    expect(replay.stderr).toBe('')
    expect(JSON.parse(replay.stdout).model).toBeDefined()
    const trace = join(FIXTURES, 'simulate', 'A', 'trace.jsonl')
    const simJson = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--capacity-blocks',
      '2',
      '-o',
      join(tmp.dir, 'sim'),
      '--json',
    ])
    expect(simJson.exitCode).toBe(0)
    expect(simJson.stderr).toBe('')
  })

  it('trace dump takes --json: the frames as JSON lines, an error as the error document', async () => {
    const ok = await lmt(['trace', 'dump', join(LCT, 'v2_full_prefetch_cycle.lct'), '--limit', '1', '--json'])
    expect(ok.exitCode).toBe(0)
    const lines = ok.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines[0].kind).toBe('header')
    expect(lines.at(-1)).toEqual({end: 'limit reached'})
    const bad = await lmt(['trace', 'dump', join(LCT, 'bad_magic.lct'), '--json'])
    expect(bad.exitCode).toBe(1)
    const doc = JSON.parse(bad.stdout)
    expect(isError(doc)).toBe(true)
    expect(doc.error.code).toBe('LMT_LCT_BAD_MAGIC')
  })

  it('an error document over 64 KiB reaches a pipe whole (the exit waits for standard output to take it)', () => {
    // a format name of 100,000 characters, echoed in the message: a document of about 100 KB
    for (let run = 0; run < 2; run++) {
      const r = lmtProcess(['convert', '-i', 'x', '-f', 'q'.repeat(100_000), '--json'])
      expect(r.exitCode).toBe(2)
      expect(r.stdout.length).toBeGreaterThan(100_000)
      const doc = JSON.parse(r.stdout)
      expect(isError(doc)).toBe(true)
      expect(doc.error.code).toBe('LMT_CONVERT_UNKNOWN_FORMAT')
    }
  })

  it("an error document keeps the text form's hint", async () => {
    const text = await lmt(['simulate', '--trace', 'x.jsonl', '--polcy', 'lru'])
    const hint = /^hint: (.*)$/m.exec(text.stderr)?.[1]
    expect(hint).toBe('run "lmt simulate --help" for its flags and examples')
    const j = await lmt(['simulate', '--trace', 'x.jsonl', '--polcy', 'lru', '--json'])
    expect(j.exitCode).toBe(2)
    const doc = JSON.parse(j.stdout)
    expect(isError(doc)).toBe(true)
    expect(doc.error).toEqual({
      code: 'LMT_CLI_USAGE',
      message: 'unknown flag --polcy; did you mean --policy?',
      exitCode: 2,
      hint,
    })
    // several hints: one per line, in the order of the text form
    const unknown = await lmt(['convert', '-i', 'x', '-f', 'nosuchformat', '--json'])
    const unknownText = await lmt(['convert', '-i', 'x', '-f', 'nosuchformat'])
    const hints = [...unknownText.stderr.matchAll(/^hint: (.*)$/gm)].map((m) => m[1])
    expect(hints.length).toBeGreaterThan(0)
    expect(JSON.parse(unknown.stdout).error.hint).toBe(hints.join('\n'))
  })
})
