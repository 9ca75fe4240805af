// The side-by-side case of `npm run bench`: lmt and the real Optimizer alternately on the same converted
// Mooncake trace (lru and random_lru, 17,090 blocks, mode 3), medians of 5 runs each after a warm-up; it throws
// unless both give the same cached, read and hit blocks on every get.
import {join} from 'node:path'
import {type LmtRun, runLmt} from '../harness.mjs'
import {adaptTrace, hitRows, runOptimizer, writeOptimizerConfig} from './optimizer-run.js'

const BLOCKS = 17_090
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
interface Timing {
  seconds: number
  cpuSeconds: number
  rssMb: number
}
const fmt = (runs: Timing[]) => ({
  wall: `${median(runs.map((r) => r.seconds)).toFixed(2)} s`,
  cpu: `${median(runs.map((r) => r.cpuSeconds)).toFixed(2)} s`,
  peakRssMb: median(runs.map((r) => r.rssMb)).toFixed(0),
})

export function sideBySide(binary: string, trace: string, dir: string): Record<string, string>[] {
  const adapted = join(dir, 'optimizer-trace.jsonl')
  adaptTrace(trace, adapted)
  const table: Record<string, string>[] = []
  for (const policy of ['lru', 'random_lru']) {
    const config = writeOptimizerConfig(dir, adapted, policy, BLOCKS)
    const out = (plots: boolean) => join(dir, `lmt-${policy}-${plots}`)
    const lmt = (plots: boolean): LmtRun =>
      runLmt([
        'simulate',
        '--trace',
        trace,
        '-o',
        out(plots),
        '--capacity-blocks',
        String(BLOCKS),
        '--policy',
        policy,
        ...(plots ? [] : ['--no-plots']),
      ])
    const runs: Record<'optimizer' | 'plots' | 'noPlots', Timing[]> = {optimizer: [], plots: [], noPlots: []}
    for (let i = 0; i <= 5; i++) {
      const round = {optimizer: runOptimizer(binary, config), plots: lmt(true), noPlots: lmt(false)}
      if (i > 0) for (const k of ['optimizer', 'plots', 'noPlots'] as const) runs[k].push(round[k]) // the first round warms up
    }
    // the trace has no block masks: every hit is an external one in the Optimizer's terms
    const ours = hitRows(join(out(true), 'instance_hit_rates.csv'), [
      'CachedBlocks',
      'ReadBlocks',
      'HitBlocks',
    ])
    const theirs = hitRows(join(dir, `optimizer-out-${policy}`, 'instance_hit_rates.csv'), [
      'CachedBlocksCurrentInstance',
      'TotalReadBlocks',
      'ExternalHitBlocks',
    ])
    const differ = ours.length !== theirs.length || ours.some((row, i) => row !== theirs[i])
    if (differ) throw new Error(`${policy}: lmt and the Optimizer differ per get`)
    table.push(
      {
        case: `Optimizer ${policy} ${BLOCKS} blocks`,
        ...fmt(runs.optimizer),
        rows: `${theirs.length} gets, identical`,
      },
      {case: `lmt ${policy} (default outputs)`, ...fmt(runs.plots), rows: ''},
      {case: `lmt ${policy} --no-plots`, ...fmt(runs.noPlots), rows: ''},
    )
  }
  return table
}
