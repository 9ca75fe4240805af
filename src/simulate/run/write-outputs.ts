// The last step of a run: its plots rendered (a failure is a warning, not a failed run), summary.json written,
// and the whole set of files committed at once (CSVs, plots, summary.json).
import {join} from 'node:path'
import {capacityLabel} from '../output/summary.js'
import type {RunResult} from './summary-doc.js'
import type {RunSetup} from './setup.js'

export async function writeOutputs(
  setup: RunSetup,
  r: RunResult,
  summary: Record<string, unknown>,
): Promise<void> {
  const {req, notes, pending, out, outputs} = setup
  if (req.plots) {
    try {
      const written = await writePlots(setup, r)
      if (written.length === 0)
        notes.add('LMT_SIM_NO_PLOT', 'no get was replayed: there is nothing to plot, and no plot is written')
      outputs.push(...written)
    } catch (err) {
      notes.add('LMT_SIM_PLOT_FAILED', `a plot could not be rendered: ${(err as Error).message}`, 'warning')
    }
  }
  outputs.push('summary.json')
  pending.writeAtomic(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n')
  pending.commit() // the whole set at once: CSVs, plots, summary.json
}

/** The plot of a sweep's curve, or of a single run's hit rate over time; the names of the files written. */
async function writePlots(setup: RunSetup, r: RunResult): Promise<string[]> {
  // the plotting code loads only when a plot is drawn
  const {blockSizeLabel, plotHitRateOverTime, plotSweep} = await import('../output/plots.js')
  const {pending, out, traceName, cfg} = setup
  const {sweepDoc, effective, main} = r
  return setup.req.sweep
    ? await plotSweep(
        pending,
        out,
        sweepDoc as Record<string, unknown>,
        traceName,
        blockSizeLabel(
          effective.ordered
            .filter((i) => i.group.cfg.group_name === sweepDoc?.group_name)
            .map((i) => ({id: i.cfg.instance_id, blockSize: i.cfg.block_size})),
        ),
      )
    : await plotHitRateOverTime(pending, out, main, traceName, capacityLabel(cfg), main.firstTs ?? 0n)
}
