// The number-flag parsers: what each accepts, what it refuses and the usage error it gives; and lmt report's
// --capacity and --seed through them (the wording and exit code a user sees).
import {describe, expect, it} from 'vitest'
import {bigIntFlag, numberFlag, positiveNumberFlag} from '../../src/cli/number-flags.js'
import {LmtError} from '../../src/errors.js'
import {lmt} from '../helpers/cli.js'

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
    expect(numberFlag('capacity', '0x10')).toBe(16)
    expect(numberFlag('capacity', undefined)).toBeUndefined()
  })
  it('refuses blank, non-numeric and infinite text with the command’s usage code', () => {
    for (const text of ['', '  ', 'abc', '1.5GB', 'Infinity', '-Infinity', 'NaN']) {
      const err = failure(() => numberFlag('sweep-min', text))
      expect(err.code).toBe('LMT_CLI_BAD_VALUE')
      expect(err.exitCode).toBe(2)
      expect(err.message).toBe(`--sweep-min: "${text}" is not a number`)
    }
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

describe('bigIntFlag', () => {
  it('reads decimal and 0x hex exactly past 2^53', () => {
    expect(bigIntFlag('seed', '0x12345678ABCDEF01')).toBe(0x12345678abcdef01n)
    expect(bigIntFlag('seed', ' 18446744073709551615 ')).toBe(2n ** 64n - 1n)
    expect(bigIntFlag('seed', '-7')).toBe(-7n)
  })
  it('refuses what is not an integer; the hint is added in parentheses', () => {
    expect(failure(() => bigIntFlag('seed', '1.5')).message).toBe('--seed: "1.5" is not an integer')
    expect(failure(() => bigIntFlag('seed', 'x', 'decimal or 0x hex')).message).toBe(
      '--seed: "x" is not an integer (decimal or 0x hex)',
    )
  })
})

describe('lmt report: its number flags', () => {
  it('--capacity that is not a positive number of GB is a usage error (exit 2), as JSON under --json', async () => {
    const r = await lmt(['report', '--trace', 'no-such.jsonl', '--capacity', '-1', '--json'])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        code: 'LMT_CLI_BAD_VALUE',
        message: '--capacity: "-1" is not a positive number of GB',
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
