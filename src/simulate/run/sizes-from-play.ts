// Block sizes inferred by the play itself, not by a pre-pass (docs/simulate.md §3.6, "One pass"): the play starts
// with the sizes its first batch of rows implies, collects every instance's fit as it goes (the player checks each
// row against its size and keeps the same fit the pre-pass would), and the sizes are settled from those fits at the
// end. The play stands when every instance played with the size settled; otherwise it is played again with them.
import type {Player} from '../engine/player.js'
import type {BlockSizeFit} from '../input/block-size.js'
import {needsInference} from '../input/block-size-plan.js'
import {fitsOfRows} from '../input/block-size-scan.js'
import type {TraceRow} from '../input/trace-rows.js'
import {type RunSizes, runSizesOf} from './block-sizes.js'
import {plainPaths} from '../../util/plain.js'
import type {RunSetup} from './setup.js'

/** A single run whose block sizes are to be inferred: the play can infer them (no pre-pass; not on the plain paths). */
export function playInfersSizes(setup: RunSetup): boolean {
  if (setup.req.sweep !== undefined || setup.req.sizesByPrePass === true || plainPaths()) return false
  return needsInference(setup.resolved)
}

/**
 * The sizes the first rows imply (throws what settling their fits throws: the run then takes the pre-pass, whose
 * whole-trace fits give the error its lines).
 */
export function sizesOfFirstRows(setup: RunSetup, rows: readonly TraceRow[]): RunSizes {
  return runSizesOf(setup, fitsOfRows(rows))
}

/** The sizes the whole trace implies, from the fits a complete play collected (throws as the pre-pass's settle). */
export function sizesOfPlay(setup: RunSetup, player: Player): RunSizes {
  const fits = new Map<string, BlockSizeFit>()
  for (const i of player.ordered) if (!i.blockSizeFit.unchecked) fits.set(i.cfg.instance_id, i.blockSizeFit)
  return runSizesOf(setup, fits)
}

/** Every instance of the play played with the block size `sizes` gives it. */
export function playedWith(setup: RunSetup, player: Player, sizes: RunSizes): boolean {
  return player.ordered.every((i) => i.cfg.block_size === sizeOf(setup, sizes, i.cfg.instance_id))
}

/** The block size a play under `sizes` gives an instance. */
function sizeOf(setup: RunSetup, sizes: RunSizes, id: string): number | undefined {
  const {resolved, cfg} = setup
  if (resolved.quick) return sizes.plan.quickSizes.get(id) ?? resolved.quickInstance?.block_size
  for (const g of cfg.instance_groups)
    for (const i of g.instances) if (i.instance_id === id) return i.block_size
  return undefined
}
