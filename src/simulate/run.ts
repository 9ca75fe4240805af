import {existsSync, rmdirSync} from 'node:fs'
import {basename, join} from 'node:path'
import {stepProgress} from './step-progress.js'
import {PendingFiles} from './pending-files.js'
import {ensureDirectory, refuseNonRegularOutput} from '../util/output-path.js'
import {isLmtError, lmtError} from '../errors.js'
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
import {firstRowType, newStats, readTraceRowBatches, type TraceReadStats} from './trace-source.js'
import {type FormatRecogniser, foreignFormats, notConvertedError} from './foreign-trace.js'
import type {BlockSizeFit} from './block-size.js'
import {blockSizeError, contradictionOf} from './block-size-errors.js'
import {fitsOfRows, scanBlockSizes} from './block-size-scan.js'
import {
  blockSizeCheckDoc,
  blockSizeLine,
  defaultSizeWarning,
  needsInference,
  settleBlockSizes,
} from './block-size-plan.js'

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
  /** check that the trace's rows do not contradict a given block size as too small (default true) */
  blockSizeCheck?: boolean
  /** sweeps: the one-pass stack method where it is certified exact (auto, the default), or never */
  stack?: 'auto' | 'off'
  /** the formats a line that is not a trace row looks like (asks the converters; for the error's hint) */
  recogniseFormats?: FormatRecogniser
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
  /** a pass over rows held in memory (an oracle, a sweep's first passes): rows done of total */
  step?: {label: string; done: number; total: number}
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

/** The CSV file name of an instance (escaped when unsafe, docs/simulate.md §5.1). */
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
/** the name of a finished CSV until the run's outputs are committed together */
export const STAGED_PREFIX = '.lmt-new.'

/** the outputs of a run besides the CSVs: refused before any work when one is a device, a FIFO or a folder */
const FIXED_OUTPUTS = [
  'summary.json',
  'sweep.csv',
  'hit_rate_over_time.svg',
  'hit_rate_over_time.vl.json',
  'sweep_hit_rate.svg',
  'sweep_hit_rate.vl.json',
]

/** Runs `lmt simulate` end to end: configuration, replay(s), outputs. */
export async function simulate(req: SimulateRequest): Promise<SimulateOutcome> {
  const run: RunContext = {}
  try {
    return await simulateRun(req, run)
  } catch (err) {
    // a failed run leaves no empty output directory of its own making behind
    if (run.createdOut !== undefined && run.out !== undefined)
      try {
        rmdirSync(run.out)
      } catch {
        // not empty (or gone): left alone
      }
    // an invalid row in a trace that was never converted: say which conversion it needs
    if (isLmtError(err) && err.kind === 'SIM_TRACE_ROW' && run.tracePath !== undefined) {
      const formats = await foreignFormats(run.tracePath, req.recogniseFormats)
      if (formats.length > 0) throw notConvertedError(run.tracePath, formats, err)
    }
    throw err
  }
}

interface RunContext {
  tracePath?: string
  /** the output directory, and whether this run created it */
  out?: string
  createdOut?: string
}

/** Why a run replayed no row, as the no-rows error says it. */
async function noRowsError(
  req: SimulateRequest,
  tracePath: string,
  stats: TraceReadStats,
  skips?: Replayer['skips'],
): Promise<Error> {
  const formats = await foreignFormats(tracePath, req.recogniseFormats)
  if (formats.length > 0) return notConvertedError(tracePath, formats)
  const invalid = Object.entries(stats.invalid)
  const why =
    stats.rows === 0
      ? 'the trace has no rows'
      : invalid.length > 0
        ? `${invalid.reduce((a, [, n]) => a + n, 0)} of ${stats.rows} rows were invalid and skipped (${invalid.map(([rule, n]) => `${rule} ${n}`).join(', ')})`
        : skips !== undefined && skips.unknown_instance > 0
          ? `${skips.unknown_instance} rows are of instances that are not configured (${[...skips.unknownInstances.keys()].slice(0, 5).join(', ')})`
          : 'no row reached a configured instance'
  return lmtError('SIM_NO_ROWS', basename(tracePath), why, {
    suggestions: [
      invalid.length > 0
        ? 'run without --skip-invalid to see the first invalid row and why'
        : 'check the trace and the configuration; a run must replay at least one row',
    ],
  })
}

