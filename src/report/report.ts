// `lmt report` as a library call: the capacity-planning answer for a trace (the document the HTML page and --json
// show). Reads with simulate's readers, replays with simulate's engine, sweeps with its stack pass and pool.
import {lmtError} from '../errors.js'
import type {Notice, PolicyName, SimConfig} from '../simulate/config.js'
import {replayRows} from '../simulate/replay-rows.js'
import {Replayer} from '../simulate/replayer.js'
import {totalsOf} from '../simulate/summary.js'
import {type CapacityRow, capacityTable} from './capacity-table.js'
import {type Characterization, characterize} from './characterize.js'
import {capacityGrid, computeCurves, type Curves, lruStackPass, type Totals} from './curves.js'
import {ReuseDistances} from './reuse-distance.js'
import {loadInput, type LoadRequest} from './load.js'
import {hitRateOverTime, type OverTimeSeries} from './over-time.js'
import {TimeBins} from './time-bins.js'

export interface ReportRequest extends LoadRequest {
  /** the group the answer is for (default: the only one) */
  group?: string
  /** bytes of one block's KV cache (from a KV layout), for every instance */
  bytesPerBlock?: number
  /** the capacity of the hit-rate-over-time replays (default: where LRU reaches 90 % of the infinite cache) */
  capacityBlocks?: number
  capacityGb?: number
  points: number
  /** the policies to answer for (lru always) */
  policies: readonly PolicyName[]
  seed: bigint
  jobs?: number
  version: string
  onProgress?(p: {phase: string; done: number; total: number}): void
}

export interface ReportAnswer {
  group: string
  wss_blocks: number
  bytes_per_block: number | null
  infinite: Totals
  grid: number[]
  curves: Curves['policies']
  belady: Curves['belady']
  stack: Curves['stack']
  capacity_table: CapacityRow[]
  chosen_capacity: {blocks: number; gb: number | null; source: 'flag' | 'lru_90'}
  /** every policy replayed at the chosen capacity: its token hit rate and over trace time */
  over_time: OverTimeSeries[]
}

export interface ReportDocument {
  format: 'lmt.report'
  format_version: 1
  lmt_version: string
  trace: Record<string, unknown>
  config: Record<string, unknown>
  notices: Notice[]
  characterization: Characterization
  answer: ReportAnswer
  performance: {seconds: number}
}

function answerGroup(cfg: SimConfig, name: string | undefined): SimConfig['instance_groups'][number] {
  const groups = cfg.instance_groups
  const g =
    name === undefined
      ? groups.length === 1
        ? groups[0]
        : undefined
      : groups.find((x) => x.group_name === name)
  if (g) return g
  throw name === undefined
    ? lmtError(
        'REPORT_GROUP_NEEDED',
        groups.map((x) => x.group_name),
      )
    : lmtError('SIM_UNKNOWN_GROUP', '--group', name)
}

/** bytes of a block of the group, when every instance has the same (else null) */
function bytesPerBlockOf(g: SimConfig['instance_groups'][number], flag: number | undefined): number | null {
  if (flag !== undefined) return flag
  const sizes = new Set(
    g.instances.map((i) => (i.bytes_per_token === undefined ? NaN : i.bytes_per_token * i.block_size)),
  )
  const [only] = [...sizes]
  return sizes.size === 1 && !Number.isNaN(only) ? only : null
}

