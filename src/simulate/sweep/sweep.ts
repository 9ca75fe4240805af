// Sweeps (docs/simulate.md §6): the curve of hit rate against capacity for one group, with its oracle ceilings.
// The steps: the infinite play (working set, ceiling), the capacities, the stack pass, the points' plays (on
// worker threads or here), the Belady references, sweep.csv and the summary's sweep document.
import {availableParallelism} from 'node:os'
import {join} from 'node:path'
import {lmtError} from '../../errors.js'
import {type BeladyGroupResult, prepareBelady} from '../oracles/belady.js'
import type {GroupConfig, SimConfig} from '../config/config.js'
import {
  capacityText,
  checkGibCapacity,
  type GroupCapacity,
  groupAtCapacity,
  pointCapacity,
  quotaUnits,
} from '../config/capacity.js'
import {formatG} from '../../util/format-g.js'
import {rate} from '../engine/hit-rate-csv.js'
import type {Notes} from '../config/notes.js'
import type {PendingFiles} from '../../util/pending-files.js'
import {playRows} from '../engine/play-rows.js'
import {type PlayerOptions, type PointResult, Player} from '../engine/player.js'
import {type SimulateRequest, stepProgress, type SweepRequest} from '../config/request.js'
import {notUsed, stackPass, type StackPassResult} from '../oracles/stack-pass.js'
import {checkBelowCeiling} from '../oracles/ceiling.js'
import {sweepBeladySuffix, sweepFooterLines, sweepPointLine} from '../output/console.js'
import {cfgWithInstances, infiniteDoc, totalsOf} from '../output/summary.js'
import {
  keyModOf,
  type PointJob,
  pointResult,
  replayPoint as playPoint,
  type SweepTask,
} from './sweep-tasks.js'
import {runSweepTasks} from './run-tasks.js'
import {
  capacityCells,
  type CapacityCells,
  SWEEP_CSV_HEADER,
  sweepCsvRow,
  tierCsvCells,
  tierCsvHeader,
} from './sweep-csv.js'
import {
  groupExpires,
  sweptTierOf,
  tierCapacityOf,
  tieredGroupAtCapacity,
  tierNamesOf,
} from '../config/tiers.js'
import {GIB} from '../config/capacity.js'
import {TIERED_BELADY} from '../run/oracles.js'
import type {TraceRow} from '../input/trace-rows.js'

/** The player options a sweep's plays share, and a tiered sweep's key values (see PointJob). */
type SweepBase = Omit<PlayerOptions, 'plots'> & {keyValues?: Uint32Array}

/** The swept group of the infinite play. */
type InfiniteGroup = Player['groups'][number]

/**
 * A sweep: what its steps read (the request, the swept group, its capacities and how each point is had), and what
 * its points and references add up to (sweep.csv's rows, the document's points, the console lines).
 */
type Sweep = ReturnType<typeof planSweep>

