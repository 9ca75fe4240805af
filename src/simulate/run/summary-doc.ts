// summary.json of a finished run (docs/simulate.md §5.5): the instances with their block sizes, the groups, the
// notices of what was skipped, the performance figures.
import {defaultSizeWarning, blockSizeCheckDoc} from '../input/block-size.js'
import type {Player} from '../engine/player.js'
import {blockSizeLine, blockSizeLines} from '../output/console.js'
import {
  cfgWithInstances,
  groupSummary,
  instanceSummary,
  publicSweepDoc,
  traceSummary,
} from '../output/summary.js'
import type {RunSizes} from './block-sizes.js'
import type {OracleDoc} from './oracles.js'
import type {RunSetup} from './setup.js'

/** What the plays of a run left for its summary. */
export interface RunResult {
  /** the player the summary describes (a sweep's: its largest point) */
  effective: Player
  /** a single run's player (a sweep's placeholder) */
  main: Player
  sorted: boolean
  oracles: OracleDoc
  sweepDoc: Record<string, unknown> | null
  playSeconds: number
  parseSeconds: number
  jobs: number
  /** the block sizes it played with */
  sizes: RunSizes
}

/** The summary document; the block-size lines go to the front of `lines`, the skip warnings into the notes. */
export function summaryDoc(setup: RunSetup, r: RunResult, lines: string[]): Record<string, unknown> {
  const {req, cfg, notes, stats} = setup
  const {effective, sweepDoc, playSeconds, parseSeconds} = r
  const instances = instanceDocs(setup, r.sizes, effective, lines)
  const groups = groupSummary(effective)
  const totalSeconds = (performance.now() - setup.started) / 1000
  const blockLookups = req.sweep ? (sweepDoc?.block_lookups as number) : r.main.blockLookups
  skipWarnings(setup, effective)
  return {
    format: 'lmt.simulate.summary',
    format_version: 1,
    lmt_version: req.version,
    kind: req.sweep ? 'sweep' : 'run',
    trace: traceSummary(setup.tracePath, stats, effective, cfg, r.sorted),
    config: cfgWithInstances(cfg, effective),
    seed: req.seed.toString(),
    notices: notes.list,
    groups,
    instances,
    oracles: r.oracles,
    sweep: sweepDoc === null ? null : publicSweepDoc(sweepDoc),
    performance: {
      block_lookups: blockLookups,
      replay_seconds: playSeconds,
      block_lookups_per_second: playSeconds > 0 ? blockLookups / playSeconds : 0,
      parse_seconds: Math.max(0, parseSeconds),
      parse_mb_per_second: parseSeconds > 0 ? stats.bytes / 1e6 / parseSeconds : 0,
      total_seconds: totalSeconds,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
      jobs: r.jobs,
    },
    outputs: setup.outputs,
  }
}

/** summary.json `instances`, with each block size, its source and its check; their lines to the front of `lines`. */
function instanceDocs(
  setup: RunSetup,
  sizes: RunSizes,
  effective: Player,
  lines: string[],
): Array<Record<string, unknown>> {
  const {plan} = sizes
  const fitOf = (i: Player['ordered'][number]) => sizes.fits?.get(i.cfg.instance_id) ?? i.blockSizeFit
  const instances = effective.ordered.map((i) => ({
    ...instanceSummary(i, setup.req.sweep ? null : (setup.csvNames.nameOf(i.cfg.instance_id) ?? null)),
    block_size_source: plan.source(i.cfg.instance_id),
    block_size_check: blockSizeCheckDoc(i.cfg.block_size, fitOf(i)),
  }))
  defaultSizeWarning(
    setup.notes,
    effective.ordered
      .filter((i) => plan.source(i.cfg.instance_id) === 'default')
      .map((i) => i.cfg.instance_id),
  )
  const sizeLines = effective.ordered.map((i) =>
    blockSizeLine(i.cfg.instance_id, i.cfg.block_size, plan.source(i.cfg.instance_id), fitOf(i)),
  )
  lines.unshift(...blockSizeLines(sizeLines))
  return instances
}

/** The warnings of rows the plays skipped: of instances not configured, of other query types, invalid ones. */
function skipWarnings(setup: RunSetup, effective: Player): void {
  const {notes, stats} = setup
  const unknown = [...effective.skips.unknownInstances]
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, 10)
      .map(([id, c]) => `${id} (get ${c.get}, write ${c.write}, request ${c.request})`)
    notes.add(
      'LMT_SIM_UNKNOWN_INSTANCE',
      `rows of instances that are not configured were skipped: ${shown.join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}`,
      'warning',
    )
  }
  const skippedQuery = [...effective.skips.queryTypes]
  const invalid = Object.entries(stats.invalid)
  if (skippedQuery.length > 0 || invalid.length > 0)
    notes.add(
      'LMT_SIM_SKIPPED_ROWS',
      [
        ...skippedQuery.map(([q, n]) => `${n} rows with query_type "${q}"`),
        ...invalid.map(([rule, n]) => `${n} invalid rows (${rule})`),
      ].join(', ') + ' skipped',
      'warning',
    )
}
