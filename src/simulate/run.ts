import {mkdirSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {basename, join} from 'node:path'
import {PendingFiles} from './pending-files.js'
import {lmtError} from '../errors.js'
import {
  type Notice,
  readConfigFile,
  resolveConfig,
  type ResolvedConfig,
  type SimConfig,
  type SimFlags,
} from './config.js'
import {formatG} from './format-g.js'
import {rate} from './hit-rate-csv.js'
import {type BeladyGroupResult, beladyOracle, prepareBelady} from './belady.js'
import {stackPass, type StackPassResult} from './stack-pass.js'
import {type InstanceCounters, type InstState, quotaUnits, Replayer, weightOf} from './replayer.js'
import {
  type PointJob,
  type PointResult,
  pointResult,
  replayPoint,
  runSweepTasks,
  type SweepCapacity,
  type SweepTask,
} from './sweep-pool.js'
import {KeyInterner, type TraceRow} from './trace-rows.js'
import {firstRowType, newStats, readTraceRows, type TraceReadStats} from './trace-source.js'

export type OracleChoice = 'none' | 'infinite' | 'belady' | 'all'

export interface SweepRequest {
  capacities?: number[]
  min?: number
  max?: number
  points: number
  unit: 'blocks' | 'gb' | 'fraction'
  group?: string
}

export interface SimulateRequest {
  configPath?: string
  flags: SimFlags
  seed: bigint
  skipInvalid: boolean
  strictInstances: boolean
  plots: boolean
  oracle: OracleChoice
  sweep?: SweepRequest
  keepPointCsv: boolean
  /** sweeps: the one-pass stack method where it is certified exact (auto, the default), or never */
  stack?: 'auto' | 'off'
  /** threads for the points of a sweep (this one included); default: the available cores */
  jobs?: number
  /** filled with the run's temporary files while they exist (a signal handler removes them) */
  pending?: PendingFiles
  version: string
  onProgress?(p: {bytes: number; total: number; rows: number; replays?: [number, number]}): void
}

export interface SimulateOutcome {
  summary: Record<string, unknown>
  table: string[]
  lines: string[]
  notices: Notice[]
  outputDir: string
}

// eslint-disable-next-line no-control-regex -- control characters are unsafe in file names
const UNSAFE_NAME = /[/\\:*?"<>|\u0000-\u001f\u007f]/

/** The CSV file name of an instance (escaped when unsafe, simulate.md §5.1). */
export function csvFileName(id: string): {name: string; escaped: boolean} {
  if (!UNSAFE_NAME.test(id) && id !== '.' && id !== '..') return {name: `${id}_hit_rates.csv`, escaped: false}
  let out = ''
  for (const ch of id) {
    const c = ch.codePointAt(0) as number
    out +=
      ch === '%' || UNSAFE_NAME.test(ch)
        ? encodeURIComponent(ch).replace(/[!'()*]/g, (x) => '%' + x.charCodeAt(0).toString(16).toUpperCase())
        : ch
    void c
  }
  if (out === '.' || out === '..') out = out.replace(/\./g, '%2E')
  return {name: `${out}_hit_rates.csv`, escaped: true}
}

class Notes {
  constructor(readonly list: Notice[]) {}
  add(code: string, message: string, level: 'notice' | 'warning' = 'notice'): void {
    this.list.push({code, level, message})
  }
}

interface ReplayRun {
  replayer: Replayer
  /** in the replay */
  seconds: number
  /** writing deferred CSV rows between replay batches */
  writeSeconds: number
}

/** Replays rows held in memory (sorted) with the given options. */
function notUsed(points: number, reason: string): StackPassResult {
  return {eligible: false, reason, certified: new Array<undefined>(points).fill(undefined), blockLookups: 0}
}

/** rows replayed between two writes of deferred CSV rows (which stay out of the replay's time) */
const REPLAY_BATCH = 256

function replayRows(rows: readonly TraceRow[], make: () => Replayer): ReplayRun {
  const r = make()
  let seconds = 0
  let written = 0
  try {
    for (let start = 0; start < rows.length; start += REPLAY_BATCH) {
      const t0 = performance.now()
      const end = Math.min(rows.length, start + REPLAY_BATCH)
      for (let i = start; i < end; i++) r.apply(rows[i])
      const t1 = performance.now()
      seconds += t1 - t0
      r.drainCsvs()
      written += performance.now() - t1
    }
    const t0 = performance.now()
    r.finish()
    seconds += performance.now() - t0
  } catch (err) {
    r.closeCsvs(false).catch(() => {}) // the files are removed; the error is the one to report
    throw err
  }
  return {replayer: r, seconds: seconds / 1000, writeSeconds: written / 1000}
}

function stableSortRows(rows: TraceRow[]): TraceRow[] {
  return rows
    .map((row, i) => ({row, i}))
    .sort((a, b) => (a.row.ts < b.row.ts ? -1 : a.row.ts > b.row.ts ? 1 : a.i - b.i))
    .map((x) => x.row)
}

async function loadSorted(
  path: string,
  name: string,
  resolved: ResolvedConfig,
  req: SimulateRequest,
  stats: TraceReadStats,
  notes: Notes,
): Promise<TraceRow[]> {
  const rows: TraceRow[] = []
  let prev: bigint | undefined
  let unsortedAt: number | undefined
  const keys = new KeyInterner()
  for await (const row of readTraceRows(
    {path, name, skipInvalid: req.skipInvalid, mode: resolved.config.trace_replay.mode, keys},
    stats,
  )) {
    if (prev !== undefined && row.ts < prev && unsortedAt === undefined) unsortedAt = row.lineNo
    prev = row.ts
    rows.push(row)
  }
  if (unsortedAt === undefined) return rows
  notes.add(
    'LMT_SIM_RESORT',
    `${name}:${unsortedAt}: the trace is not sorted by timestamp_ns; it was stable-sorted in memory`,
  )
  return stableSortRows(rows)
}

function capacityLabel(cfg: SimConfig, groupIdx = 0): string {
  const g = cfg.instance_groups[groupIdx]
  const q = quotaUnits(g)
  if (q === null) return 'inf'
  if (g.quota_capacity_blocks !== undefined) return `${q} blocks`
  const weights = new Set(g.instances.map((i) => weightOf(g, i)))
  const gb = formatG(g.quota_capacity as number)
  if (weights.size === 1) return `${Math.floor(q / [...weights][0])} blocks (${gb} GB)`
  return `${gb} GB`
}

function instanceSummary(i: InstState, csv: string | null): Record<string, unknown> {
  const c = i.counters
  return {
    instance_id: i.cfg.instance_id,
    group_name: i.group.cfg.group_name,
    block_size: i.cfg.block_size,
    bytes_per_token: i.cfg.bytes_per_token ?? null,
    policy: i.cfg.eviction_policy_type,
    ...c,
    token_hit_rate: rate(c.hit_tokens, c.input_tokens),
    local_token_hit_rate: rate(c.local_hit_tokens, c.input_tokens),
    remote_token_hit_rate: rate(c.remote_hit_tokens, c.input_tokens),
    block_hit_rate: rate(c.hit_blocks, c.read_blocks),
    csv,
  }
}

function totalsOf(members: ReadonlyArray<{counters: InstanceCounters}>): Record<string, number> {
  const keys = [
    'get_rows',
    'read_blocks',
    'local_read_blocks',
    'hit_blocks',
    'local_hit_blocks',
    'remote_hit_blocks',
    'input_tokens',
    'hit_tokens',
    'local_hit_tokens',
    'remote_hit_tokens',
    'write_rows',
    'write_blocks',
    'newly_inserted_blocks',
    'evictions',
    'final_cached_blocks',
    'peak_cached_blocks',
  ] as const
  const t: Record<string, number> = {}
  for (const k of keys) t[k] = members.reduce((a, m) => a + m.counters[k], 0)
  t.token_hit_rate = rate(t.hit_tokens, t.input_tokens)
  t.local_token_hit_rate = rate(t.local_hit_tokens, t.input_tokens)
  t.remote_token_hit_rate = rate(t.remote_hit_tokens, t.input_tokens)
  t.block_hit_rate = rate(t.hit_blocks, t.read_blocks)
  return t
}

function groupSummary(r: Replayer): Array<Record<string, unknown>> {
  return r.groups.map((g) => {
    const q = quotaUnits(g.cfg)
    const byBlocks = g.cfg.quota_capacity_blocks !== undefined
    const weights = new Set(g.members.map((m) => m.engine.weight))
    const w = g.cfg.instances.map((i) => weightOf(g.cfg, i))
    const equal = new Set(w).size <= 1
    const cap = byBlocks ? g.cfg.quota_capacity_blocks : g.cfg.quota_capacity
    const infinite = q === null
    let capacityGb: number | null = null
    if (!byBlocks && !infinite) capacityGb = g.cfg.quota_capacity as number
    else if (
      byBlocks &&
      !infinite &&
      equal &&
      g.cfg.instances.length > 0 && // the quick form's group is empty when the trace had no row to replay
      g.cfg.instances.every((i) => i.bytes_per_token !== undefined)
    )
      capacityGb =
        ((g.cfg.quota_capacity_blocks as number) *
          g.cfg.instances[0].block_size *
          (g.cfg.instances[0].bytes_per_token as number)) /
        2 ** 30
    void weights
    return {
      group_name: g.cfg.group_name,
      unit: byBlocks ? 'block' : 'byte',
      capacity: infinite ? null : cap,
      infinite,
      used_percentage: g.cfg.used_percentage,
      quota_units: q,
      quota_blocks: q === null || !equal || w.length === 0 ? null : Math.floor(q / w[0]),
      capacity_gb: capacityGb,
      eviction_mode: g.settings.mode,
      eviction_batch_size_per_instance: g.settings.batch,
      instances: g.members.map((m) => m.cfg.instance_id),
      totals: totalsOf(g.members),
    }
  })
}

function traceSummary(
  path: string,
  stats: TraceReadStats,
  r: Replayer,
  cfg: SimConfig,
  sorted: boolean,
): Record<string, unknown> {
  return {
    path,
    bytes: stats.bytes,
    rows: stats.rows,
    rows_by_type: stats.rowsByType,
    replay_mode: cfg.trace_replay.mode,
    write_delay_ns: cfg.trace_replay.write_delay_ns,
    sorted_input: sorted,
    first_timestamp_ns: r.firstTs?.toString() ?? null,
    last_timestamp_ns: r.lastTs?.toString() ?? null,
    skipped: {
      unknown_instance: r.skips.unknown_instance,
      unsupported_query_type: r.skips.unsupported_query_type,
      invalid: Object.fromEntries(Object.entries(stats.invalid).sort()),
    },
    unknown_instances: [...r.skips.unknownInstances].map(([instance_id, c]) => ({instance_id, ...c})),
  }
}

/** Runs `lmt simulate` end to end: configuration, replay(s), outputs. */
export async function simulate(req: SimulateRequest): Promise<SimulateOutcome> {
  const started = performance.now()
  const file = req.configPath ? readConfigFile(req.configPath) : undefined
  const tracePathForQuick = req.flags.trace
  const first = !file && tracePathForQuick ? await firstRowType(tracePathForQuick) : undefined
  const resolved = resolveConfig(file, req.flags, first)
  const notes = new Notes([...resolved.notices])
  const cfg = resolved.config
  const out = cfg.output_result_path
  try {
    mkdirSync(out, {recursive: true})
  } catch (err) {
    throw lmtError('SIM_OUTPUT', `cannot create the output directory ${out}: ${(err as Error).message}`)
  }
  const tracePath = cfg.trace_file_path
  const traceName = basename(tracePath)
  const stats = newStats(tracePath)
  const outputs: string[] = []

  const pending = req.pending ?? new PendingFiles()
  const csvNames = new Map<string, string>()
  const csvName = (dir: string) => (id: string) => {
    let n = csvNames.get(id)
    if (n === undefined) {
      const f = csvFileName(id)
      if (f.escaped)
        notes.add('LMT_SIM_FILENAME_ESCAPED', `instance_id "${id}" was escaped to the file name ${f.name}`)
      csvNames.set(id, (n = f.name))
    }
    const path = join(dir, n)
    pending.add(path + '.tmp') // the CSV's temporary file (its writer renames or removes it)
    return path
  }

  const baseOptions = {
    config: cfg,
    seed: req.seed,
    quickInstance: resolved.quickInstance,
    strictInstances: req.strictInstances,
    traceName,
  }

  // ------------------------------------------------------------------ single run: stream, re-sort if needed
  // CSV rows are written between replay batches, outside the replay's timer (simulate.md §5.4)
  const csvWriter = 'deferred'
  let sorted = true
  let rowsInMemory: TraceRow[] | undefined
  let main: Replayer
  let replaySeconds = 0
  let writeSeconds = 0 // writing deferred CSV rows (neither parsing nor replay)
  const parseStart = performance.now()
  if (!req.sweep) {
    const keys = new KeyInterner()
    main = new Replayer({
      ...baseOptions,
      config: structuredClone(cfg),
      csvName: csvName(out),
      csvWriter,
      plots: req.plots,
    })
    let prev: bigint | undefined
    let unsortedAt: number | undefined
    let replayTime = 0
    let writeTime = 0 // CSV rows written between the batches: neither parsing nor replay
    // rows are parsed a batch at a time and then replayed: the replay runs with warm caches, and its timer
    // measures the replay rather than the interleaved parsing
    const batch: TraceRow[] = []
    const replayBatch = (): void => {
      const t0 = performance.now()
      for (let i = 0; i < batch.length; i++) main.apply(batch[i])
      batch.length = 0
      const t1 = performance.now()
      replayTime += t1 - t0
      main.drainCsvs()
      writeTime += performance.now() - t1
    }
    try {
      for await (const row of readTraceRows(
        {
          path: tracePath,
          name: traceName,
          skipInvalid: req.skipInvalid,
          mode: cfg.trace_replay.mode,
          keys,
          onBytes: (b) => req.onProgress?.({bytes: b, total: stats.bytes, rows: stats.rows}),
        },
        stats,
      )) {
        if (prev !== undefined && row.ts < prev) {
          unsortedAt = row.lineNo
          break
        }
        prev = row.ts
        batch.push(row)
        if (batch.length === REPLAY_BATCH) replayBatch()
      }
      if (unsortedAt === undefined) {
        replayBatch()
        const t0 = performance.now()
        main.finish()
        replayTime += performance.now() - t0
      }
    } catch (err) {
      await main.closeCsvs(false)
      throw err
    }
    replaySeconds = replayTime / 1000
    writeSeconds = writeTime / 1000
    if (unsortedAt !== undefined) {
      await main.closeCsvs(false)
      sorted = false
      notes.add(
        'LMT_SIM_RESORT',
        `${traceName}:${unsortedAt}: the trace is not sorted by timestamp_ns; it was re-read and stable-sorted in memory`,
      )
      const stats2 = newStats(tracePath)
      const rows = stableSortRows(
        await collect(
          readTraceRows(
            {
              path: tracePath,
              name: traceName,
              skipInvalid: req.skipInvalid,
              mode: cfg.trace_replay.mode,
              keys: new KeyInterner(),
            },
            stats2,
          ),
        ),
      )
      Object.assign(stats, stats2)
      const run = replayRows(
        rows,
        () =>
          new Replayer({
            ...baseOptions,
            config: structuredClone(cfg),
            csvName: csvName(out),
            csvWriter,
            plots: req.plots,
          }),
      )
      main = run.replayer
      replaySeconds = run.seconds
      writeSeconds = run.writeSeconds
      rowsInMemory = rows
    }
    await main.closeCsvs(true)
    for (const i of main.ordered) {
      if (i.counters.get_rows === 0)
        notes.add(
          'LMT_SIM_NO_READS',
          `instance "${i.cfg.instance_id}" had no replayed get; no CSV is written for it`,
        )
      else outputs.push(csvNames.get(i.cfg.instance_id) as string)
    }
    if (main.ordered.length === 0)
      notes.add(
        'LMT_SIM_NO_READS',
        `${traceName}: no row was replayed (the trace has none); no CSV is written`,
      )
  } else {
    rowsInMemory = await loadSorted(tracePath, traceName, resolved, req, stats, notes)
    sorted = !notes.list.some((n) => n.code === 'LMT_SIM_RESORT')
    main = new Replayer({...baseOptions, config: structuredClone(cfg), plots: false}) // replaced below
  }
  const parseSeconds = (performance.now() - parseStart) / 1000 - replaySeconds - writeSeconds

  // ------------------------------------------------------------------ oracles and sweeps
  const oracles: Record<string, unknown> | null =
    req.oracle === 'none' && !req.sweep ? null : {infinite: null, belady: null}
  let sweepDoc: Record<string, unknown> | null = null
  let jobsUsed = 1
  const lines: string[] = []
  let effective = main
  if (!req.sweep && oracles) {
    const rows =
      rowsInMemory ??
      (await loadSorted(
        tracePath,
        traceName,
        resolved,
        {...req, skipInvalid: true},
        newStats(tracePath),
        new Notes([]),
      ))
    if (req.oracle === 'infinite' || req.oracle === 'all') {
      const inf = replayRows(
        rows,
        () =>
          new Replayer({
            ...baseOptions,
            config: structuredClone(main.ordered.length ? cfgWithInstances(cfg, main) : cfg),
            plots: false,
            infinite: true,
            strictInstances: false,
          }),
      )
      oracles.infinite = inf.replayer.groups.map((g) => {
        const t = totalsOf(g.members)
        return {
          group_name: g.cfg.group_name,
          token_hit_rate: t.token_hit_rate,
          block_hit_rate: t.block_hit_rate,
          hit_blocks: t.hit_blocks,
        }
      })
      for (const o of oracles.infinite as Array<{group_name: string; token_hit_rate: number}>)
        lines.push(`oracle infinite: group ${o.group_name} token hit rate ${formatG(o.token_hit_rate)}`)
    }
    if (req.oracle === 'belady' || req.oracle === 'all') {
      const bel = beladyOracle(rows, cfgWithInstances(cfg, main))
      oracles.belady = bel.map(({instances: _instances, ...g}) => g)
      for (const b of bel) {
        const policyRate = totalsOf(
          main.groups.find((g) => g.cfg.group_name === b.group_name)?.members ?? [],
        ).token_hit_rate
        lines.push(
          `oracle belady: group ${b.group_name} token hit rate ${formatG(b.token_hit_rate)} at cache size ${b.quota_units === null ? 'inf' : `${b.quota_units} units`}`,
        )
        if (policyRate > b.token_hit_rate)
          notes.add(
            'LMT_SIM_UNUSUAL_VALUE',
            `group ${b.group_name}: the policy (${formatG(policyRate)}) beats the Belady next-need reference (${formatG(b.token_hit_rate)}); Belady is not an upper bound in this replay model (a miss does not insert)`,
            'warning',
          )
      }
    }
  }
  if (req.sweep) {
    const result = await runSweep(
      rowsInMemory as TraceRow[],
      req,
      cfg,
      resolved,
      baseOptions,
      notes,
      out,
      csvName,
    )
    effective = result.largest
    sweepDoc = result.doc
    replaySeconds = result.replaySeconds
    jobsUsed = result.jobs
    lines.push(...result.lines)
    outputs.push('sweep.csv')
    if (oracles) oracles.infinite = result.infinite
  }

  // ------------------------------------------------------------------ summary
  const instances = effective.ordered.map((i) =>
    instanceSummary(i, req.sweep ? null : (csvNames.get(i.cfg.instance_id) ?? null)),
  )
  const groups = groupSummary(effective)
  const totalSeconds = (performance.now() - started) / 1000
  const blockLookups = req.sweep ? (sweepDoc?.block_lookups as number) : main.blockLookups
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
  const summary: Record<string, unknown> = {
    format: 'lmt.simulate.summary',
    format_version: 1,
    lmt_version: req.version,
    kind: req.sweep ? 'sweep' : 'run',
    trace: traceSummary(tracePath, stats, effective, cfg, sorted),
    config: effectiveConfig(cfg, effective),
    seed: req.seed.toString(),
    notices: notes.list,
    groups,
    instances,
    oracles,
    sweep: sweepDoc === null ? null : publicSweepDoc(sweepDoc),
    performance: {
      block_lookups: blockLookups,
      replay_seconds: replaySeconds,
      block_lookups_per_second: replaySeconds > 0 ? blockLookups / replaySeconds : 0,
      parse_seconds: Math.max(0, parseSeconds),
      parse_mb_per_second: parseSeconds > 0 ? stats.bytes / 1e6 / parseSeconds : 0,
      total_seconds: totalSeconds,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
      jobs: jobsUsed,
    },
    outputs,
  }

  // ------------------------------------------------------------------ plots, summary.json
  if (req.plots) {
    const {plotHitRateOverTime, plotSweep} = await import('./plots.js')
    try {
      if (req.sweep)
        outputs.push(...(await plotSweep(pending, out, sweepDoc as Record<string, unknown>, traceName)))
      else
        outputs.push(
          ...(await plotHitRateOverTime(
            pending,
            out,
            main,
            traceName,
            capacityLabel(cfg),
            main.firstTs ?? 0n,
          )),
        )
    } catch (err) {
      notes.add('LMT_SIM_PLOT_FAILED', `a plot could not be rendered: ${(err as Error).message}`, 'warning')
    }
  }
  outputs.push('summary.json')
  try {
    pending.writeAtomic(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n')
  } catch (err) {
    throw lmtError('SIM_OUTPUT', `cannot write ${join(out, 'summary.json')}: ${(err as Error).message}`)
  }
  const table = renderTable(summary)
  const policies = [
    ...new Set(
      cfg.instance_groups
        .flatMap((g) => g.instances.map((i) => i.eviction_policy_type))
        .concat(resolved.quickInstance ? [resolved.quickInstance.eviction_policy_type] : []),
    ),
  ].join('+')
  if (!req.sweep) {
    const t = totalsOf(main.ordered)
    lines.push(
      `${traceName} ${policies} cache size ${capacityLabel(cfg)}, ${t.get_rows} req, token hit rate ${formatG(t.token_hit_rate)}, block hit rate ${formatG(t.block_hit_rate)}, throughput ${(replaySeconds > 0 ? main.blockLookups / replaySeconds / 1e6 : 0).toFixed(2)} M lookups/s`,
    )
  }
  return {summary, table, lines, notices: notes.list, outputDir: out}
}

/** The sweep document without the internal fields used for the plot and the totals. */
function publicSweepDoc(doc: Record<string, unknown>): Record<string, unknown> {
  const {group_name, unit, points, wss_blocks, series, stack, csv} = doc
  return {group_name, unit, points, wss_blocks, series, stack, csv}
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** The configuration with quick-form instances filled in (what `config` in summary.json echoes). */
function cfgWithInstances(cfg: SimConfig, r: Replayer): SimConfig {
  const copy = structuredClone(cfg)
  if (copy.instance_groups.length === 1 && copy.instance_groups[0].instances.length === 0)
    copy.instance_groups[0].instances = r.ordered.map((i) => structuredClone(i.cfg))
  return copy
}

function effectiveConfig(cfg: SimConfig, r: Replayer): SimConfig {
  return cfgWithInstances(cfg, r)
}

function pad(cells: string[][], rightAligned: boolean[]): string[] {
  const widths = cells[0].map((_, c) => Math.max(...cells.map((r) => r[c].length)))
  return cells.map((r) =>
    r
      .map((cell, c) => (rightAligned[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  )
}

/** The terminal table of simulate.md §5.4. */
export function renderTable(summary: Record<string, unknown>): string[] {
  const head = [
    'group',
    'instance',
    'policy',
    'requests',
    'read blocks',
    'hit blocks',
    'token hit rate',
    'local',
    'remote',
    'evictions',
    'cached blocks',
  ]
  const rows: string[][] = [head]
  const instances = summary.instances as Array<Record<string, number | string>>
  for (const g of summary.groups as Array<Record<string, unknown>>) {
    const members = instances.filter((i) => i.group_name === g.group_name)
    const row = (name: string, policy: string, c: Record<string, number | string>) => [
      g.group_name as string,
      name,
      policy,
      String(c.get_rows),
      String(c.read_blocks),
      String(c.hit_blocks),
      formatG(c.token_hit_rate as number),
      formatG(c.local_token_hit_rate as number),
      formatG(c.remote_token_hit_rate as number),
      String(c.evictions),
      String(c.final_cached_blocks),
    ]
    for (const m of members) rows.push(row(m.instance_id as string, m.policy as string, m))
    rows.push(
      row(
        '*',
        [...new Set(members.map((m) => m.policy as string))].join('+'),
        g.totals as Record<string, number>,
      ),
    )
  }
  return pad(
    rows,
    head.map((_, i) => i >= 3),
  )
}

// ------------------------------------------------------------------------------------------------ sweeps

interface SweepResult {
  doc: Record<string, unknown>
  largest: Replayer
  /** threads that replayed the points */
  jobs: number
  replaySeconds: number
  lines: string[]
  infinite: unknown
}

async function runSweep(
  rows: TraceRow[],
  req: SimulateRequest,
  cfg: SimConfig,
  resolved: ResolvedConfig,
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
    throw lmtError(
      'SIM_USAGE',
      groupName === undefined
        ? 'several groups: name the one to sweep with --sweep-group'
        : `--sweep-group: no group "${groupName}"`,
    )
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
  else stack = stackPass(rows, effCfg, groupName, caps)
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
    let done = 0
    const run = await runSweepTasks(rows, job, tasks, jobs, () =>
      req.onProgress?.({bytes: 0, total: 0, rows: 0, replays: [++done, tasks.length]}),
    )
    const n = withBelady ? caps.length : 0
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
      req.onProgress?.({bytes: 0, total: 0, rows: 0, replays: [p, caps.length]})
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
  void resolved
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