export async function runSweep(
  rows: TraceRow[],
  req: SimulateRequest,
  cfg: SimConfig,
  base: SweepBase,
  notes: Notes,
  out: string,
  files: PendingFiles,
  csvName: (dir: string) => (id: string) => string,
) {
  const t0 = performance.now()
  const sweep = planSweep(rows, req, cfg, base, notes)
  const {caps, groupName} = sweep
  // the points are independent plays: on worker threads unless one thread is asked for (or point CSVs, which
  // this thread writes); results are assembled in point order either way, so they never depend on --jobs
  const jobs = Math.max(1, Math.min(req.jobs ?? availableParallelism(), caps.length))
  const beladyAsked = req.oracle === 'belady' || req.oracle === 'all'
  if (beladyAsked && sweep.tiers) notes.add('LMT_SIM_NOT_MODELLED', TIERED_BELADY)
  const withBelady = beladyAsked && !sweep.tiers
  const parallel = jobs > 1 && !req.keepPointCsv ? await playInParallel(sweep, jobs, withBelady) : undefined
  if (parallel) sweep.largest = parallel.last
  await addPoints(sweep, parallel?.points, out, files, csvName)
  if (withBelady) addBelady(sweep, notes, parallel?.belady)
  // the infinite series' rows of sweep.csv
  const infCells = {capBlocks: 'inf', capGb: 'inf', quotaBlocks: 'inf'}
  const infMembers = pointResult(sweep.infinitePlay, groupName).members
  const infTotals = addSeriesRows(sweep, 'infinite', infCells, infMembers).totals
  const stranded = sweep.stranded.filter((n) => n > 0)
  if (stranded.length > 0)
    notes.add(
      'LMT_SIM_TTL_STRANDED',
      `at ${stranded.length} of the ${caps.length} points, up to ${Math.max(...stranded)} blocks expired through one tier while another tier's ttl policy still held them; lmt removed them from every tier, where the Optimizer's results are undefined (docs/simulate.md §10.6)`,
      'warning',
    )
  files.writeAtomic(join(out, 'sweep.csv'), sweep.csvRows.join('\n') + '\n')
  const playSeconds = (performance.now() - t0) / 1000
  const threads = parallel?.threads ?? 1
  sweep.lines.push(
    ...sweepFooterLines({
      infiniteRate: infTotals.token_hit_rate,
      wss: sweep.wss,
      stack: sweep.stack,
      points: caps.length,
      played: sweep.toPlay.length,
      traceName: base.traceName,
      groupName,
      threads,
      lookupsPerSecond: sweep.lookups / playSeconds,
    }),
  )
  return {
    // the threads that played the points
    jobs: threads,
    doc: sweepDoc(sweep, infTotals),
    largest: sweep.largest,
    playSeconds,
    lines: sweep.lines,
    infinite: [infiniteDoc(groupName, infTotals)],
  }
}

/** The group a sweep is of: --sweep-group, or the only one. */
function sweptGroup(sw: SweepRequest, cfg: SimConfig): GroupConfig {
  const name = sw.group ?? (cfg.instance_groups.length === 1 ? cfg.instance_groups[0].group_name : undefined)
  if (name === undefined) throw lmtError('SIM_SWEEP_GROUP_NEEDED')
  const group = cfg.instance_groups.find((g) => g.group_name === name)
  if (group === undefined) throw lmtError('SIM_UNKNOWN_GROUP', '--sweep-group', name)
  return group
}

/** A sweep in GiB needs the bytes of every block of the swept group: before any play, a usage error if not. */
function checkSweepInGib(g: GroupConfig, base: SweepBase): void {
  const quick = base.quickInstance
  if (g.instances.length === 0 && quick && quick.bytes_per_token === undefined)
    throw lmtError('CLI_FLAG_NEEDS', 'a sweep in GiB', '--bytes-per-token or --kv-layout', {
      suggestions: [
        'pass --bytes-per-token or --kv-layout',
        'or sweep in blocks or fractions (--sweep-unit)',
      ],
    })
  checkGibCapacity(g)
}

