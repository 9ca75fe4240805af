// `lmt report` as a library call: the capacity-planning answer for a trace (the document the HTML page and --json
// show). Reads with simulate's readers, replays with simulate's engine, sweeps with its stack pass and pool.
import {lmtError} from '../errors.js'
import {
  blocksToGib,
  gibToBlocks,
  lmcacheLookupSection,
  type Player,
  playInMemory,
  type PolicyName,
  type SimConfig,
  stackPass,
  totalsOf,
} from '../simulate/index.js'
import {characterize, ReuseDistances} from './characterize.js'
import {capacityGrid, computeCurves, withPolicy} from './curves.js'
import {capacityTable, type CapacityRow} from './capacity-table.js'
import {type LoadedInput, loadInput, type LoadRequest} from './load.js'
import {hitRateOverTime} from './over-time.js'
import {eventLoopTurn} from '../util/event-loop-turn.js'
import {TimeBins} from './time-bins.js'

export interface ReportRequest extends LoadRequest {
  /** the capacity of the hit-rate-over-time replays (default: where LRU reaches 90 % of the infinite cache) */
  capacityBlocks?: number
  capacityGb?: number
  /** the group the answer is for (default: the only one) */
  group?: string
  /** bytes of one block's KV cache (from a KV layout), for every instance */
  bytesPerBlock?: number
  points: number
  /** the policies to answer for (lru always) */
  policies: readonly PolicyName[]
  seed: bigint
  jobs?: number
  version: string
  /** an LMCache lookup-hash log (the trace is its conversion): LMCache's simulator at the same capacities */
  lmcacheLookup?: {inputs: readonly string[]; bytesPerToken?: number}
  onProgress?(p: {phase: string; done: number; total: number}): void
}

type Group = SimConfig['instance_groups'][number]

/** Where the group the answer is for is among the groups `names`: --group, else the only one. */
export function answerGroupIndex(names: readonly string[], name: string | undefined): number {
  const i = name === undefined ? (names.length === 1 ? 0 : -1) : names.indexOf(name)
  if (i >= 0) return i
  throw name === undefined
    ? lmtError('REPORT_GROUP_NEEDED', names)
    : lmtError('SIM_UNKNOWN_GROUP', '--group', name)
}

/** bytes of a block of the group, when every instance has the same (else null) */
function bytesPerBlockOf(g: Group, flag: number | undefined): number | null {
  if (flag !== undefined) return flag
  const sizes = new Set(
    g.instances.map((i) => (i.bytes_per_token === undefined ? NaN : i.bytes_per_token * i.block_size)),
  )
  const [only] = [...sizes]
  return sizes.size === 1 && !Number.isNaN(only) ? only : null
}

/** The infinite cache: the ceiling, the working set, and the block-size check (simulate's partial-tail rule). */
function replayInfinite(input: LoadedInput, group: Group, seed: bigint) {
  const replayer = playInMemory(input.rows, {
    config: structuredClone(input.config),
    seed,
    strictInstances: false,
    plots: true,
    infinite: true,
    traceName: input.traceName,
  })
  const infGroup = replayer.groups.find(
    (g) => g.cfg.group_name === group.group_name,
  ) as Player['groups'][number]
  // the group's working set: every block the infinite cache holds at the end
  const wss = infGroup.members.reduce((a, m) => a + m.counters.final_cached_blocks, 0)
  const t = totalsOf(infGroup.members)
  return {
    replayer,
    wss,
    totals: {
      token_hit_rate: t.token_hit_rate,
      block_hit_rate: t.block_hit_rate,
      hit_blocks: t.hit_blocks,
      read_blocks: t.read_blocks,
    },
  }
}

/**
 * The trace's profiles, and the LRU stack pass over the grid: one pass gives the certified LRU points and, for a
 * one-instance group, that instance's reuse distances.
 */
