// Tokens per block of each instance: given (a flag, the configuration) or inferred from the trace, and a given one
// checked against it, by simulate's own rule (docs/simulate.md §3.6): one rule for both commands.
import {fitsOfRows} from '../simulate/input/block-size-scan.js'
import {checkGiven, inferred} from '../simulate/input/block-size-plan.js'
import type {TraceRow} from '../simulate/input/trace-rows.js'

export interface BlockSizeChoice {
  blockSize: number
  /** where it came from */
  source: 'flag' | 'config' | 'inferred' | 'default'
  /** why, when it was inferred or defaulted */
  reason?: string
}

/** 16, as simulate assumes when no row of the instance constrains the block size */
const UNCHECKED_DEFAULT = 16

/**
 * The block size of one instance: the flag's, else the configuration's (either checked against the trace: a block
 * size its rows contradict is simulate's coded error naming the one they imply), else the one its gets imply.
 */
export function blockSizesFor(
  rows: readonly TraceRow[],
  instance: string,
  given: {flag?: number; config?: number},
  traceName = 'trace',
): BlockSizeChoice {
  const fit = fitsOfRows(rows.filter((r) => r.instance === instance)).get(instance)
  const givenSize = given.flag ?? given.config
  if (givenSize !== undefined) {
    const source = given.flag !== undefined ? 'flag' : 'config'
    checkGiven(traceName, instance, givenSize, source, fit, true)
    return {blockSize: givenSize, source}
  }
  const size = inferred(traceName, instance, fit)
  if (size === undefined)
    return {
      blockSize: UNCHECKED_DEFAULT,
      source: 'default',
      reason: `no get of the instance has keys; ${UNCHECKED_DEFAULT} assumed`,
    }
  return {blockSize: size, source: 'inferred', reason: `its gets fit block sizes ${fit?.lo}–${fit?.hi}`}
}
