// The oracle references of a single run (docs/simulate.md §7): the infinite cache and Belady's next-need eviction,
// each a pass over the trace's rows held in memory.
import {Notes} from '../config/notes.js'
import {stepProgress} from '../config/step-progress.js'
import {playRows} from '../engine/play-rows.js'
import {Player} from '../engine/player.js'
import {loadSorted} from '../input/sorted-rows.js'
import type {TraceRow} from '../input/trace-rows.js'
import {newStats} from '../input/trace-source.js'
import {beladyOracleLine, infiniteOracleLine} from '../output/console.js'
import {formatG} from '../output/format-g.js'
import {cfgWithInstances, totalsOf} from '../output/summary.js'
import {beladyOracle} from '../oracles/belady.js'
import type {RunSizes} from './block-sizes.js'
import type {RunSetup} from './setup.js'

/** summary.json `oracles`: null when none was asked for */
export type OracleDoc = Record<string, unknown> | null

/** The oracles a single run asked for, beside `main` (the run's own play); their console lines into `lines`. */
export async function runOracles(
  setup: RunSetup,
  sizes: RunSizes,
  main: Player,
  rowsInMemory: TraceRow[] | undefined,
  lines: string[],
): Promise<OracleDoc> {
  const {req} = setup
  const oracles: OracleDoc = req.oracle === 'none' ? null : {infinite: null, belady: null}
  if (!oracles) return oracles
  const rows =
    rowsInMemory ??
    (await loadSorted(
      setup.tracePath,
      setup.traceName,
      setup.resolved,
      {...req, skipInvalid: true},
      newStats(setup.tracePath),
      new Notes(),
    ))
  if (req.oracle === 'infinite' || req.oracle === 'all')
    oracles.infinite = infiniteOracle(setup, sizes, main, rows, lines)
  if (req.oracle === 'belady' || req.oracle === 'all') oracles.belady = belady(setup, main, rows, lines)
  return oracles
}

function infiniteOracle(
  setup: RunSetup,
  sizes: RunSizes,
  main: Player,
  rows: readonly TraceRow[],
  lines: string[],
): unknown[] {
  const {cfg} = setup
  const inf = playRows(
    rows,
    () =>
      new Player({
        ...sizes.baseOptions,
        config: structuredClone(main.ordered.length ? cfgWithInstances(cfg, main) : cfg),
        plots: false,
        infinite: true,
        strictInstances: false,
      }),
    stepProgress(setup.req, 'infinite capacity'),
  )
  const groups = inf.player.groups.map((g) => {
    const t = totalsOf(g.members)
    return {
      group_name: g.cfg.group_name,
      token_hit_rate: t.token_hit_rate,
      block_hit_rate: t.block_hit_rate,
      hit_blocks: t.hit_blocks,
    }
  })
  for (const o of groups) lines.push(infiniteOracleLine(o.group_name, o.token_hit_rate))
  return groups
}

function belady(setup: RunSetup, main: Player, rows: readonly TraceRow[], lines: string[]): unknown[] {
  const bel = beladyOracle(
    rows,
    cfgWithInstances(setup.cfg, main),
    undefined,
    stepProgress(setup.req, 'Belady oracle'),
  )
  for (const b of bel) {
    const policyRate = totalsOf(
      main.groups.find((g) => g.cfg.group_name === b.group_name)?.members ?? [],
    ).token_hit_rate
    lines.push(beladyOracleLine(b.group_name, b.token_hit_rate, b.quota_units))
    if (policyRate > b.token_hit_rate)
      setup.notes.add(
        'LMT_SIM_UNUSUAL_VALUE',
        `group ${b.group_name}: the policy (${formatG(policyRate)}) beats the Belady next-need reference (${formatG(b.token_hit_rate)}); Belady is not an upper bound in this replay model (a miss does not insert)`,
        'warning',
      )
  }
  return bel.map(({instances: _instances, ...g}) => g)
}