async function characterizeTrace(input: LoadedInput, group: Group, grid: number[], bins: TimeBins) {
  const {rows, config: cfg} = input
  const only = group.instances.length === 1 ? group.instances[0].instance_id : undefined
  const observed = new ReuseDistances()
  // simulate's one-pass LRU stack method over the grid
  const stack = stackPass(
    rows,
    withPolicy(cfg, group.group_name, 'lru'),
    group.group_name,
    grid.map((blocks) => ({blocks})),
    only === undefined ? undefined : observed.observe,
  )
  await eventLoopTurn() // two long synchronous passes: a Ctrl-C between them is answered there
  const known = new Map<string, ReuseDistances>()
  if (only !== undefined && (stack.eligible || stack.failedRule === 'units')) {
    observed.reason = stack.reason
    known.set(only, observed)
  }
  const described = new Map(
    cfg.instance_groups.flatMap((g) => g.instances.map((i) => [i.instance_id, i.block_size] as const)),
  )
  return {stack, characterization: characterize(rows, cfg, described, bins, known)}
}

/** The report document: what the HTML page and --json show (schemas/report.schema.json). */
export type ReportDocument = Awaited<ReturnType<typeof buildReport>>

/** Builds the whole report document. */
export async function buildReport(req: ReportRequest) {
  const started = performance.now()
  const progress = (phase: string, done = 0, total = 1) => req.onProgress?.({phase, done, total})
  const input = await loadInput({...req, onBytes: (d, t) => progress('reading the trace', d, t)})
  const {config: cfg, rows} = input
  const group =
    cfg.instance_groups[
      answerGroupIndex(
        cfg.instance_groups.map((g) => g.group_name),
        req.group,
      )
    ]
  if (rows.length === 0) throw lmtError('REPORT_NO_ROWS', input.traceName)
  const last = rows[rows.length - 1].ts
  const bins = new TimeBins(rows[0].ts, last)
  progress('infinite-capacity replay')
  const inf = replayInfinite(input, group, req.seed)
  await eventLoopTurn()
  progress('characterizing')
  const grid = capacityGrid(Math.max(1, inf.wss), req.points)
  const {stack, characterization} = await characterizeTrace(input, group, grid, bins)
  await eventLoopTurn()
  const curves = await computeCurves({
    stack,
    rows,
    config: cfg,
    groupName: group.group_name,
    grid,
    wss: inf.wss,
    infinite: inf.totals,
    policies: req.policies,
    seed: req.seed,
    jobs: req.jobs,
    onProgress: (d, t) => progress('replaying capacities', d, t),
  })
  const bytesPerBlock = bytesPerBlockOf(group, req.bytesPerBlock)
  if (bytesPerBlock === null)
    input.notes.add(
      'LMT_REPORT_NO_BYTES',
      'no --bytes-per-token or --kv-layout (or instances of different block bytes): capacities are in blocks only',
    )
  const drawn = curves.policies.filter((c) => c.same_as === null)
  const table = capacityTable([...drawn, curves.belady], inf.totals.token_hit_rate, bytesPerBlock)
  const chosen = chooseCapacity(req, table, bytesPerBlock, inf.wss)
  progress('hit rate over time')
  const overTime = await hitRateOverTime({
    rows,
    config: cfg,
    groupName: group.group_name,
    capacityBlocks: chosen.blocks,
    policies: drawn.map((c) => c.policy as PolicyName),
    bins,
    seed: req.seed,
    infinite: inf.replayer,
  })
  if (req.lmcacheLookup) progress("LMCache's simulator")
  // an LMCache recording's own figures beside lmt's (a lookup-hash log: its cache simulator)
  const lmcache = req.lmcacheLookup && {
    lookup: await lmcacheLookupSection({
      ...req.lmcacheLookup,
      grid,
      chosenBlocks: chosen.blocks,
      bytesPerBlock,
      onWarning: (m) => input.notes.add('LMT_REPORT_LMCACHE', m, 'warning'),
    }),
  }
  return {
    format: 'lmt.report',
    format_version: 1,
    lmt_version: req.version,
    // the trace read: its file, rows and time span
    trace: {
      path: input.tracePath,
      name: input.traceName,
      bytes: input.stats.bytes,
      rows: input.stats.rows,
      rows_by_type: input.stats.rowsByType,
      invalid_rows: input.stats.invalid,
      first_timestamp_ns: bins.first.toString(),
      last_timestamp_ns: last.toString(),
      duration_seconds: Number(last - bins.first) / 1e9,
      time_bins: bins.count,
      bin_seconds: bins.widthSeconds(),
      instances: input.blockSizes.size,
    },
    // the configuration replayed: the group answered for, the eviction and replay modes, every block size
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
    notices: input.notes.list,
    characterization,
    answer: {
      group: group.group_name,
      wss_blocks: inf.wss,
      bytes_per_block: bytesPerBlock,
      infinite: inf.totals,
      grid,
      curves: curves.policies,
      belady: curves.belady,
      stack: curves.stack,
      capacity_table: table,
      chosen_capacity: chosen,
      over_time: overTime,
    },
    ...(lmcache ? {lmcache} : {}),
    performance: {seconds: (performance.now() - started) / 1000},
  }
}