/** Builds the whole report document. */
export async function buildReport(req: ReportRequest): Promise<ReportDocument> {
  const started = performance.now()
  const progress = (phase: string, done = 0, total = 1) => req.onProgress?.({phase, done, total})
  const input = await loadInput({...req, onBytes: (d, t) => progress('reading the trace', d, t)})
  const {config: cfg, rows, notes} = input
  const group = answerGroup(cfg, req.group)
  if (rows.length === 0) throw lmtError('REPORT_NO_ROWS', input.traceName)
  const bins = new TimeBins(rows[0].ts, rows[rows.length - 1].ts)
  progress('infinite-capacity replay')
  // the infinite cache: the ceiling, the working set, and the block-size check (simulate's partial-tail rule)
  const inf = replayRows(
    rows,
    () =>
      new Replayer({
        config: structuredClone(cfg),
        seed: req.seed,
        strictInstances: false,
        plots: true,
        infinite: true,
        traceName: input.traceName,
      }),
  ).replayer
  const infGroup = inf.groups.find((g) => g.cfg.group_name === group.group_name) as Replayer['groups'][number]
  const wss = infGroup.members.reduce((a, m) => a + m.counters.final_cached_blocks, 0)
  const infTotals = totalsOf(infGroup.members)
  const infinite: Totals = {
    token_hit_rate: infTotals.token_hit_rate,
    block_hit_rate: infTotals.block_hit_rate,
    hit_blocks: infTotals.hit_blocks,
    read_blocks: infTotals.read_blocks,
  }
  progress('characterizing')
  const grid = capacityGrid(Math.max(1, wss), req.points)
  // one LRU stack pass gives the certified LRU points and, for a one-instance group, that instance's reuse distances
  const only = group.instances.length === 1 ? group.instances[0].instance_id : undefined
  const observed = new ReuseDistances()
  const stack = lruStackPass(
    rows,
    cfg,
    group.group_name,
    grid,
    only === undefined ? undefined : observed.observe,
  )
  const known = new Map<string, ReuseDistances>()
  if (only !== undefined && (stack.eligible || stack.reason?.startsWith('E4'))) {
    observed.reason = stack.reason
    known.set(only, observed)
  }
  const described = new Map(
    cfg.instance_groups.flatMap((g) => g.instances.map((i) => [i.instance_id, i.block_size] as const)),
  )
  const characterization = characterize(rows, cfg, described, bins, known)
  const curves = await computeCurves({
    stack,
    rows,
    config: cfg,
    groupName: group.group_name,
    grid,
    wss,
    infinite,
    policies: req.policies,
    seed: req.seed,
    jobs: req.jobs,
    onProgress: (d, t) => progress('replaying capacities', d, t),
  })
  const bytesPerBlock = bytesPerBlockOf(group, req.bytesPerBlock)
  if (bytesPerBlock === null)
    notes.add(
      'LMT_REPORT_NO_BYTES',
      'no --bytes-per-token or --kv-layout (or instances of different block bytes): capacities are in blocks only',
    )
  const table = capacityTable(
    [...curves.policies.filter((c) => c.same_as === null), curves.belady],
    infinite.token_hit_rate,
    bytesPerBlock,
  )
  const chosen = chooseCapacity(req, table, bytesPerBlock, wss)
  progress('hit rate over time')
  const overTime = hitRateOverTime({
    rows,
    config: cfg,
    groupName: group.group_name,
    capacityBlocks: chosen.blocks,
    policies: curves.policies.filter((c) => c.same_as === null).map((c) => c.policy as PolicyName),
    bins,
    seed: req.seed,
    infinite: inf,
  })
  return {
    format: 'lmt.report',
    format_version: 1,
    lmt_version: req.version,
    trace: traceDoc(input, bins),
    config: {
      group: group.group_name,
      eviction_mode: cfg.eviction_params.eviction_mode,
      eviction_batch_size_per_instance: cfg.eviction_params.eviction_batch_size_per_instance,
      replay_mode: cfg.trace_replay.mode,
      instances: [...input.blockSizes].map(([id, c]) => ({
        instance_id: id,
        block_size: c.blockSize,
        block_size_source: c.source,
      })),
    },
    notices: notes.list,
    characterization,
    answer: {
      group: group.group_name,
      wss_blocks: wss,
      bytes_per_block: bytesPerBlock,
      infinite,
      grid,
      curves: curves.policies,
      belady: curves.belady,
      stack: curves.stack,
      capacity_table: table,
      chosen_capacity: chosen,
      over_time: overTime,
    },
    performance: {seconds: (performance.now() - started) / 1000},
  }
}

function chooseCapacity(
  req: ReportRequest,
  table: CapacityRow[],
  bytesPerBlock: number | null,
  wss: number,
): ReportAnswer['chosen_capacity'] {
  const gbOf = (blocks: number) => (bytesPerBlock === null ? null : (blocks * bytesPerBlock) / 2 ** 30)
  if (req.capacityBlocks !== undefined)
    return {blocks: req.capacityBlocks, gb: gbOf(req.capacityBlocks), source: 'flag'}
  if (req.capacityGb !== undefined) {
    if (bytesPerBlock === null)
      throw lmtError('CLI_FLAG_NEEDS', 'a capacity in GB', '--bytes-per-token or --kv-layout', {
        suggestions: ['pass --bytes-per-token', 'or use --capacity-blocks'],
      })
    const blocks = Math.max(1, Math.floor((req.capacityGb * 2 ** 30) / bytesPerBlock))
    return {blocks, gb: gbOf(blocks), source: 'flag'}
  }
  const need = table.find((r) => r.policy === 'lru')?.needs.find((n) => n.target === 0.9)
  const blocks = Math.max(1, need?.blocks ?? wss)
  return {blocks, gb: gbOf(blocks), source: 'lru_90'}
}

function traceDoc(input: Awaited<ReturnType<typeof loadInput>>, bins: TimeBins): Record<string, unknown> {
  const rows = input.rows
  const first = rows[0].ts
  const last = rows[rows.length - 1].ts
  return {
    path: input.tracePath,
    name: input.traceName,
    bytes: input.stats.bytes,
    rows: input.stats.rows,
    rows_by_type: input.stats.rowsByType,
    invalid_rows: input.stats.invalid,
    first_timestamp_ns: first.toString(),
    last_timestamp_ns: last.toString(),
    duration_seconds: Number(last - first) / 1e9,
    time_bins: bins.count,
    bin_seconds: bins.widthSeconds(),
    instances: input.blockSizes.size,
  }
}
