import {mkdirSync} from 'node:fs'
import {basename, join} from 'node:path'
import {PendingFiles} from './pending-files.js'
import {lmtError} from '../errors.js'
import {type Notice, readConfigFile, resolveConfig, type SimFlags} from './config.js'
import {formatG} from './format-g.js'
import {beladyOracle} from './belady.js'
import {Notes} from './notes.js'
import {loadSorted, REPLAY_BATCH, replayRows} from './replay-rows.js'
import {Replayer} from './replayer.js'
import {
  capacityLabel,
  cfgWithInstances,
  groupSummary,
  instanceSummary,
  publicSweepDoc,
  renderTable,
  totalsOf,
  traceSummary,
} from './summary.js'
import {runSweep} from './sweep.js'
import {KeyInterner, type TraceRow} from './trace-rows.js'
import {firstRowType, newStats, readTraceRowBatches} from './trace-source.js'

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
  onProgress?(p: SimulateProgress): void
}

/**
 * Progress of a run: bytes of the trace read (and rows so far), then, in a sweep, the points done (`points`) and,
 * when the Belady references are computed after the points (one thread), those done (`belady`).
 */
export interface SimulateProgress {
  bytes: number
  total: number
  rows: number
  points?: {done: number; total: number; belady?: boolean}
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
    out +=
      ch === '%' || UNSAFE_NAME.test(ch)
        ? encodeURIComponent(ch).replace(/[!'()*]/g, (x) => '%' + x.charCodeAt(0).toString(16).toUpperCase())
        : ch
  }
  if (out === '.' || out === '..') out = out.replace(/\./g, '%2E')
  return {name: `${out}_hit_rates.csv`, escaped: true}
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
      read: for await (const rows of readTraceRowBatches(
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
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]
          if (prev !== undefined && row.ts < prev) {
            unsortedAt = row.lineNo
            break read
          }
          prev = row.ts
          batch.push(row)
          if (batch.length === REPLAY_BATCH) replayBatch()
        }
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
      // the same read as a sweep's (its own resort notice is not needed: the one above says more)
      const rows = await loadSorted(tracePath, traceName, resolved, req, stats2, new Notes())
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
        new Notes(),
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
    const result = await runSweep(rowsInMemory as TraceRow[], req, cfg, baseOptions, notes, out, csvName)
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
    config: cfgWithInstances(cfg, effective),
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
  pending.writeAtomic(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n')
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
