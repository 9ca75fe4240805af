// The oracle references of a single run (docs/simulate.md §6.4): the infinite cache and Belady's next-need eviction,
// each a pass over the trace's rows held in memory.
import {Notes} from '../config/notes.js'
import {stepProgress} from '../config/request.js'
import {playRows} from '../engine/play-rows.js'
import {Player} from '../engine/player.js'
import {loadSorted} from '../input/sorted-rows.js'
import type {TraceRow} from '../input/trace-rows.js'
import {newStats} from '../input/trace-source.js'
import {beladyOracleLine, infiniteOracleLine} from '../output/console.js'
import {formatG} from '../../util/format-g.js'
import {cfgWithInstances, infiniteDoc, totalsOf} from '../output/summary.js'
import {prepareBelady} from '../oracles/belady.js'
import {checkBelowCeiling} from '../oracles/ceiling.js'
import {groupExpires} from '../config/tiers.js'
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
  // the infinite play is the ceiling every other figure is checked against, so it is played for Belady too
  const ceilings = new Map<string, number>()
  const infinite = infiniteOracle(setup, sizes, main, rows, ceilings)
  if (req.oracle === 'infinite' || req.oracle === 'all') {
    oracles.infinite = infinite
    for (const o of infinite) lines.push(infiniteOracleLine(o.group_name, o.token_hit_rate))
  }
  for (const g of main.groups) {
    if (!ceilings.has(g.cfg.group_name)) continue
    const t = totalsOf(g.members)
    checkBelowCeiling(
      `group ${g.cfg.group_name}`,
      t.hit_tokens,
      t.input_tokens,
      ceilings.get(g.cfg.group_name) ?? 0,
    )
  }
  if ((req.oracle === 'belady' || req.oracle === 'all') && setup.cfg.tiered)
    setup.notes.add('LMT_SIM_NOT_MODELLED', TIERED_BELADY)
  else if (req.oracle === 'belady' || req.oracle === 'all')
    oracles.belady = belady(setup, main, rows, lines, ceilings)
  return oracles
}

/** why a configuration with a tier_strategy has no Belady reference (docs/simulate.md §10.8) */
export const TIERED_BELADY =
  'no Belady reference for a configuration with a tier_strategy: next-need eviction is defined for one cache, not for tiers with promotion, write modes and TTL expiry'

function infiniteOracle(
  setup: RunSetup,
  sizes: RunSizes,
  main: Player,
  rows: readonly TraceRow[],
  ceilings: Map<string, number>,
): Array<{group_name: string; token_hit_rate: number; block_hit_rate: number; hit_blocks: number}> {
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
  return inf.player.groups.map((g) => {
    const t = totalsOf(g.members)
    // blocks that can expire: the unlimited play bounds no other (§10.8), so it is reported and not checked against
    if (!groupExpires(g.cfg)) ceilings.set(g.cfg.group_name, t.hit_tokens)
    return infiniteDoc(g.cfg.group_name, t)
  })
}

function belady(
  setup: RunSetup,
  main: Player,
  rows: readonly TraceRow[],
  lines: string[],
  ceilings: Map<string, number>,
): unknown[] {
  const cfg = cfgWithInstances(setup.cfg, main)
  const bel = prepareBelady(rows, cfg)(cfg, stepProgress(setup.req, 'Belady oracle'))
  for (const b of bel) {
    const tokens = b.instances.reduce((a, i) => [a[0] + i.hit_tokens, a[1] + i.input_tokens], [0, 0])
    checkBelowCeiling(`group ${b.group_name}, belady`, tokens[0], tokens[1], ceilings.get(b.group_name) ?? 0)
    const policyRate = totalsOf(
      main.groups.find((g) => g.cfg.group_name === b.group_name)?.members ?? [],
    ).token_hit_rate
    lines.push(
      // the quota's units: bytes for a capacity in GiB, else blocks
      beladyOracleLine(
        b.group_name,
        b.token_hit_rate,
        b.quota_units,
        cfg.instance_groups.find((g) => g.group_name === b.group_name)?.quota_capacity !== undefined
          ? 'bytes'
          : 'blocks',
      ),
    )
    if (policyRate > b.token_hit_rate)
      setup.notes.add(
        'LMT_SIM_UNUSUAL_VALUE',
        `group ${b.group_name}: the policy (${formatG(policyRate)}) beats the Belady next-need reference (${formatG(b.token_hit_rate)}); Belady is not an upper bound in this replay model (a miss does not insert)`,
        'warning',
      )
  }
  return bel.map(({instances: _instances, ...g}) => g)
}