/** The infinite play (working-set size, the infinite ceiling), the capacities and the stack pass; nothing added up. */
function planSweep(rows: TraceRow[], req: SimulateRequest, cfg: SimConfig, base: SweepBase, notes: Notes) {
  const sw = req.sweep as SweepRequest
  const group = sweptGroup(sw, cfg)
  const groupName = group.group_name
  // (--sweep-storage for a group without tiers: sweptTierOf's usage error)
  const swept = cfg.tiered || sw.storage !== undefined ? sweptTierOf(group, sw.storage) : undefined
  if (sw.unit === 'gib' && req.flags.bytesPerBlock === undefined && !cfg.tiered) checkSweepInGib(group, base)
  const inf = playRows(
    rows,
    () =>
      new Player({
        ...base,
        config: structuredClone(cfg),
        plots: false,
        infinite: true,
        onlyGroup: groupName,
        strictInstances: false,
        keyMod: keyModOf(base.keyValues),
      }),
    stepProgress(req, 'infinite capacity'),
  )
  const effCfg = cfgWithInstances(cfg, inf.player)
  const infinite = inf.player.groups.find((g) => g.cfg.group_name === groupName) as InfiniteGroup
  const wss = infinite.members.reduce((a, m) => a + tierBlocks(m), 0)
  const sweptGroupCfg = effCfg.instance_groups.find((g) => g.group_name === groupName)
  const weights = sweptGroupCfg?.instances.map((i) => i.block_size * (i.bytes_per_token ?? 0)) ?? []
  const caps =
    swept === undefined
      ? capacitiesOf(sw, wss, weights, notes, req.flags.bytesPerBlock)
      : tieredCapacitiesOf(sw, infinite, notes)
  const policy = [...new Set(sweptGroupCfg?.instances.map((i) => i.eviction_policy_type))].join('+')
  const job: PointJob = {
    base: {seed: base.seed, strictInstances: false, traceName: base.traceName},
    config: effCfg,
    groupName,
    keyValues: base.keyValues,
  }
  const stack =
    swept === undefined
      ? stackFor(rows, req, effCfg, groupName, caps)
      : notUsed(caps.length, 'a tiered group: the one-pass stack method models one LRU cache, not tiers')
  // the largest point is always played, as the summary describes its play
  const toPlay = caps
    .map((_, p) => p)
    .filter((p) => p === caps.length - 1 || stack.certified[p] === undefined)
  const ceiling = totalsOf(infinite.members).hit_tokens
  // a tiered group: its tiers, the one whose capacity varies, and every tier's configured capacity in GiB
  // (negative: unlimited; the swept one's is replaced per point)
  const tiers =
    swept === undefined
      ? undefined
      : {
          names: tierNamesOf(group),
          swept,
          capacities: tierNamesOf(group).map((_, t) => tierCapacityOf(group, t)),
        }
  const sweep = {
    rows,
    req,
    groupName,
    // the configuration with the trace's instances (from the infinite play)
    effCfg,
    // the play with the swept group's capacity infinite
    infinitePlay: inf.player,
    wss,
    // the infinite play's hit tokens: no point of any series may exceed them
    ceiling,
    weights,
    caps,
    // the swept group's policies, `+`-joined: the series name
    policy,
    job,
    stack,
    // the points that are played (the others come from the stack pass)
    toPlay,
    tiers,
    // the infinite play bounds every point (not so when a tiered group's blocks can expire)
    bounded: !groupExpires(group),
    csvRows: [tiers ? `${SWEEP_CSV_HEADER},${tierCsvHeader(tiers.names.length)}` : SWEEP_CSV_HEADER],
    // each point's capacity columns
    cells: [] as CapacityCells[],
    docPoints: [] as Array<Record<string, unknown>>,
    // where each point's console line is in `lines` (the Belady figure is added to it)
    pointLine: [] as number[],
    series: [] as Array<{capacity: number; rate: number}>,
    beladyCurve: [] as Array<{capacity: number; rate: number}>,
    lines: [] as string[],
    lookups: inf.player.blockLookups + stack.blockLookups,
    largest: inf.player,
    // per point, the blocks a TTL expiry stranded (docs/simulate.md §10.6)
    stranded: [] as number[],
  }
  if (!sweep.bounded)
    notes.add(
      'LMT_SIM_NOT_MODELLED',
      `group "${groupName}": its blocks can expire (ttl under a TTL), so the play with every tier unlimited is reported but bounds no point`,
    )
  return sweep
}

/** The swept capacities: the given ones, or `points` spaced evenly on a log scale; in blocks or GiB. */
function capacitiesOf(
  sw: SweepRequest,
  wss: number,
  weights: number[],
  notes: Notes,
  bytesPerBlock: number | undefined,
): GroupCapacity[] {
  let points: number[]
  if (sw.capacities) points = [...new Set(sw.capacities)].sort((a, b) => a - b)
  else {
    const min = sw.min ?? (sw.unit === 'fraction' ? 0.001 : 1)
    const max = sw.max ?? (sw.unit === 'fraction' ? 1 : Math.max(2, wss))
    points = Array.from({length: sw.points}, (_, i) =>
      Math.exp(Math.log(min) + (i * (Math.log(max) - Math.log(min))) / (sw.points - 1)),
    )
  }
  const caps = points.filter((v) => v >= 0).map((v) => pointCapacity(sw.unit, v, wss, bytesPerBlock))
  if (caps.every((c) => c.gb !== undefined)) return caps
  if (new Set(weights).size > 1)
    notes.add(
      'LMT_SIM_UNUSUAL_VALUE',
      'the swept group has instances of different weights; block and fraction units count every block as 1',
    )
  return [...new Set(caps.map((c) => c.blocks as number))].sort((a, b) => a - b).map((b) => ({blocks: b}))
}

