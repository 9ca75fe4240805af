// Number flags: one parser per kind of number (an integer, a real number, a 64-bit seed), each with its range, and
// one wording for its usage error (CLI_BAD_VALUE: the flag, the value, what it must be). Integer flags are defined
// here too ({@link integerFlag}): their value is checked while oclif parses, and the error names the flag.
import {Flags, type Interfaces} from '@oclif/core'
import {lmtError} from '../errors.js'

/** How much of a value an error message repeats (a value may be 100 KB long). */
const SHOWN = 40

/** `text` as an error message shows it: cut after {@link SHOWN} characters, saying how long it was. */
export function shownValue(text: string): string {
  return text.length <= SHOWN ? text : `${text.slice(0, SHOWN)}… (${text.length} characters)`
}

export type IntegerRange = {
  /** the smallest value (default: none) */
  min?: number
  /** the largest value (default 2^53 − 1: every integer a double holds exactly) */
  max?: number
  /** what the smallest value means, when it is special ("infinite" for −1) */
  minMeans?: string
}

function rangeWords(r: IntegerRange): string {
  const max = r.max ?? Number.MAX_SAFE_INTEGER
  const min = r.min ?? -Number.MAX_SAFE_INTEGER
  return `an integer from ${min}${r.minMeans ? ` (${r.minMeans})` : ''} to ${max}`
}

/**
 * `--name`'s integer (decimal digits, an optional minus sign) within `range`; the error says which flag, the value
 * (cut when long) and the range. Compared as BigInt: 400 digits are out of range, never Infinity.
 */
export function parseIntegerFlag(name: string, text: string, range: IntegerRange = {}): number {
  const max = BigInt(range.max ?? Number.MAX_SAFE_INTEGER)
  const min = range.min === undefined ? -BigInt(Number.MAX_SAFE_INTEGER) : BigInt(range.min)
  const ok = /^-?\d+$/.test(text) && BigInt(text) >= min && BigInt(text) <= max
  if (!ok) throw lmtError('CLI_BAD_VALUE', `--${name}`, shownValue(text), rangeWords(range))
  return Number(text)
}

/**
 * An integer flag, as oclif's Flags.integer but checked by {@link parseIntegerFlag} with its range (`min`, `max`,
 * `minMeans`), so that its error names the flag and says the range.
 */
export const integerFlag: Interfaces.FlagDefinition<
  number,
  IntegerRange,
  {multiple: false; requiredOrDefaulted: false}
> = Flags.custom<number, IntegerRange>({
  parse: async (input, _ctx, opts) => parseIntegerFlag(opts.name, input, opts),
})

export interface NumberRange {
  /** the smallest value, or the bound the value must be above with `aboveMin` */
  min?: number
  aboveMin?: boolean
  max?: number
  /** the words of the range, when the bounds alone do not say it ("a number of epoch seconds") */
  words?: string
}

function numberWords(r: NumberRange): string {
  if (r.words) return r.words
  const low = r.min === undefined ? '' : r.aboveMin ? `above ${r.min}` : `of at least ${r.min}`
  const high = r.max === undefined ? '' : `at most ${r.max}`
  return `a number${low || high ? ' ' + [low, high].filter(Boolean).join(' and ') : ''}`
}

/**
 * `--name`'s finite number within `range` (decimal or exponent notation as `Number` reads it; blank text, hex,
 * Infinity and numbers too small to be told from 0 are not numbers), or undefined when the flag is not given.
 */
export function numberFlag(
  name: string,
  text: string | undefined,
  range: NumberRange = {},
): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  const decimal = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)
  const inRange =
    Number.isFinite(n) &&
    decimal &&
    (n !== 0 || !/[1-9]/.test(text.replace(/[eE].*$/, ''))) && // a nonzero value that underflows to 0
    (range.min === undefined || (range.aboveMin ? n > range.min : n >= range.min)) &&
    (range.max === undefined || n <= range.max)
  if (!inRange) throw lmtError('CLI_BAD_VALUE', `--${name}`, shownValue(text), numberWords(range))
  return n
}

/**
 * `--name`'s number above 0 as `Number` reads it (so "Infinity" passes), or undefined when not given; `unit` ends
 * the message ("… is not a positive number of GB").
 */
export function positiveNumberFlag(
  name: string,
  text: string | undefined,
  unit?: string,
): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!(n > 0))
    throw lmtError(
      'CLI_BAD_VALUE',
      `--${name}`,
      text,
      `a positive number${unit === undefined ? '' : ` of ${unit}`}`,
    )
  return n
}

/** `--seed`: a random_lru seed, 1 to 2^64 − 1, decimal or 0x hex (0 would make the generator emit only zeros). */
export function seedFlag(text: string): bigint {
  // BigInt reads decimal and 0x hex (0o, 0b too) exactly, past 2^53; BigInt('') and BigInt(' ') are 0n: blank text
  // is no integer
  const expected = 'an integer (decimal or 0x hex)'
  if (text.trim() === '') throw lmtError('CLI_BAD_VALUE', '--seed', text, expected)
  let v: bigint
  try {
    v = BigInt(text.trim())
  } catch {
    throw lmtError('CLI_BAD_VALUE', '--seed', shownValue(text), expected)
  }
  if (v < 1n || v >= 2n ** 64n)
    throw lmtError('CLI_OUT_OF_RANGE', '--seed', 'between 1 and 2^64 - 1', shownValue(text))
  return v
}
