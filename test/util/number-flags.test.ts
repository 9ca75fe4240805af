// The number-flag parsers: what each accepts, what it refuses and the usage error it gives; and lmt report's
// --capacity and --seed through them (the wording and exit code a user sees).
import {describe, expect, it} from 'vitest'
import {numberFlag, parseIntegerFlag, positiveNumberFlag, seedFlag} from '../../src/util/number-flags.js'
import {LmtError} from '../../src/errors.js'
import {FIXTURES, lmt} from '../helpers/cli.js'
import {join} from 'node:path'

function failure(f: () => unknown): LmtError {
  try {
    f()
  } catch (err) {
    if (err instanceof LmtError) return err
    throw err
  }
  throw new Error('no error thrown')
}

describe('numberFlag', () => {
  it('reads finite numbers as Number does; not given is undefined', () => {
    expect(numberFlag('capacity', '1.5')).toBe(1.5)
    expect(numberFlag('capacity', ' -2e3 ')).toBe(-2000)
    expect(numberFlag('capacity', '.5')).toBe(0.5)
    expect(numberFlag('capacity', undefined)).toBeUndefined()
  })
  it('refuses blank, non-numeric and infinite text with the command’s usage code', () => {
    for (const text of [
      '',
      '  ',
      'abc',
      '1.5GB',
      'Infinity',
      '-Infinity',
      'NaN',
      '0x10',
      '1e400',
      '1e-400',
    ]) {
      const err = failure(() => numberFlag('sweep-min', text))
      expect(err.code).toBe('LMT_CLI_BAD_VALUE')
      expect(err.exitCode).toBe(2)
      expect(err.message).toBe(`--sweep-min: "${text}" is not a number`)
    }
  })
})

describe('numberFlag with a range', () => {
  it('takes the bounds, refuses what is outside, and says the range', () => {
    const share = {min: 0, aboveMin: true, max: 1}
    expect(numberFlag('eviction-ratio', '1', share)).toBe(1)
    expect(numberFlag('eviction-ratio', '0.2', share)).toBe(0.2)
    for (const text of ['0', '-1', '1.5', '0x10'])
      expect(failure(() => numberFlag('eviction-ratio', text, share)).message).toBe(
        `--eviction-ratio: "${text}" is not a number above 0 and at most 1`,
      )
    expect(failure(() => numberFlag('t', '-1', {min: 0, words: 'a number of epoch seconds'})).message).toBe(
      '--t: "-1" is not a number of epoch seconds',
    )
  })
  it('a long value is cut in the message, which says how long it was', () => {
    const err = failure(() => numberFlag('x', 'y'.repeat(100_000)))
    expect(err.message).toBe(`--x: "${'y'.repeat(40)}… (100000 characters)" is not a number`)
  })
})

describe('parseIntegerFlag', () => {
  it('reads decimal integers within the range', () => {
    expect(parseIntegerFlag('jobs', '4', {min: 1, max: 256})).toBe(4)
    expect(parseIntegerFlag('capacity-blocks', '-1', {min: -1})).toBe(-1)
    expect(parseIntegerFlag('n', '9007199254740991')).toBe(Number.MAX_SAFE_INTEGER)
  })
  it('refuses text that is not one, and values outside the range (400 digits too), naming the flag and the range', () => {
    const cases: Array<[string, string, {min?: number; max?: number; minMeans?: string}, string]> = [
      [
        'capacity-blocks',
        'abc',
        {min: -1, minMeans: 'infinite'},
        'an integer from -1 (infinite) to 9007199254740991',
      ],
      [
        'capacity-blocks',
        '-5',
        {min: -1, minMeans: 'infinite'},
        'an integer from -1 (infinite) to 9007199254740991',
      ],
      ['jobs', '0', {min: 1, max: 256}, 'an integer from 1 to 256'],
      ['block-size', '1.5', {min: 1}, 'an integer from 1 to 9007199254740991'],
      ['block-size', '', {min: 1}, 'an integer from 1 to 9007199254740991'],
      ['block-size', ' 4', {min: 1}, 'an integer from 1 to 9007199254740991'],
      ['write-delay-ns', '9'.repeat(400), {min: 1}, 'an integer from 1 to 9007199254740991'],
    ]
    for (const [name, text, range, words] of cases) {
      const err = failure(() => parseIntegerFlag(name, text, range))
      expect(err.code).toBe('LMT_CLI_BAD_VALUE')
      expect(err.exitCode).toBe(2)
      const shown = text.length > 40 ? `${text.slice(0, 40)}… (${text.length} characters)` : text
      expect(err.message).toBe(`--${name}: "${shown}" is not ${words}`)
    }
  })
})

describe('seedFlag', () => {
  it('1 to 2^64 - 1, decimal or hex; 0, blanks and larger values refused', () => {
    expect(seedFlag('0xFFFFFFFFFFFFFFFF')).toBe(2n ** 64n - 1n)
    for (const text of ['0', '', ' ', '0x10000000000000000', '-1'])
      expect(failure(() => seedFlag(text)).code).toMatch(/^LMT_CLI_(BAD_VALUE|OUT_OF_RANGE)$/)
  })
})