/**
 * A tiered group's points, all in GiB (its capacities are GiB only): GiB points as they are; a fraction of the
 * working set as that share of its bytes (each instance's blocks × its block bytes), in whole units of the largest
 * size every block size of the group is a multiple of (whole blocks when the group has one block size); blocks as
 * the bytes they take, which needs one block size in bytes across the group.
 */
function tieredCapacitiesOf(sw: SweepRequest, infinite: InfiniteGroup, notes: Notes): GroupCapacity[] {
  const weights = infinite.members.map((m) => m.cfg.block_size * (m.cfg.bytes_per_token ?? 0))
  const sizes = new Set(weights)
  if (sw.unit === 'blocks' && sizes.size > 1)
    throw lmtError(
      'CLI_FLAG_NEEDS',
      'a sweep of a tiered group in blocks',
      `one block size in bytes across the group (its instances' are ${[...sizes].join(', ')})`,
      {
        suggestions: [
          'sweep in GiB (--sweep-unit gib) or in fractions of the working set (--sweep-unit fraction)',
        ],
      },
    )
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const unit = [...sizes].reduce(gcd, 0) || 1
  const wssUnits = infinite.members.reduce((a, m, i) => a + (tierBlocks(m) * weights[i]) / unit, 0)
  const caps = capacitiesOf(sw, wssUnits, [], notes, undefined)
  return caps.map((c) => (c.gb !== undefined ? c : {gb: ((c.blocks as number) * unit) / GIB}))
}

/** a tiered instance's blocks in the working set: those of its fullest tier (a block two tiers hold is one) */
function tierBlocks(m: InfiniteGroup['members'][number]): number {
  return m.tiered ? Math.max(...m.tiered.policies.map((p) => p.size)) : m.counters.final_cached_blocks
}

/** The one-pass stack method (§6.6): the points it certifies, unless it is switched off or cannot serve. */
function stackFor(
  rows: TraceRow[],
  req: SimulateRequest,
  effCfg: SimConfig,
  groupName: string,
  caps: GroupCapacity[],
): StackPassResult {
  if (req.stack === 'off') return notUsed(caps.length, '--stack off')
  if (req.keepPointCsv)
    return notUsed(caps.length, "--keep-point-csv writes every point's CSVs, which needs its replay")
  stepProgress(req, 'stack pass')?.(0, rows.length)
  return stackPass(rows, effCfg, groupName, caps)
}

/** the configuration with the swept group replaced by `at` of it */
function withSweptGroup(sweep: Sweep, at: (g: GroupConfig) => GroupConfig): SimConfig {
  const cfg = structuredClone(sweep.effCfg)
  const i = cfg.instance_groups.findIndex((g) => g.group_name === sweep.groupName)
  cfg.instance_groups[i] = at(cfg.instance_groups[i])
  return cfg
}

/** the configuration of the swept group at one capacity (for the Belady reference) */
function capConfigOf(sweep: Sweep, cap: GroupCapacity): SimConfig {
  return withSweptGroup(sweep, (g) => groupAtCapacity(g, cap))
}

/** a tiered group's configuration at one point: the swept tier at the point's GiB (undefined: an untiered sweep) */
function pointConfigOf(sweep: Sweep, cap: GroupCapacity): SimConfig | undefined {
  const tiers = sweep.tiers
  return tiers && withSweptGroup(sweep, (g) => tieredGroupAtCapacity(g, tiers.swept, cap.gb as number))
}