async function simulateRun(req: SimulateRequest, run: RunContext): Promise<SimulateOutcome> {
  const started = performance.now()
  const file = req.configPath ? await readConfigFile(req.configPath) : undefined
  const tracePathForQuick = req.flags.trace
  const first = !file && tracePathForQuick ? await firstRowType(tracePathForQuick) : undefined
  const resolved = resolveConfig(file, req.flags, first)
  const notes = new Notes([...resolved.notices])
  const cfg = resolved.config
  const out = cfg.output_result_path
  const createdOut = existsSync(out) ? undefined : out
  ensureDirectory(out, 'SIM_OUTPUT_FAILED')
  run.out = out
  run.createdOut = createdOut
  for (const name of FIXED_OUTPUTS) refuseNonRegularOutput(join(out, name), 'SIM_OUTPUT_FAILED')
  const tracePath = cfg.trace_file_path
  run.tracePath = tracePath
  /** the error of a run that replayed nothing (the output directory it made is removed by simulate()) */
  const noRows = (skips?: Replayer['skips']): Promise<Error> => noRowsError(req, tracePath, stats, skips)
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
    refuseNonRegularOutput(path, 'SIM_OUTPUT_FAILED')
    // the CSV's writer fills <new>.tmp and renames it to <new> (or removes it); commit() renames <new> to the CSV
    const staged = join(dir, `${STAGED_PREFIX}${n}`)
    pending.add(staged + '.tmp')
    pending.stage(staged, path)
    return staged
  }

  // ------------------------------------------------------------------ block sizes: inferred or checked
  const check = req.blockSizeCheck !== false
  let rowsInMemory: TraceRow[] | undefined
  let fits: Map<string, BlockSizeFit> | undefined
  if (req.sweep) {
    rowsInMemory = await loadSorted(tracePath, traceName, resolved, req, stats, notes)
    if (rowsInMemory.length === 0) throw await noRows()
    fits = fitsOfRows(rowsInMemory)
  } else if (needsInference(resolved))
    fits = await scanBlockSizes({
      path: tracePath,
      name: traceName,
      skipInvalid: req.skipInvalid,
      mode: cfg.trace_replay.mode,
    })
  const plan = settleBlockSizes(resolved, fits, traceName, check)
  /** a contradiction the streamed replay met, with the block size the whole trace implies */
  const withTraceFit = async (err: unknown): Promise<unknown> => {
    const c = contradictionOf(err)
    if (c === undefined) return err
    const all =
      fits ??
      (await scanBlockSizes({
        path: tracePath,
        name: traceName,
        skipInvalid: true,
        mode: cfg.trace_replay.mode,
      }))
    return blockSizeError(c, all.get(c.instance))
  }

  const baseOptions = {
    config: cfg,
    seed: req.seed,
    quickInstance: resolved.quickInstance,
    quickBlockSizes: plan.quickSizes,
    blockSizeCheck: check,
    blockSizeSource: plan.source,
    strictInstances: req.strictInstances,
    traceName,
  }

  // ------------------------------------------------------------------ single run: stream, re-sort if needed
  // CSV rows are written between replay batches, outside the replay's timer (docs/simulate.md §5.4)
  const csvWriter = 'deferred'
  let sorted = true
  let main: Replayer
  let replaySeconds = 0
  let writeSeconds = 0 // writing deferred CSV rows (neither parsing nor replay)
  const parseStart = performance.now()
  if (!req.sweep) {
    const keys = KeyInterner.forTraceBytes(stats.bytes)
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
      throw await withTraceFit(err)
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
      let run: ReturnType<typeof replayRows>
      try {
        run = replayRows(
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
      } catch (err) {
        throw await withTraceFit(err)
      }
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
  } else {
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
        stepProgress(req, 'infinite capacity'),
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
      const bel = beladyOracle(
        rows,
        cfgWithInstances(cfg, main),
        undefined,
        stepProgress(req, 'Belady oracle'),
      )
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
      {...req, pending},
      cfg,
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

  // a run that replayed nothing has no result: no plot, no summary (and the directory it made is removed)
  if (effective.ordered.every((i) => i.counters.get_rows + i.counters.write_rows === 0))
    throw await noRows(effective.skips)

  // ------------------------------------------------------------------ summary
  const fitOf = (i: Replayer['ordered'][number]) => plan.fits?.get(i.cfg.instance_id) ?? i.blockSizeFit
  const instances = effective.ordered.map((i) => ({
    ...instanceSummary(i, req.sweep ? null : (csvNames.get(i.cfg.instance_id) ?? null)),
    block_size_source: plan.source(i.cfg.instance_id),
    block_size_check: blockSizeCheckDoc(i.cfg.block_size, fitOf(i)),
  }))
  defaultSizeWarning(
    notes,
    effective.ordered
      .filter((i) => plan.source(i.cfg.instance_id) === 'default')
      .map((i) => i.cfg.instance_id),
  )
  const sizeLines = effective.ordered.map((i) =>
    blockSizeLine(i.cfg.instance_id, i.cfg.block_size, plan.source(i.cfg.instance_id), fitOf(i)),
  )
  lines.unshift(
    ...sizeLines.slice(0, 10),
    ...(sizeLines.length > 10
      ? [`(the block sizes of ${sizeLines.length - 10} more instances: summary.json)`]
      : []),
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
    const {blockSizeLabel, plotHitRateOverTime, plotSweep} = await import('./plots.js')
    try {
      const written = req.sweep
        ? await plotSweep(
            pending,
            out,
            sweepDoc as Record<string, unknown>,
            traceName,
            blockSizeLabel(
              effective.ordered
                .filter((i) => i.group.cfg.group_name === sweepDoc?.group_name)
                .map((i) => ({id: i.cfg.instance_id, blockSize: i.cfg.block_size})),
            ),
          )
        : await plotHitRateOverTime(pending, out, main, traceName, capacityLabel(cfg), main.firstTs ?? 0n)
      if (written.length === 0)
        notes.add('LMT_SIM_NO_PLOT', 'no get was replayed: there is nothing to plot, and no plot is written')
      outputs.push(...written)
    } catch (err) {
      notes.add('LMT_SIM_PLOT_FAILED', `a plot could not be rendered: ${(err as Error).message}`, 'warning')
    }
  }
  outputs.push('summary.json')
  pending.writeAtomic(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n')
  pending.commit() // the whole set at once: CSVs, plots, summary.json
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
