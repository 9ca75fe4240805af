// The errors of a block size the trace contradicts: too large (rule V10, a partial tail) or too small (fewer keys
// than the row's full blocks). The replay meets the first contradicting row; the run then names the block size
// the whole trace implies.
import {type LmtError, lmtError} from '../../errors.js'
import {type BlockSizeFit, chooseBlockSize, fitDescription, rangeText, rowBlockSizes} from './block-size.js'

/** Where an instance's block size came from. */
export type BlockSizeSource = 'flag' | 'config' | 'inferred' | 'default'

/** The override of the too-small check (rule V10, too large, is never overridden). */
export const BLOCK_SIZE_CHECK_FLAG = '--no-block-size-check'

/** A row the instance's block size contradicts. */
export interface Contradiction {
  traceName: string
  instance: string
  blockSize: number
  source: BlockSizeSource
  keys: number
  inputLen: number
  lineNo: number
}

function sourceText(source: BlockSizeSource): string {
  return source === 'flag' ? '--block-size' : source === 'config' ? 'configured' : source
}

function implied(c: Contradiction, fit: BlockSizeFit | undefined): {text: string; size?: number} {
  if (fit === undefined || fit.unchecked) {
    const [lo, hi] = rowBlockSizes(c.keys, c.inputLen) as [number, number]
    return lo <= hi
      ? {text: `this row implies block size ${rangeText(lo, hi)}`, size: hi}
      : {text: `this row has more keys than tokens`}
  }
  const what = `instance "${c.instance}": ${fitDescription(fit)}`
  if (!fit.consistent) return {text: `the trace implies no block size: ${what}`}
  const size = chooseBlockSize(fit)
  return {text: `the trace implies block size ${size} (${what})`, size}
}

function suggestions(c: Contradiction, size: number | undefined, tooSmall: boolean): string[] {
  const out: string[] = []
  if (size !== undefined)
    out.push(
      c.source === 'config'
        ? `set block_size ${size} for instance "${c.instance}" in the configuration (or delete it to infer it from the trace), or pass --block-size ${size}`
        : `pass --block-size ${size}, or leave --block-size out to infer the block size from the trace`,
    )
  else out.push('check that the trace was converted with one block size per instance')
  if (tooSmall)
    out.push(
      `${BLOCK_SIZE_CHECK_FLAG} replays with block_size ${c.blockSize} anyway (for a trace whose rows hold fewer keys than full blocks)`,
    )
  return out
}

/** The coded error of a contradiction; `fit` is the whole trace's fit of the instance, when known. */
export function blockSizeError(c: Contradiction, fit?: BlockSizeFit): LmtError {
  const maxKeys = Math.floor(c.inputLen / c.blockSize)
  const where = `${c.traceName}:${c.lineNo}`
  const imp = implied(c, fit)
  const cause = {blockSizeContradiction: c}
  if (c.keys > maxKeys)
    return lmtError('SIM_PARTIAL_TAIL', where, c.keys, c.inputLen, c.blockSize, maxKeys, imp.text, {
      suggestions: suggestions(c, imp.size, false),
      cause,
    })
  const [lo, hi] = rowBlockSizes(c.keys, c.inputLen) as [number, number]
  return lmtError(
    'SIM_BLOCK_SIZE_MISMATCH',
    where,
    `${c.blockSize} of instance "${c.instance}" (${sourceText(c.source)})`,
    `${c.keys} keys with input_len ${c.inputLen} fit block sizes ${rangeText(lo, hi)}`,
    imp.text,
    {suggestions: suggestions(c, imp.size, true), cause},
  )
}

/** The contradiction an error of {@link blockSizeError} carries, if it is one. */
export function contradictionOf(err: unknown): Contradiction | undefined {
  const cause = (err as {cause?: {blockSizeContradiction?: Contradiction}} | undefined)?.cause
  return cause?.blockSizeContradiction
}

/** The error of an instance whose rows fit no single block size (when inferring it). */
export function inconsistentError(traceName: string, instance: string, fit: BlockSizeFit): LmtError {
  return lmtError('SIM_BLOCK_SIZE_INCONSISTENT', traceName, instance, fitDescription(fit), {
    suggestions: [
      'give the block size (--block-size, or block_size in the configuration) and check the rows the message names',
    ],
  })
}