/** the points done of a sweep (or of its Belady references), as the run's progress */
function pointsProgress(req: SimulateRequest, done: number, total: number, belady?: boolean): void {
  req.onProgress?.({bytes: 0, total: 0, rows: 0, points: {done, total, ...(belady ? {belady} : {})}})
}

/** a point the stack pass gave (never the largest) */
function fromStack(sweep: Sweep, p: number): PointResult | undefined {
  return p === sweep.caps.length - 1 ? undefined : sweep.stack.certified[p]
}

/** The points' plays and Belady references on worker threads; every point's result, in point order. */
async function playInParallel(
  sweep: Sweep,
  jobs: number,
  withBelady: boolean,
): Promise<{points: PointResult[]; belady?: BeladyGroupResult[][]; last: Player; threads: number}> {
  const {caps, toPlay, req} = sweep
  // the Belady references first, the plays last: this thread starts from the end, with the largest capacity,
  // whose player the summary describes
  const tasks: SweepTask[] = [
    ...(withBelady
      ? caps.map((cap): SweepTask => ({kind: 'belady', capConfig: capConfigOf(sweep, cap)}))
      : []),
    ...toPlay.map((p): SweepTask => ({kind: 'replay', cap: caps[p], config: pointConfigOf(sweep, caps[p])})),
  ]
  const n = withBelady ? caps.length : 0
  // a point is done when its play and its Belady reference are: tasks left per point
  const left = caps.map((_, p) => (withBelady ? 1 : 0) + (fromStack(sweep, p) === undefined ? 1 : 0))
  let done = left.filter((k) => k === 0).length
  const report = () => pointsProgress(req, done, caps.length)
  report()
  const run = await runSweepTasks(sweep.rows, sweep.job, tasks, jobs, (index) => {
    if (--left[index < n ? index : toPlay[index - n]] === 0) done++
    report()
  })
  const played = run.results.slice(n) as PointResult[]
  return {
    points: caps.map((_, p) => fromStack(sweep, p) ?? played[toPlay.indexOf(p)]),
    belady: withBelady ? (run.results.slice(0, n) as BeladyGroupResult[][]) : undefined,
    last: run.last as Player,
    threads: run.threads,
  }
}

/** Every point in order: its result (from the threads, the stack pass, or played here), its rows and line. */
async function addPoints(
  sweep: Sweep,
  parallel: PointResult[] | undefined,
  out: string,
  files: PendingFiles,
  csvName: (dir: string) => (id: string) => string,
): Promise<void> {
  const {caps, req, rows, job, groupName} = sweep
  for (let p = 0; p < caps.length; p++) {
    const cap = caps[p]
    let point: PointResult
    const method = fromStack(sweep, p) === undefined ? 'replay' : 'stack'
    if (parallel) point = parallel[p]
    else if (method === 'stack') point = fromStack(sweep, p) as PointResult
    else {
      pointsProgress(req, p, caps.length)
      const label = cap.blocks !== undefined ? `blocks-${cap.blocks}` : `gib-${formatG(cap.gb as number)}`
      const dir = join(out, 'points', label)
      if (req.keepPointCsv) files.makeFolder(dir)
      const config = pointConfigOf(sweep, cap)
      const player = playPoint(
        rows,
        config ? {...job, config} : job,
        cap,
        req.keepPointCsv ? csvName(dir) : undefined,
      )
      await player.closeCsvs(true)
      point = pointResult(player, groupName)
      sweep.largest = player
    }
    if (method === 'replay') sweep.lookups += point.blockLookups
    sweep.stranded.push(point.strandedExpiries ?? 0)
    addPoint(sweep, cap, point, method)
  }
}