/** The capacity of the hit-rate-over-time replays: the one asked for, else where LRU reaches 90 % of the ceiling. */
function chooseCapacity(
  req: ReportRequest,
  table: CapacityRow[],
  bytesPerBlock: number | null,
  wss: number,
): {blocks: number; gb: number | null; source: 'flag' | 'lru_90'} {
  const gbOf = (blocks: number) => (bytesPerBlock === null ? null : blocksToGib(blocks, bytesPerBlock))
  if (req.capacityBlocks !== undefined)
    return {blocks: req.capacityBlocks, gb: gbOf(req.capacityBlocks), source: 'flag'}
  if (req.capacityGb !== undefined) {
    if (bytesPerBlock === null)
      throw lmtError('CLI_FLAG_NEEDS', 'a capacity in GiB', '--bytes-per-token or --kv-layout', {
        suggestions: ['pass --bytes-per-token', 'or use --capacity-blocks'],
      })
    const blocks = gibToBlocks(req.capacityGb, bytesPerBlock)
    if (blocks < 1)
      throw lmtError(
        'CLI_OUT_OF_RANGE',
        '--capacity',
        `at least one block (${blocksToGib(1, bytesPerBlock)} GiB)`,
        String(req.capacityGb),
      )
    return {blocks, gb: gbOf(blocks), source: 'flag'}
  }
  const need = table.find((r) => r.policy === 'lru')?.needs.find((n) => n.target === 0.9)
  const blocks = Math.max(1, need?.blocks ?? wss)
  return {blocks, gb: gbOf(blocks), source: 'lru_90'}
}

const pct = (r: number) => `${(r * 100).toFixed(1)} %`

/** The report's few lines for a terminal: the answer in words. */
export function reportSummaryLines(doc: ReportDocument): string[] {
  const a = doc.answer
  const lines = [
    `${doc.trace.name}: ${doc.characterization.overall.requests} requests, working set ${a.wss_blocks} blocks, infinite-capacity token hit rate ${pct(a.infinite.token_hit_rate)}`,
  ]
  for (const row of a.capacity_table) {
    const cells = row.needs.map((n) => {
      const v =
        n.blocks === null
          ? 'not reached'
          : `${n.how === 'at_most' ? '≤' : n.how === 'interpolated' ? '≈' : ''}${n.blocks}${n.gb === null ? '' : ` (${n.gb.toFixed(2)} GiB)`}`
      return `${Math.round(n.target * 100)} %: ${v}`
    })
    lines.push(`  ${row.policy.padEnd(15)} ${cells.join(', ')}`)
  }
  const at = a.over_time.map((s) => `${s.series} ${pct(s.token_hit_rate)}`).join(', ')
  lines.push(`at ${a.chosen_capacity.blocks} blocks: ${at}`)
  const lookup = doc.lmcache?.lookup.chosen
  if (typeof lookup?.token_hit_rate === 'number')
    lines.push(
      `  LMCache's simulator (lmcache_lru) at ${lookup.capacity_chunks} chunks: ${pct(lookup.token_hit_rate)}`,
    )
  return lines
}
