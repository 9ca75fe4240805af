// The block size of every instance before the play starts: given ones are checked against the trace's fits
// (when they are known before the play), missing ones are inferred from them. Their console lines are
// output/console.ts's.
import type {ResolvedConfig} from '../config/config.js'
import {type BlockSizeFit, chooseBlockSize} from './block-size.js'
import {blockSizeError, type BlockSizeSource, inconsistentError} from './block-size-errors.js'
import type {Notes} from '../config/notes.js'
import {fitsOfRows} from './block-size-scan.js'
import type {TraceRow} from './trace-rows.js'

export interface BlockSizePlan {
  /** quick form: the inferred block size per instance */
  quickSizes: Map<string, number>
  /** where an instance's block size came from */
  source(instanceId: string): BlockSizeSource
  /** the whole trace's fits, when read before the replay (else the replay collects them) */
  fits?: Map<string, BlockSizeFit>
}

/** Some instance has no block size: the trace must be read for it before the replay. */
export function needsInference(resolved: ResolvedConfig): boolean {
  if (resolved.quick) return resolved.quickBlockSizeGiven !== true
  return resolved.config.instance_groups.some((g) =>
    g.instances.some((i) => !resolved.blockSizeGiven.has(i.instance_id)),
  )
}

/** The block size the rows of one instance imply (undefined: no row constrains it); rows that fit no size throw. */
export function inferred(traceName: string, id: string, fit: BlockSizeFit | undefined): number | undefined {
  if (fit === undefined || fit.unchecked) return undefined
  if (!fit.consistent) throw inconsistentError(traceName, id, fit)
  return chooseBlockSize(fit)
}

/** Throws when `fit` contradicts a given block size (too small only when `check`). */
export function checkGiven(
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
 * Infers missing block sizes from `fits` (the configuration's instances are updated) and checks given ones
 * against them. Without fits (every block size given, the trace streamed) the replay checks row by row.
 */
export function settleBlockSizes(
  resolved: ResolvedConfig,
  fits: Map<string, BlockSizeFit> | undefined,
  traceName: string,
  check: boolean,
): BlockSizePlan {
  const quickSizes = new Map<string, number>()
  const inferredIds = new Set<string>()
  if (resolved.quick) {
    const given = resolved.quickBlockSizeGiven === true
    const bs = resolved.quickInstance?.block_size ?? 16
    for (const [id, fit] of fits ?? []) {
      if (given) checkGiven(traceName, id, bs, 'flag', fit, check)
      else {
        const size = inferred(traceName, id, fit)
        if (size !== undefined) quickSizes.set(id, size)
      }
    }
    return {
      quickSizes,
      fits,
      source: (id) => (given ? 'flag' : quickSizes.has(id) ? 'inferred' : 'default'),
    }
  }
  for (const g of resolved.config.instance_groups)
    for (const i of g.instances) {
      const fit = fits?.get(i.instance_id)
      const given = resolved.blockSizeGiven.get(i.instance_id)
      if (given !== undefined) checkGiven(traceName, i.instance_id, i.block_size, given, fit, check)
      else {
        const size = inferred(traceName, i.instance_id, fit)
        if (size === undefined) continue
        i.block_size = size
        inferredIds.add(i.instance_id)
      }
    }
  return {
    quickSizes,
    fits,
    source: (id) => resolved.blockSizeGiven.get(id) ?? (inferredIds.has(id) ? 'inferred' : 'default'),
  }
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
 * The block size of one instance of rows held in memory (`lmt report`): the flag's, else the configuration's
 * (either checked against the rows: a block size they contradict is the coded error naming the one they imply),
 * else the one its gets imply.
 */
export function blockSizeOf(
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