/** A point's rows of sweep.csv, its entry in the document and its console line. */
function addPoint(sweep: Sweep, cap: GroupCapacity, point: PointResult, method: string): void {
  const cells = sweep.tiers
    ? tieredCapacityCells(sweep, cap)
    : capacityCells(cap, quotaUnits(point.groupCfg), sweep.weights, point.members[0]?.weight ?? 1)
  sweep.cells.push(cells)
  const {totals, tiers: groupTiers} = addSeriesRows(sweep, sweep.policy, cells, point.members, method)
  if (sweep.bounded)
    checkBelowCeiling(
      `sweep point ${capacityText(cap)}, ${sweep.policy} (${method})`,
      totals.hit_tokens,
      totals.input_tokens,
      sweep.ceiling,
    )
  const tiers =
    sweep.tiers &&
    groupTiers &&
    sweep.tiers.names.map((tier, t) => ({
      tier,
      hit_tokens: groupTiers.hitTokens[t],
      token_hit_rate: rate(groupTiers.hitTokens[t], totals.input_tokens),
      final_blocks: groupTiers.blocks[t],
    }))
  sweep.docPoints.push({
    capacity_blocks: cells.capBlocks === '' ? null : Number(cells.capBlocks),
    capacity_gb: cells.capGb === '' ? null : Number(cells.capGb),
    quota_blocks: cells.quotaBlocks === '' ? null : Number(cells.quotaBlocks),
    method,
    ...(tiers ? {tiers} : {}),
  })
  sweep.series.push({capacity: cap.blocks ?? (cap.gb as number), rate: totals.token_hit_rate})
  sweep.pointLine.push(sweep.lines.length)
  // a tiered point's line ends with each tier's share: ` = hbm 0.61 + ssd 0.09`
  sweep.lines.push(
    sweepPointLine(cap, sweep.policy, totals.token_hit_rate, method === 'stack') +
      (tiers ? ` = ${tiers.map((t) => `${t.tier} ${formatG(t.token_hit_rate)}`).join(' + ')}` : ''),
  )
}

/** The rows of one series at one point: each member's, then the group's (`*`); the group's totals and tiers. */
function addSeriesRows(
  sweep: Sweep,
  series: string,
  cells: CapacityCells,
  members: PointResult['members'],
  method?: string,
): {totals: Record<string, number>; tiers: ReturnType<typeof sumTiers>} {
  for (const m of members)
    sweep.csvRows.push(
      sweepCsvRow(series, cells, m.instanceId, m.counters as unknown as Record<string, number>, method) +
        tierCsvCells(m.tiers, m.counters.input_tokens),
    )
  const totals = totalsOf(members)
  const tiers = sumTiers(members)
  sweep.csvRows.push(
    sweepCsvRow(series, cells, '*', totals, method) + tierCsvCells(tiers, totals.input_tokens),
  )
  return {totals, tiers}
}

/** The tiers of a group's members added up (every member of a tiered group has the group's tiers). */
function sumTiers(members: PointResult['members']): {hitTokens: number[]; blocks: number[]} | undefined {
  const first = members.find((m) => m.tiers !== undefined)?.tiers
  if (first === undefined) return undefined
  const hitTokens = first.hitTokens.map(() => 0)
  const blocks = first.blocks.map(() => 0)
  for (const m of members)
    m.tiers?.hitTokens.forEach((h, t) => {
      hitTokens[t] += h
      blocks[t] += (m.tiers as NonNullable<typeof m.tiers>).blocks[t]
    })
  return {hitTokens, blocks}
}

/**
 * A tiered point's capacity columns: the swept tier's GiB, and the blocks it and its quota hold when the group has
 * one block size in bytes.
 */
function tieredCapacityCells(sweep: Sweep, cap: GroupCapacity): CapacityCells {
  const gb = cap.gb as number
  const g = sweep.effCfg.instance_groups.find((x) => x.group_name === sweep.groupName)
  const w = new Set(sweep.weights).size === 1 ? sweep.weights[0] : undefined
  const quota = Math.trunc(Math.trunc(gb * GIB) * (g?.used_percentage ?? 0))
  return {
    capBlocks: w === undefined ? '' : String(Math.floor(Math.trunc(gb * GIB) / w)),
    capGb: formatG(gb),
    quotaBlocks: w === undefined ? '' : String(Math.floor(quota / w)),
  }
}

