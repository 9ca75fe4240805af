// The block sizes of a run, before any play: inferred from the trace where none is given, checked where one is
// (docs/simulate.md §3.3). A sweep loads the whole trace here, sorted; its rows give the fits.
import type {PlayerOptions} from '../engine/player.js'
import {
  blockSizeError,
  type BlockSizeFit,
  type BlockSizePlan,
  contradictionOf,
  fitsOfRows,
  needsInference,
  scanBlockSizes,
  settleBlockSizes,
} from '../input/block-size.js'
import {loadSorted} from '../input/sorted-rows.js'
import type {TraceRow} from '../input/trace-rows.js'
import {noRowsError, type RunSetup} from './setup.js'

/** The player options every play of the run shares. */
export type BaseOptions = Required<
  Pick<
    PlayerOptions,
    | 'config'
    | 'seed'
    | 'quickBlockSizes'
    | 'blockSizeCheck'
    | 'blockSizeSource'
    | 'strictInstances'
    | 'traceName'
  >
> &
  Pick<PlayerOptions, 'quickInstance'>

export interface RunSizes {
  plan: BlockSizePlan
  /** the fits of the whole trace, when it was read before the play */
  fits?: Map<string, BlockSizeFit>
  /** a sweep's rows, sorted */
  rowsInMemory?: TraceRow[]
  baseOptions: BaseOptions
}

/** The block sizes of a run, settled before its play (a pre-pass infers them where the configuration has none). */
export async function settleRunSizes(setup: RunSetup): Promise<RunSizes> {
  const {req, resolved, cfg, tracePath, traceName} = setup
  if (req.sweep) {
    const rowsInMemory = await loadSorted(tracePath, traceName, resolved, req, setup.stats, setup.notes)
    if (rowsInMemory.length === 0) throw await noRowsError(setup)
    return {...runSizesOf(setup, fitsOfRows(rowsInMemory)), rowsInMemory}
  }
  if (!needsInference(resolved)) return runSizesOf(setup, undefined)
  const fits = await scanBlockSizes({
    path: tracePath,
    name: traceName,
    skipInvalid: req.skipInvalid,
    mode: cfg.trace_replay.mode,
  })
  return runSizesOf(setup, fits)
}

/**
 * The sizes `fits` settle (undefined: every block size is given, checked row by row in the play). Inferred sizes
 * are written into the run's configuration; a contradiction or rows that fit no size throw.
 */
export function runSizesOf(setup: RunSetup, fits: Map<string, BlockSizeFit> | undefined): RunSizes {
  const {req, resolved, cfg, traceName} = setup
  const check = req.blockSizeCheck !== false
  const plan = settleBlockSizes(resolved, fits, traceName, check)
  const baseOptions: BaseOptions = {
    config: cfg,
    seed: req.seed,
    quickInstance: resolved.quickInstance,
    quickBlockSizes: plan.quickSizes,
    blockSizeCheck: check,
    blockSizeSource: plan.source,
    strictInstances: req.strictInstances,
    traceName,
  }
  return {plan, fits, baseOptions}
}

/** A contradiction a streamed play met, as the error with the block size the whole trace implies. */
export async function withTraceFit(setup: RunSetup, sizes: RunSizes, err: unknown): Promise<unknown> {
  const c = contradictionOf(err)
  if (c === undefined) return err
  const all =
    sizes.fits ??
    (await scanBlockSizes({
      path: setup.tracePath,
      name: setup.traceName,
      skipInvalid: true,
      mode: setup.cfg.trace_replay.mode,
    }))
  return blockSizeError(c, all.get(c.instance))
}
