// The block sizes of a run, before any play: inferred from the trace where none is given, checked where one is
// (docs/simulate.md §3.6). A sweep loads the whole trace here, sorted; its rows give the fits.
import type {PlayerOptions} from '../engine/player.js'
import {
  blockSizeError,
  type BlockSizeFit,
  type BlockSizePlan,
  contradictionOf,
  addRowToFits,
  fitsOfRows,
  needsInference,
  settleBlockSizes,
} from '../input/block-size.js'
import {KeyInterner} from '../input/key-interner.js'
import {loadSorted} from '../input/sorted-rows.js'
import {loadTieredRows, type TieredRows} from '../input/tiered-rows.js'
import {newStats, readTraceRowBatches} from '../input/trace-source.js'
import type {TraceRow} from '../input/trace-rows.js'
import {noRowsError, type RunSetup} from './setup.js'

export interface RunSizes {
  plan: BlockSizePlan
  /** the fits of the whole trace, when it was read before the play */
  fits?: Map<string, BlockSizeFit>
  /** a sweep's rows, sorted */
  rowsInMemory?: TraceRow[]
  /** a tiered sweep's keys (the sharded LRU reads their values) */
  keys?: KeyInterner
  /** the player options every play of the run shares */
  baseOptions: Omit<PlayerOptions, 'plots'>
}

/** The block sizes of a run, settled before its play (a pre-pass infers them where the configuration has none). */
export async function settleRunSizes(setup: RunSetup): Promise<RunSizes> {
  const {req, resolved, cfg, tracePath, traceName} = setup
  if (req.sweep) {
    // a tiered sweep's points are its single runs: the rows read and ordered as a tiered play reads them
    const tiered = cfg.tiered ? await loadTieredSetupRows(setup) : undefined
    const rowsInMemory =
      tiered?.rows ?? (await loadSorted(tracePath, traceName, resolved, req, setup.stats, setup.notes))
    if (rowsInMemory.length === 0) throw await noRowsError(setup)
    return {...runSizesOf(setup, fitsOfRows(rowsInMemory)), rowsInMemory, keys: tiered?.keys}
  }
  if (!needsInference(resolved)) return runSizesOf(setup, undefined)
  return runSizesOf(setup, await scanBlockSizes(setup, req.skipInvalid))
}

/**
 * A tiered configuration's whole trace, with its rows' TTLs and request rows, in the July-2026 Optimizer's order
 * (rows of equal timestamps as its unstable sort leaves them); a notice when that order is not the file's.
 */
export async function loadTieredSetupRows(setup: RunSetup): Promise<TieredRows> {
  const {req, stats} = setup
  const loaded = await loadTieredRows(setup.tracePath, setup.traceName, req.skipInvalid, stats, (b) =>
    req.onProgress?.({bytes: b, total: stats.bytes, rows: stats.rows}),
  )
  if (!loaded.ordered)
    setup.notes.add(
      'LMT_SIM_RESORT',
      `${setup.traceName}: rows share timestamps or are out of order; they were sorted in memory as the Optimizer's std::sort orders them (rows of one timestamp not in file order)`,
    )
  return loaded
}

/**
 * The sizes `fits` settle (undefined: every block size is given, checked row by row in the play). Inferred sizes
 * are written into the run's configuration; a contradiction or rows that fit no size throw.
 */
function runSizesOf(setup: RunSetup, fits: Map<string, BlockSizeFit> | undefined): RunSizes {
  const {req, resolved, cfg, traceName} = setup
  const check = req.blockSizeCheck !== false
  const plan = settleBlockSizes(resolved, fits, traceName, check)
  return {
    plan,
    fits,
    baseOptions: {
      config: cfg,
      seed: req.seed,
      quickInstance: resolved.quickInstance,
      quickBlockSizes: plan.quickSizes,
      blockSizeCheck: check,
      blockSizeSource: plan.source,
      strictInstances: req.strictInstances,
      traceName,
    },
  }
}

/** A contradiction a streamed play met, as the error with the block size the whole trace implies. */
export async function withTraceFit(setup: RunSetup, sizes: RunSizes, err: unknown): Promise<unknown> {
  const c = contradictionOf(err)
  if (c === undefined) return err
  const all = sizes.fits ?? (await scanBlockSizes(setup, true))
  return blockSizeError(c, all.get(c.instance))
}

/** An interner that checks keys (rule V8) but keeps none: every key is id 0. */
class DiscardingInterner extends KeyInterner {
  override idOf(): number {
    return 0
  }
}

/**
 * The pre-pass that infers block sizes: the fit of every instance that has a get or request row, from one read of
 * the trace with the play's own row reader (the same rules, the same skips). Keys are validated but not interned,
 * so memory stays at one BlockSizeFit per instance.
 */
async function scanBlockSizes(setup: RunSetup, skipInvalid: boolean): Promise<Map<string, BlockSizeFit>> {
  const {tracePath: path, traceName: name, cfg} = setup
  const fits = new Map<string, BlockSizeFit>()
  const opts = {path, name, skipInvalid, mode: cfg.trace_replay.mode, keys: new DiscardingInterner()}
  for await (const rows of readTraceRowBatches({...opts, countKeysOnly: true}, newStats(path)))
    for (let i = 0; i < rows.length; i++) addRowToFits(fits, rows[i])
  return fits
}
