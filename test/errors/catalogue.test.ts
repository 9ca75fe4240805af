import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  errorKinds,
  exitCodeOfKind,
  lctError,
  lmtError,
  lmtMessage,
  LmtError,
  NON_CATALOGUE_CODES,
  PASS_THROUGH_KINDS,
} from '../../src/errors.js'
import {ROOT} from '../helpers/cli.js'

const SCHEME = /^(CLI|CONVERT|PLUGIN|OUTPUT|LCT|SIM|REPLAY|REPORT)_[A-Z0-9]+(_[A-Z0-9]+)*$/

function sources(dir: string, extension = '.ts'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules') return []
    if (statSync(path).isDirectory()) return sources(path, extension)
    return path.endsWith(extension) ? [path] : []
  })
}

describe('the error catalogue', () => {
  const kinds = errorKinds()

  it('every kind is <AREA>_<CONDITION> with a known area, and its code is LMT_ + kind', () => {
    expect(kinds.length).toBeGreaterThan(50)
    for (const kind of kinds) {
      expect(kind).toMatch(SCHEME)
      expect(new LmtError(kind, 'm').code).toBe(`LMT_${kind}`)
      expect([1, 2, 130]).toContain(exitCodeOfKind(kind))
    }
    for (const code of NON_CATALOGUE_CODES) {
      expect(code).toMatch(SCHEME)
      expect(kinds).not.toContain(code)
    }
  })

  it("no factory returns the caller's text as it is, except the pass-through kinds, each with its reason", () => {
    const text = readFileSync(join(ROOT, 'src', 'errors.ts'), 'utf8')
    const passThrough: string[] = []
    for (const kind of kinds) {
      const facts = Array.from({length: 8}, (_, i) => `\u0001fact ${i}`)
      let message: string
      try {
        message = (lmtMessage as unknown as (k: string, ...a: unknown[]) => string)(kind, ...facts)
      } catch {
        continue // a factory that needs facts other than strings (a list, a rule name) words them itself
      }
      if (facts.includes(message)) passThrough.push(kind)
    }
    expect(passThrough.sort()).toEqual([...PASS_THROUGH_KINDS].sort())
    for (const kind of PASS_THROUGH_KINDS) {
      const before = text
        .slice(0, text.indexOf(`\n  ${kind}: `))
        .split('\n')
        .slice(-2)
        .join('\n')
      expect(before, kind).toContain('a pass-through by design')
    }
  })

  it('every kind is thrown somewhere in src/ or plugins/ (a kind for plugins: in the example plugin)', () => {
    const code = [
      ...sources(join(ROOT, 'src')),
      ...sources(join(ROOT, 'plugins')),
      ...sources(join(ROOT, 'examples', 'lmt-plugin-example'), '.js'),
    ]
      .filter((p) => !p.endsWith(join('src', 'errors.ts')))
      .map((p) => readFileSync(p, 'utf8'))
      .join('\n')
    const makers =
      'lmtError|lctError|LmtError|outputError|creationError|ensureDirectory|refuseNonRegularOutput'
    // a quoted kind counts when the statement it is in calls one of the makers before it
    const inMaker = new RegExp(`\\b(?:${makers})\\([^;]*$`)
    const thrown = (kind: string) =>
      [...code.matchAll(new RegExp(`'${kind}'`, 'g'))].some((m) =>
        inMaker.test(code.slice(Math.max(0, m.index - 400), m.index)),
      )
    const unthrown = kinds.filter((kind) => !thrown(kind))
    expect(unthrown).toEqual([])
  })

  it('the factories word the facts as the throw sites did before the catalogue held the wording', () => {
    expect(lmtMessage('CLI_FLAGS_EXCLUSIVE', '--capacity', '--capacity-blocks')).toBe(
      '--capacity and --capacity-blocks are mutually exclusive',
    )
    expect(lmtMessage('CLI_BAD_VALUE', '--seed', 'x', 'an integer (decimal or 0x hex)')).toBe(
      '--seed: "x" is not an integer (decimal or 0x hex)',
    )
    expect(lmtMessage('CLI_OUT_OF_RANGE', '--speed', 'a number > 0')).toBe('--speed must be a number > 0')
    expect(
      lmtMessage('CLI_OUT_OF_RANGE', '--max-frame-bytes', 'an integer from 1024 to 1073741824 (1 GiB)', 5),
    ).toBe('--max-frame-bytes must be an integer from 1024 to 1073741824 (1 GiB); got 5')
    expect(lmtMessage('CONVERT_BAD_BLOCK_SIZE', 'a:0', 'below-one')).toBe(
      '--instance-block-sizes: "a:0": block size must be at least 1',
    )
    expect(lmtMessage('PLUGIN_CONTRACT_VIOLATION', 'FooConverter', 'traces-result', 'a number')).toBe(
      'FooConverter.convertToTraces() must return an array or an (async) iterable of traces (got a number)',
    )
    expect(lmtMessage('PLUGIN_CONVERTER_THREW', 'FooConverter', 'boom', 'in.jsonl')).toBe(
      'FooConverter failed on in.jsonl: boom',
    )
    expect(lmtMessage('PLUGIN_CONVERTER_THREW', 'FooConverter', 'boom')).toBe(
      'FooConverter failed to initialise: boom',
    )
    expect(lmtMessage('SIM_PARTIAL_TAIL', 't.jsonl:3', 5, 40, 8, 4, 'implied')).toBe(
      't.jsonl:3: contains partial tail block keys: 5 keys, input_len 40, block_size 8 (at most 4 keys) [V10]; implied',
    )
    expect(
      lmtMessage('SIM_CONFIG_DUPLICATE', 'instance_id', 'i', '/instance_groups/0/instances/1/instance_id'),
    ).toBe('instance_id "i" appears twice (/instance_groups/0/instances/1/instance_id)')
    expect(lmtMessage('REPLAY_SCHEMA_NOT_REPLAYABLE', 3, 'storage', [2])).toBe(
      'trace_schema_version 3 is not replayable by level storage (replayable: 2)',
    )
    expect(lmtMessage('REPLAY_SCHEMA_NOT_REPLAYABLE', 1, 'storage', [2])).toMatch(
      /^trace_schema_version 1 is not replay-safe: .* \(pass --allow-schema-1 to replay it with every cache_salt empty\)$/,
    )
    expect(lmtMessage('SIM_OUTPUT_FAILED', 'cannot write out/summary.json', 'ENOSPC')).toBe(
      'cannot write out/summary.json: ENOSPC',
    )
  })

  it('a .lct error carries its file, offset and detail; the message names the file', () => {
    const body = lctError('LCT_TRUNCATED', {source: 't.lct', offset: 4}, 4, 10, 20)
    expect(body).toMatchObject({
      kind: 'LCT_TRUNCATED',
      code: 'LMT_LCT_TRUNCATED',
      source: 't.lct',
      offset: 4,
      detail: 'truncated frame body at offset 4 (got 10 of 20)',
      message: "trace file 't.lct': truncated frame body at offset 4 (got 10 of 20)",
      exitCode: 1,
    })
    expect(lctError('LCT_TRUNCATED', {source: 't.lct', offset: 0}, 0).detail).toBe(
      'truncated frame length prefix at offset 0',
    )
    // lmtError builds the same message from the same facts (the file name first)
    expect(lmtError('LCT_BAD_MAGIC', 't.lct', "b'WRNG'").message).toBe(
      "trace file 't.lct': bad magic (got b'WRNG', expected b'LMCT')",
    )
    expect(
      lctError('LCT_FRAME_TOO_LARGE', {source: 't', offset: 0, suggestions: ['s']}, 9, 8).suggestions,
    ).toEqual(['s'])
  })
})

describe('a kind the catalogue does not have', () => {
  it('is the plugin failing in its own words, not a TypeError inside lmt', () => {
    // a third-party converter written against the names from before the naming scheme
    const lmtErrorOf = lmtError as unknown as (kind: string, ...args: unknown[]) => LmtError
    const err = lmtErrorOf('CONVERTER_FAILED', 'my converter cannot read row 3', {suggestions: ['fix row 3']})
    expect(err).toBeInstanceOf(LmtError)
    expect(err.kind).toBe('PLUGIN_CONVERTER_FAILED')
    expect(err.message).toBe('my converter cannot read row 3')
    expect(err.suggestions).toEqual(['fix row 3'])
    expect(err.exitCode).toBe(1)
    expect(lmtErrorOf('NO_SUCH_KIND').message).toBe('NO_SUCH_KIND')
  })
})
