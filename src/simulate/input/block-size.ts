// The block size of each instance, by one rule (docs/simulate.md §3.6): which block sizes a trace's rows allow,
// the size inferred from them, a given size checked against them, and the errors of a contradiction. `lmt convert`
// keeps the ⌊input_len / block_size⌋ full-block keys of a get, so a get or request row with k ≥ 1 keys and
// input_len L was written with a block size b where ⌊L / b⌋ = k, that is L/(k+1) < b ≤ L/k: the integers
// ⌊L/(k+1)⌋ + 1 … ⌊L/k⌋. The rows of an instance give the intersection of their intervals. A row without keys says
// only b > L, and a source can drop keys, so it does not constrain; writes carry no input_len.
import {type LmtError, lmtError} from '../../errors.js'
import type {ResolvedConfig} from '../config/config.js'
import type {Notes} from '../config/notes.js'
import type {TraceRow} from './trace-rows.js'

/** The block sizes every constraining row of one instance allows: lo … hi (lo > hi: none). */
export class BlockSizeFit {
  lo = 1
  hi = Number.POSITIVE_INFINITY
  /** rows that constrained (get/request rows with keys) */
  rows = 0
  /** the line that last raised lo, and the one that last lowered hi (0: none) */
  loLine = 0
  hiLine = 0
  /** the keys and input_len of those two rows (for messages) */
  loRow: [keys: number, inputLen: number] = [0, 0]
  hiRow: [keys: number, inputLen: number] = [0, 0]

  /** Intersects with the block sizes a row of `keys` full-block keys and `inputLen` tokens allows. */
  add(keys: number, inputLen: number, lineNo: number): void {
    if (keys < 1) return
    this.rows++
    const lo = Math.floor(inputLen / (keys + 1)) + 1
    const hi = Math.floor(inputLen / keys)
    if (lo > this.lo) {
      this.lo = lo
      this.loLine = lineNo
      this.loRow = [keys, inputLen]
    }
    if (hi < this.hi) {
      this.hi = hi
      this.hiLine = lineNo
      this.hiRow = [keys, inputLen]
    }
  }

  /** no row constrained the block size */
  get unchecked(): boolean {
    return this.rows === 0
  }

  /** some block size fits every row */
  get consistent(): boolean {
    return this.lo <= this.hi
  }

  fits(blockSize: number): boolean {
    return blockSize >= this.lo && blockSize <= this.hi
  }
}

/** The block sizes a single row allows (for messages); undefined when it does not constrain. */
export function rowBlockSizes(keys: number, inputLen: number): [number, number] | undefined {
  if (keys < 1) return undefined
  return [Math.floor(inputLen / (keys + 1)) + 1, Math.floor(inputLen / keys)]
}

/**
 * The block size inferred from a consistent fit: the one fitting size with the most factors of two (the larger on
 * a tie). Real block sizes are round numbers (16 … 512, powers of two), so a 483–519 fit gives 512, 400–1100 gives
 * 1024, 97–103 gives 100.
 */
export function chooseBlockSize(fit: BlockSizeFit): number {
  for (let t = 52; t > 0; t--) {
    const m = 2 ** t
    const c = Math.floor(fit.hi / m) * m
    if (c >= fit.lo) return c
  }
  return fit.hi
}

/** "512" or "483–519" (the sizes a fit allows). */
export function rangeText(lo: number, hi: number): string {
  return lo === hi ? String(lo) : `${lo}–${hi}`
}

/** How a fit is described in messages: the inferred size and why. */
export function fitDescription(fit: BlockSizeFit): string {
  if (fit.unchecked) return 'no row constrains the block size'
  if (!fit.consistent)
    return `its rows fit no single block size (lines ${fit.loLine} and ${fit.hiLine} disagree)`
  if (fit.lo === fit.hi) return `its ${fit.rows} rows fit block size ${fit.lo} only`
  return `its ${fit.rows} rows fit block sizes ${rangeText(fit.lo, fit.hi)}, of which lmt picks ${chooseBlockSize(fit)} (the one with the most factors of two)`
}

// The errors of a block size the trace contradicts: too large (rule V10, a partial tail) or too small (fewer
// keys than the row's full blocks). The play meets the first contradicting row; the run then names the block size
// the whole trace implies.

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

// The block size of every instance before the play starts: given ones are checked against the trace's fits (when
// they are known before the play), missing ones are inferred from them.

export interface BlockSizePlan {
  /** quick form: the inferred block size per instance */
  quickSizes: Map<string, number>
  /** where an instance's block size came from */
  source(instanceId: string): BlockSizeSource
}

/** Some instance has no block size: the trace must be read for it before the replay. */
export function needsInference(resolved: ResolvedConfig): boolean {
  if (resolved.quick) return resolved.quickBlockSizeGiven !== true
  return resolved.config.instance_groups.some((g) =>
    g.instances.some((i) => !resolved.blockSizeGiven.has(i.instance_id)),
  )
}