describe('positiveNumberFlag', () => {
  it('reads numbers above 0 (Infinity too, as Number reads it)', () => {
    expect(positiveNumberFlag('capacity', '0.25', 'GB')).toBe(0.25)
    expect(positiveNumberFlag('capacity', 'Infinity', 'GB')).toBe(Infinity)
    expect(positiveNumberFlag('capacity', undefined, 'GB')).toBeUndefined()
  })
  it('refuses 0, negatives, blanks and non-numbers; the unit ends the message', () => {
    for (const text of ['0', '-1', '', 'abc', 'NaN']) {
      const err = failure(() => positiveNumberFlag('capacity', text, 'GB'))
      expect(err.code).toBe('LMT_CLI_BAD_VALUE')
      expect(err.message).toBe(`--capacity: "${text}" is not a positive number of GB`)
    }
    expect(failure(() => positiveNumberFlag('speed', '0')).message).toBe(
      '--speed: "0" is not a positive number',
    )
  })
})

describe('seedFlag: the notations', () => {
  it('reads decimal and 0x hex exactly past 2^53', () => {
    expect(seedFlag('0x12345678ABCDEF01')).toBe(0x12345678abcdef01n)
    expect(seedFlag(' 18446744073709551615 ')).toBe(2n ** 64n - 1n)
  })
  it('refuses what is not an integer, blank text included, saying which notations it reads', () => {
    expect(failure(() => seedFlag('1.5')).message).toBe('--seed: "1.5" is not an integer (decimal or 0x hex)')
    expect(failure(() => seedFlag(' ')).message).toBe('--seed: " " is not an integer (decimal or 0x hex)')
  })
})

describe('lmt report: its number flags', () => {
  it('--capacity that is not a positive number of GiB is a usage error (exit 2), as JSON under --json', async () => {
    const r = await lmt(['report', '--trace', 'no-such.jsonl', '--capacity', '-1', '--json'])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        code: 'LMT_CLI_BAD_VALUE',
        message: '--capacity: "-1" is not a positive number of GiB',
        exitCode: 2,
      },
    })
  })
  it('--seed that is not an integer is a usage error naming it', async () => {
    const r = await lmt(['report', '--trace', 'no-such.jsonl', '--seed', '1.5'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: --seed: "1.5" is not an integer')
  })
})

describe('every integer flag names itself when its value is wrong', () => {
  const trace = join(FIXTURES, 'convert', 'mooncake_conversation_head200.bs512.expected.jsonl')
  const qwen = join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')
  const lct = join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct')
  const storage = ['--l1-size-gb', '1', '--eviction-policy', 'LRU']
  it.each([
    [
      ['simulate', '--trace', trace, '--capacity-blocks', 'abc'],
      '--capacity-blocks: "abc" is not an integer',
    ],
    [
      ['simulate', '--trace', trace, '--capacity-blocks', '-5'],
      '--capacity-blocks: "-5" is not an integer from -1 (infinite)',
    ],
    [['simulate', '--trace', trace, '--sweep', '--jobs', '0'], '--jobs: "0" is not an integer from 1 to 256'],
    [
      ['simulate', '--trace', trace, '--capacity-blocks', '5', '--block-size', '0'],
      '--block-size: "0" is not an integer from 1',
    ],
    [
      ['simulate', '--trace', trace, '--capacity-blocks', '5', `--write-delay-ns=${'9'.repeat(400)}`],
      '--write-delay-ns: "9999',
    ],
    [
      [
        'convert',
        '-i',
        qwen,
        '-f',
        'qwen_bailian',
        '--mode',
        'lct',
        '-o',
        'x.lct',
        `--kv-rank=${'9'.repeat(400)}`,
      ],
      '--kv-rank: "9999',
    ],
    [
      ['convert', '-i', qwen, '-f', 'qwen_bailian', '--mode', 'lct', '-o', 'x.lct', '--t-wall-start=-5'],
      '--t-wall-start: "-5" is not a number of epoch seconds',
    ],
    [
      ['replay', lct, ...storage, '--eviction-ratio', '1.5'],
      '--eviction-ratio: "1.5" is not a number above 0 and at most 1',
    ],
    [
      ['replay', lct, ...storage, '--eviction-trigger-watermark', '-1'],
      '--eviction-trigger-watermark: "-1" is not a number above 0',
    ],
    [
      ['replay', lct, ...storage, '--l2-prefetch-max-in-flight', '0'],
      '--l2-prefetch-max-in-flight: "0" is not an integer from 1',
    ],
    [['report', '--trace', trace, '--points', 'x'], '--points: "x" is not an integer from 3 to 1000'],
    [['report', '--trace', trace, '--seed', '0'], '--seed must be between 1 and 2^64 - 1'],
  ])('%s', async (args, message) => {
    const r = await lmt([...args, '--json'])
    expect(r.exitCode).toBe(2)
    const {error} = JSON.parse(r.stdout)
    expect(error.message.startsWith(message), error.message).toBe(true)
    expect(error.code).toMatch(/^LMT_(CLI_BAD_VALUE|CLI_OUT_OF_RANGE|REPLAY_CONFIG)$/)
  })

  it('trace dump --limit=-1', async () => {
    const r = await lmt(['trace', 'dump', lct, '--limit=-1'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: --limit: "-1" is not an integer from 0 to 9007199254740991')
  })
})
