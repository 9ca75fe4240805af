// The infinite cache is an upper bound of every policy and of Belady at any capacity (a hit is a live prefix, never
// longer than the written prefix): a reported rate above it is a wrong answer, and stops the run with a coded error.
import {lmtError} from '../../errors.js'
import {formatG} from '../../util/format-g.js'

/**
 * Throws `SIM_ABOVE_CEILING` when `hitTokens` of a group (the same gets, so the same input tokens, as the infinite
 * play's) exceed the infinite play's `ceilingHitTokens`; `what` names the series and capacity.
 */
export function checkBelowCeiling(
  what: string,
  hitTokens: number,
  inputTokens: number,
  ceilingHitTokens: number,
): void {
  if (hitTokens > ceilingHitTokens)
    throw lmtError(
      'SIM_ABOVE_CEILING',
      what,
      formatG(inputTokens > 0 ? hitTokens / inputTokens : 0),
      formatG(inputTokens > 0 ? ceilingHitTokens / inputTokens : 0),
    )
}

/** The same check on rates of the same gets (one division each, so a lower count is never a higher rate). */
export function checkRateBelowCeiling(what: string, rate: number, ceilingRate: number): void {
  if (rate > ceilingRate) throw lmtError('SIM_ABOVE_CEILING', what, formatG(rate), formatG(ceilingRate))
}