/** The block size the rows of one instance imply (undefined: no row constrains it); rows that fit no size throw. */
function inferred(traceName: string, id: string, fit: BlockSizeFit | undefined): number | undefined {
  if (fit === undefined || fit.unchecked) return undefined
  if (!fit.consistent)
    throw lmtError('SIM_BLOCK_SIZE_INCONSISTENT', traceName, id, fitDescription(fit), {
      suggestions: [
        'give the block size (--block-size, or block_size in the configuration) and check the rows the message names',
      ],
    })
  return chooseBlockSize(fit)
}

/** Throws when `fit` contradicts a given block size (too small only when `check`). */
function checkGiven(
  traceName: string,
  id: string,
  blockSize: number,
  source: BlockSizeSource,
  fit: BlockSizeFit | undefined,
  check: boolean,
): void {
  if (fit === undefined || fit.unchecked || fit.fits(blockSize)) return
  const tooLarge = blockSize > fit.hi
  if (!tooLarge && !check) return
  const [keys, inputLen] = tooLarge ? fit.hiRow : fit.loRow
  const lineNo = tooLarge ? fit.hiLine : fit.loLine
  throw blockSizeError({traceName, instance: id, blockSize, source, keys, inputLen, lineNo}, fit)
}

/**
 * Infers missing block sizes from `fits` (the configuration's instances are updated; the quick form's, seen in the
 * fits, are listed) and checks given ones against them. Without fits (every block size given, the trace streamed)
 * the replay checks row by row.
 */
export function settleBlockSizes(
  resolved: ResolvedConfig,
  fits: Map<string, BlockSizeFit> | undefined,
  traceName: string,
  check: boolean,
): BlockSizePlan {
  const quickSizes = new Map<string, number>()
  const inferredIds = new Set<string>()
  const given = (id: string): BlockSizeSource | undefined =>
    resolved.quick
      ? resolved.quickBlockSizeGiven === true
        ? 'flag'
        : undefined
      : resolved.blockSizeGiven.get(id)
  const instances = resolved.quick
    ? [...(fits?.keys() ?? [])].map((id) => ({
        instance_id: id,
        block_size: resolved.quickInstance?.block_size ?? 16,
      }))
    : resolved.config.instance_groups.flatMap((g) => g.instances)
  for (const i of instances) {
    const fit = fits?.get(i.instance_id)
    const source = given(i.instance_id)
    if (source !== undefined) checkGiven(traceName, i.instance_id, i.block_size, source, fit, check)
    else {
      const size = inferred(traceName, i.instance_id, fit)
      if (size === undefined) continue
      if (resolved.quick) quickSizes.set(i.instance_id, size)
      else i.block_size = size
      inferredIds.add(i.instance_id)
    }
  }
  return {quickSizes, source: (id) => given(id) ?? (inferredIds.has(id) ? 'inferred' : 'default')}
}

/** The `block_size_check` of an instance in summary.json. */
export function blockSizeCheckDoc(
  blockSize: number,
  fit: BlockSizeFit | undefined,
): {result: 'fits' | 'unchecked' | 'contradicted'; rows: number; min: number | null; max: number | null} {
  if (fit === undefined || fit.unchecked) return {result: 'unchecked', rows: 0, min: null, max: null}
  return {result: fit.fits(blockSize) ? 'fits' : 'contradicted', rows: fit.rows, min: fit.lo, max: fit.hi}
}

/** The warning of instances whose block size is the default (nothing to infer it from). */
export function defaultSizeWarning(notes: Notes, ids: string[]): void {
  if (ids.length === 0) return
  const shown = ids.slice(0, 10).map((id) => `"${id}"`)
  notes.add(
    'LMT_SIM_BLOCK_SIZE_UNCHECKED',
    `the block size of instance ${shown.join(', ')}${ids.length > 10 ? ` and ${ids.length - 10} more` : ''} could not be inferred or checked (no get row with keys and input_len); 16 is used: pass --block-size if it matters (capacities in GiB weigh blocks by it)`,
    'warning',
  )
}

/** Adds a get or request row to its instance's fit. */
export function addRowToFits(fits: Map<string, BlockSizeFit>, row: TraceRow): void {
  if (row.type === 'write') return
  let fit = fits.get(row.instance)
  if (fit === undefined) fits.set(row.instance, (fit = new BlockSizeFit()))
  fit.add(row.keys.length, row.inputLen, row.lineNo)
}

/** The fit of every instance that has a get or request row, from rows held in memory. */
export function fitsOfRows(rows: readonly TraceRow[]): Map<string, BlockSizeFit> {
  const fits = new Map<string, BlockSizeFit>()
  for (let i = 0; i < rows.length; i++) addRowToFits(fits, rows[i])
  return fits
}