/** The Belady reference of every point (from the threads, or computed here): its rows, curve and line suffix. */
function addBelady(sweep: Sweep, notes: Notes, parallelBelady: BeladyGroupResult[][] | undefined): void {
  const {caps, req, policy} = sweep
  const belady = parallelBelady ? undefined : prepareBelady(sweep.rows, sweep.effCfg, sweep.groupName)
  for (let p = 0; p < caps.length; p++) {
    const cap = caps[p]
    if (!parallelBelady) pointsProgress(req, p, caps.length, true)
    const [bel] = parallelBelady
      ? parallelBelady[p]
      : (belady as NonNullable<typeof belady>)(capConfigOf(sweep, cap))
    const cells = sweep.cells[p]
    const tot = {get_rows: 0, read_blocks: 0, hit_blocks: 0, input_tokens: 0, hit_tokens: 0, evictions: 0}
    for (const c of bel.instances) {
      sweep.csvRows.push(sweepCsvRow('belady', cells, c.instance_id, c as unknown as Record<string, number>))
      for (const k of Object.keys(tot) as Array<keyof typeof tot>) tot[k] += c[k]
    }
    checkBelowCeiling(
      `sweep point ${capacityText(cap)}, belady`,
      tot.hit_tokens,
      tot.input_tokens,
      sweep.ceiling,
    )
    sweep.csvRows.push(sweepCsvRow('belady', cells, '*', tot))
    sweep.beladyCurve.push({capacity: cap.blocks ?? (cap.gb as number), rate: bel.token_hit_rate})
    sweep.lines[sweep.pointLine[p]] += sweepBeladySuffix(bel.token_hit_rate)
    if (sweep.series[p].rate > bel.token_hit_rate)
      notes.add(
        'LMT_SIM_UNUSUAL_VALUE',
        `capacity ${capacityText(cap)}: ${policy} (${formatG(sweep.series[p].rate)}) beats the Belady next-need reference (${formatG(bel.token_hit_rate)})`,
        'warning',
      )
  }
}

/** The sweep document of summary.json (with `curve`/`beladyCurve` for the plot; publicSweepDoc drops them). */
function sweepDoc(sweep: Sweep, infTotals: Record<string, number>): Record<string, unknown> {
  const {caps, stack, toPlay, policy} = sweep
  return {
    group_name: sweep.groupName,
    // GiB points converted to blocks (--kv-layout) are blocks from here on: the plot's axis says so
    unit: sweep.tiers
      ? 'gib'
      : caps.every((c) => c.gb === undefined) && (sweep.req.sweep as SweepRequest).unit === 'gib'
        ? 'blocks'
        : (sweep.req.sweep as SweepRequest).unit,
    points: sweep.docPoints,
    wss_blocks: sweep.wss,
    series: sweep.beladyCurve.length > 0 ? [policy, 'belady', 'infinite'] : [policy, 'infinite'],
    stack: {
      eligible: stack.eligible,
      reason: stack.reason,
      certified_points: caps.length - toPlay.length,
      replayed_points: toPlay.length,
    },
    csv: 'sweep.csv',
    block_lookups: sweep.lookups,
    curve: sweep.series,
    beladyCurve: sweep.beladyCurve,
    infinite_token_hit_rate: infTotals.token_hit_rate,
    ...(sweep.tiers
      ? {
          tiers: {
            names: sweep.tiers.names,
            swept_tier: sweep.tiers.names[sweep.tiers.swept],
            // the other tiers' capacities, as configured (GiB; negative: unlimited); the swept one's is each point's
            capacities_gb: sweep.tiers.capacities.map((c, t) => (t === sweep.tiers?.swept ? null : c)),
            infinite_is_ceiling: sweep.bounded,
          },
          tierCurves: sweep.tiers.names.map((name, t) => ({
            name,
            points: sweep.docPoints
              .filter((d) => d.tiers !== undefined)
              .map((d, p) => ({
                capacity: caps[p].gb as number,
                rate: (d.tiers as Array<{token_hit_rate: number}>)[t].token_hit_rate,
              })),
          })),
        }
      : {}),
  }
}
