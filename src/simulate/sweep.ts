// Sweeps (docs/simulate.md §6): the curve of hit rate against capacity for one group, with its oracle ceilings.
import {mkdirSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {join} from 'node:path'
import {lmtError} from '../errors.js'
import {type BeladyGroupResult, prepareBelady} from './belady.js'
import type {ResolvedConfig, SimConfig} from './config.js'
import {formatG} from './format-g.js'
import {rate} from './hit-rate-csv.js'
import type {Notes} from './notes.js'
import {PendingFiles} from './pending-files.js'
import {replayRows} from './replay-rows.js'
import {quotaUnits, Replayer} from './replayer.js'
import type {SimulateRequest, SweepRequest} from './run.js'
import {stepProgress} from './step-progress.js'
import {stackPass, type StackPassResult} from './stack-pass.js'
import {cfgWithInstances, totalsOf} from './summary.js'
import {
  type PointJob,
  type PointResult,
  pointResult,
  replayPoint,
  runSweepTasks,
  type SweepCapacity,
  type SweepTask,
} from './sweep-pool.js'
import type {TraceRow} from './trace-rows.js'

export function notUsed(points: number, reason: string): StackPassResult {
  return {eligible: false, reason, certified: new Array<undefined>(points).fill(undefined), blockLookups: 0}
}

export interface SweepResult {
  doc: Record<string, unknown>
  largest: Replayer
  /** threads that replayed the points */
  jobs: number
  replaySeconds: number
  lines: string[]
  infinite: unknown
}

export async function runSweep(
  rows: TraceRow[],
  req: SimulateRequest,
  cfg: SimConfig,
  base: {
    config: SimConfig
    seed: bigint
    quickInstance?: ResolvedConfig['quickInstance']
    strictInstances: boolean
    traceName: string
  },
  notes: Notes,
  out: string,
  csvName: (dir: string) => (id: string) => string,
): Promise<SweepResult> {
  const sw = req.sweep as SweepRequest
  const groupName =
    sw.group ?? (cfg.instance_groups.length === 1 ? cfg.instance_groups[0].group_name : undefined)
  if (groupName === undefined || !cfg.instance_groups.some((g) => g.group_name === groupName))
    throw groupName === undefined
      ? lmtError('SIM_SWEEP_GROUP_NEEDED')
      : lmtError('SIM_UNKNOWN_GROUP', '--sweep-group', groupName)
  const t0 = performance.now()
  let lookups = 0
  // the infinite run gives the working-set size and the infinite ceiling
  const inf = replayRows(
    rows,
    () =>
      new Replayer({
        ...base,
        config: structuredClone(cfg),
        plots: false,
        infinite: true,
        onlyGroup: groupName,
        strictInstances: false,
      }),
    stepProgress(req, 'infinite capacity'),
  )
  lookups += inf.replayer.blockLookups
  const effCfg = cfgWithInstances(cfg, inf.replayer)
  const group = inf.replayer.groups.find((g) => g.cfg.group_name === groupName) as NonNullable<
    Replayer['groups'][number]
  >
  const wss = group.members.reduce((a, m) => a + m.counters.final_cached_blocks, 0)
  const weights =
    effCfg.instance_groups
      .find((g) => g.group_name === groupName)
      ?.instances.map((i) => i.block_size * (i.bytes_per_token ?? 0)) ?? []
  let points: number[]
  if (sw.capacities) points = [...new Set(sw.capacities)].sort((a, b) => a - b)
  else {
    const min = sw.min ?? (sw.unit === 'fraction' ? 0.001 : 1)
    const max = sw.max ?? (sw.unit === 'fraction' ? 1 : Math.max(2, wss))
    points = Array.from({length: sw.points}, (_, i) =>
      Math.exp(Math.log(min) + (i * (Math.log(max) - Math.log(min))) / (sw.points - 1)),
    )
  }
  let caps: Array<{blocks?: number; gb?: number}>
  if (sw.unit === 'gb') caps = points.filter((v) => v >= 0).map((gb) => ({gb}))
  else {
    const blocks = points
      .filter((v) => v >= 0)
      .map((v) => Math.max(1, Math.round(sw.unit === 'fraction' ? v * wss : v)))
    caps = [...new Set(blocks)].sort((a, b) => a - b).map((b) => ({blocks: b}))
    if (new Set(weights).size > 1)
      notes.add(
        'LMT_SIM_UNUSUAL_VALUE',
        'the swept group has instances of different weights; block and fraction units count every block as 1',
      )
  }
  const policy = [
    ...new Set(
      effCfg.instance_groups
        .find((g) => g.group_name === groupName)
        ?.instances.map((i) => i.eviction_policy_type),
    ),
  ].join('+')
  const csvRows: string[] = [
    'series,capacity_blocks,capacity_gb,quota_blocks,instance_id,requests,read_blocks,hit_blocks,input_tokens,hit_tokens,token_hit_rate,block_hit_rate,evictions,method',
  ]
  const docPoints: Array<Record<string, unknown>> = []
  /** where each point's terminal line is in `lines` (the Belady figure is added to it) */
  const pointLine: number[] = []
  const series: Array<{capacity: number; rate: number}> = []
  const beladyCurve: Array<{capacity: number; rate: number}> = []
  let largest: Replayer = inf.replayer
  const lines: string[] = []
  const rowFor = (
    seriesName: string,
    capBlocks: string,
    capGb: string,
    quotaBlocks: string,
    id: string,
    c: Record<string, number>,
    method = 'replay',
  ) =>
    [
      seriesName,
      capBlocks,
      capGb,
      quotaBlocks,
      id,
      c.get_rows,
      c.read_blocks,
      c.hit_blocks,
      c.input_tokens,
      c.hit_tokens,
      formatG(rate(c.hit_tokens, c.input_tokens)),
      formatG(rate(c.hit_blocks, c.read_blocks)),
      c.evictions,
      method,
    ].join(',')
  // the points are independent replays: on worker threads unless one thread is asked for (or point CSVs, which
  // this thread writes); results are assembled in point order either way, so they never depend on --jobs
  const jobs = Math.max(1, Math.min(req.jobs ?? availableParallelism(), caps.length))
  const job: PointJob = {
    base: {seed: base.seed, strictInstances: false, traceName: base.traceName},
    config: effCfg,
    groupName,
  }
  const withBelady = req.oracle === 'belady' || req.oracle === 'all'
  /** the configuration of the swept group at one capacity (for the Belady reference) */
  const capConfig = (cap: SweepCapacity): SimConfig => {
    const capCfg = structuredClone(effCfg)
    const g = capCfg.instance_groups.find(
      (x) => x.group_name === groupName,
    ) as SimConfig['instance_groups'][number]
    delete g.quota_capacity
    delete g.quota_capacity_blocks
    if (cap.gb !== undefined) g.quota_capacity = cap.gb
    else g.quota_capacity_blocks = cap.blocks
    return capCfg
  }
  // the one-pass stack method (§6.6) gives the points it certifies; the largest point is always replayed, as the
  // summary describes its replay
  let stack: StackPassResult
  if (req.stack === 'off') stack = notUsed(caps.length, '--stack off')
  else if (req.keepPointCsv)
    stack = notUsed(caps.length, "--keep-point-csv writes every point's CSVs, which needs its replay")
  else {
    stepProgress(req, 'stack pass')?.(0, rows.length)
    stack = stackPass(rows, effCfg, groupName, caps)
  }
  const fromStack = (p: number): PointResult | undefined =>
    p === caps.length - 1 ? undefined : stack.certified[p]
  const toReplay = caps.map((_, p) => p).filter((p) => fromStack(p) === undefined)
  lookups += stack.blockLookups
  let parallel: Array<PointResult | undefined> | undefined
  let parallelBelady: BeladyGroupResult[][] | undefined
  if (jobs > 1 && !req.keepPointCsv) {
    // the Belady references first, the replays last: this thread starts from the end, with the largest capacity,
    // whose replayer the summary describes
    const tasks: SweepTask[] = [
      ...(withBelady ? caps.map((cap): SweepTask => ({kind: 'belady', capConfig: capConfig(cap)})) : []),
      ...toReplay.map((p): SweepTask => ({kind: 'replay', cap: caps[p]})),
    ]
    const n = withBelady ? caps.length : 0
    // a point is done when its replay and its Belady reference are: tasks left per point
    const left = caps.map((_, p) => (withBelady ? 1 : 0) + (fromStack(p) === undefined ? 1 : 0))
    let done = left.filter((k) => k === 0).length
    const report = () => req.onProgress?.({bytes: 0, total: 0, rows: 0, points: {done, total: caps.length}})
    report()
    const run = await runSweepTasks(rows, job, tasks, jobs, (index) => {
      if (--left[index < n ? index : toReplay[index - n]] === 0) done++
      report()
    })
    parallelBelady = run.results.slice(0, n) as BeladyGroupResult[][]
    const replayed = run.results.slice(n) as PointResult[]
    parallel = caps.map((_, p) => fromStack(p) ?? replayed[toReplay.indexOf(p)])
    largest = run.last as Replayer
  }
  for (let p = 0; p < caps.length; p++) {
    const cap = caps[p]
    let point: PointResult
    const method = fromStack(p) === undefined ? 'replay' : 'stack'
    if (parallel) point = parallel[p] as PointResult
    else if (method === 'stack') point = fromStack(p) as PointResult
    else {
      req.onProgress?.({bytes: 0, total: 0, rows: 0, points: {done: p, total: caps.length}})
      const label = cap.blocks !== undefined ? `blocks-${cap.blocks}` : `gb-${formatG(cap.gb as number)}`
      const dir = join(out, 'points', label)
      if (req.keepPointCsv) mkdirSync(dir, {recursive: true})
      const replayer = replayPoint(rows, job, cap, req.keepPointCsv ? csvName(dir) : undefined)
      await replayer.closeCsvs(true)
      point = pointResult(replayer, groupName)
      largest = replayer
    }
    if (method === 'replay') lookups += point.blockLookups
    const q = quotaUnits(point.groupCfg)
    const equal = new Set(weights).size <= 1
    const w0 = point.members[0]?.weight ?? 1
    const capBlocks =
      cap.blocks !== undefined
        ? String(cap.blocks)
        : equal && q !== null
          ? String(Math.floor(((cap.gb as number) * 2 ** 30) / w0))
          : ''
    const capGb =
      cap.gb !== undefined
        ? formatG(cap.gb)
        : equal && weights.length > 0 && weights[0] > 0
          ? formatG(((cap.blocks as number) * weights[0]) / 2 ** 30)
          : ''
    const quotaBlocks = q !== null && equal ? String(Math.floor(q / w0)) : ''
    for (const m of point.members)
      csvRows.push(
        rowFor(
          policy,
          capBlocks,
          capGb,
          quotaBlocks,
          m.instanceId,
          m.counters as unknown as Record<string, number>,
          method,
        ),
      )
    const totals = totalsOf(point.members)
    csvRows.push(rowFor(policy, capBlocks, capGb, quotaBlocks, '*', totals, method))
    docPoints.push({
      capacity_blocks: capBlocks === '' ? null : Number(capBlocks),
      capacity_gb: capGb === '' ? null : Number(capGb),
      quota_blocks: quotaBlocks === '' ? null : Number(quotaBlocks),
      method,
    })
    series.push({capacity: cap.blocks ?? (cap.gb as number), rate: totals.token_hit_rate})
    pointLine.push(lines.length)
    lines.push(
      `capacity ${cap.blocks !== undefined ? `${cap.blocks} blocks` : `${formatG(cap.gb as number)} GB`}: ${policy} token hit rate ${formatG(totals.token_hit_rate)}${method === 'stack' ? ' (stack pass)' : ''}`,
    )
  }
  if (withBelady) {
    const belady = parallelBelady ? undefined : prepareBelady(rows, effCfg, groupName)
    for (let p = 0; p < caps.length; p++) {
      const cap = caps[p]
      if (!parallelBelady)
        req.onProgress?.({bytes: 0, total: 0, rows: 0, points: {done: p, total: caps.length, belady: true}})
      const [bel] = parallelBelady
        ? parallelBelady[p]
        : (belady as NonNullable<typeof belady>)(capConfig(cap))
      const point = docPoints[p]
      const fmt = (v: unknown) => (v === null || v === undefined ? '' : String(v))
      const capBlocks = fmt(point.capacity_blocks)
      const capGb = point.capacity_gb === null ? '' : formatG(point.capacity_gb as number)
      const tot = {get_rows: 0, read_blocks: 0, hit_blocks: 0, input_tokens: 0, hit_tokens: 0, evictions: 0}
      for (const c of bel.instances) {
        csvRows.push(
          rowFor(
            'belady',
            capBlocks,
            capGb,
            fmt(point.quota_blocks),
            c.instance_id,
            c as unknown as Record<string, number>,
          ),
        )
        for (const k of Object.keys(tot) as Array<keyof typeof tot>) tot[k] += c[k]
      }
      csvRows.push(rowFor('belady', capBlocks, capGb, fmt(point.quota_blocks), '*', tot))
      beladyCurve.push({capacity: cap.blocks ?? (cap.gb as number), rate: bel.token_hit_rate})
      lines[pointLine[p]] += `, Belady ${formatG(bel.token_hit_rate)}` // how far the policy is from the reference
      if (series[p].rate > bel.token_hit_rate)
        notes.add(
          'LMT_SIM_UNUSUAL_VALUE',
          `capacity ${cap.blocks ?? cap.gb}: ${policy} (${formatG(series[p].rate)}) beats the Belady next-need reference (${formatG(bel.token_hit_rate)})`,
          'warning',
        )
    }
  }
  const infTotals = totalsOf(group.members)
  for (const m of group.members)
    csvRows.push(
      rowFor(
        'infinite',
        'inf',
        'inf',
        'inf',
        m.cfg.instance_id,
        m.counters as unknown as Record<string, number>,
      ),
    )
  csvRows.push(rowFor('infinite', 'inf', 'inf', 'inf', '*', infTotals))
  const files = req.pending ?? new PendingFiles()
  files.writeAtomic(join(out, 'sweep.csv'), csvRows.join('\n') + '\n')
  const replaySeconds = (performance.now() - t0) / 1000
  lines.push(
    `infinite capacity: token hit rate ${formatG(infTotals.token_hit_rate)} (working set ${wss} blocks)`,
  )
  lines.push(
    stack.eligible
      ? `one-pass stack method: ${caps.length - toReplay.length} of ${caps.length} points taken from it, the others replayed`
      : `one-pass stack method not used (${stack.reason}): every point replayed`,
  )
  lines.push(
    `${base.traceName} sweep of group ${groupName}: ${caps.length} points, aggregate over ${parallel ? jobs : 1} thread${parallel && jobs > 1 ? 's' : ''} ${(lookups / replaySeconds / 1e6).toFixed(2)} M lookups/s`,
  )
  return {
    jobs: parallel ? jobs : 1,
    doc: {
      group_name: groupName,
      unit: sw.unit,
      points: docPoints,
      wss_blocks: wss,
      series: beladyCurve.length > 0 ? [policy, 'belady', 'infinite'] : [policy, 'infinite'],
      stack: {
        eligible: stack.eligible,
        reason: stack.reason,
        certified_points: caps.length - toReplay.length,
        replayed_points: toReplay.length,
      },
      csv: 'sweep.csv',
      block_lookups: lookups,
      curve: series,
      beladyCurve,
      infinite_token_hit_rate: infTotals.token_hit_rate,
    },
    largest,
    replaySeconds,
    lines,
    infinite: [
      {
        group_name: groupName,
        token_hit_rate: infTotals.token_hit_rate,
        block_hit_rate: infTotals.block_hit_rate,
        hit_blocks: infTotals.hit_blocks,
      },
    ],
  }
}
