// Number flags that oclif hands over as text (a capacity in GB, a speed, a seed): one parser per kind of number, one
// wording for its usage error (CLI_BAD_VALUE).
import {lmtError} from '../errors.js'

/** `--name`'s finite number, or undefined when the flag is not given; blank text is not a number. */
export function numberFlag(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isFinite(n) || text.trim() === '')
    throw lmtError('CLI_BAD_VALUE', `--${name}`, text, 'a number')
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

/**
 * `--name`'s integer as `BigInt` reads it (decimal, 0x hex, 0o, 0b; surrounding blanks ignored), for values past
 * 2^53 such as seeds; `hint` is added to the message in parentheses.
 */
export function bigIntFlag(name: string, text: string, hint?: string): bigint {
  try {
    return BigInt(text.trim())
  } catch {
    throw lmtError('CLI_BAD_VALUE', `--${name}`, text, `an integer${hint === undefined ? '' : ` (${hint})`}`)
  }
}
