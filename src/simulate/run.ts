// `lmt simulate` end to end, as named steps (run/): set up, settle the block sizes, play (a single run with its
// oracles, or a sweep), build the summary, write the outputs (here), give the console text.
import {existsSync, rmdirSync} from 'node:fs'
import {basename, join} from 'node:path'
import {isLmtError, lmtError} from '../errors.js'
import {fileStem} from '../convert/settings.js'
import {type ConvertRequest, LMCACHE_FORMAT, type SimulateRequest} from './config/request.js'
import {Player} from './engine/player.js'
import type {TraceRow} from './input/trace-rows.js'
import {foreignFormats, notConvertedError} from './input/foreign-trace.js'
import {PendingFiles} from '../util/pending-files.js'
import {LOCAL_REMOTE_LINE, renderTable, runLine, tierLine} from './output/console.js'
import {capacityLabel, totalsOf} from './output/summary.js'
import {settleRunSizes} from './run/block-sizes.js'
import {noRowsError, type RunContext, type RunSetup, setUpRun} from './run/setup.js'
import {runSingle} from './run/single-run.js'
import {type RunResult, summaryDoc} from './run/summary-doc.js'

/**
 * Runs `lmt simulate` end to end: configuration (a conversion of `-i` inputs first), plays, outputs. An interrupt
 * (`req.signal`) or a failure leaves the previous outputs as they were, and no partial file or temporary.
 */
export async function simulate(req: SimulateRequest): Promise<SimulateOutcome> {
  if (req.convert !== undefined) return await simulateConverted(req, req.convert)
  const run: RunContext = {pending: new PendingFiles()}
  // an interrupted or failed run leaves no temporary, and no empty output directory of its own making
  const removeAll = () => {
    run.pending.removeAll()
    if (run.createdOut !== undefined)
      try {
        rmdirSync(run.createdOut)
      } catch {
        // not empty (or gone): left alone
      }
  }
  req.signal?.addEventListener('abort', removeAll)
  try {
    return await simulateRun(req, run)
  } catch (err) {
    const reported = await failure(req, run, err)
    removeAll()
    throw reported
  } finally {
    req.signal?.removeEventListener('abort', removeAll)
  }
}

/** The error a failed run reports. */
async function failure(req: SimulateRequest, run: RunContext, err: unknown): Promise<unknown> {
  // a configuration's trace that is not there: it is usually still to be converted, or elsewhere
  if (
    isLmtError(err) &&
    err.kind === 'SIM_TRACE_READ' &&
    req.configPath !== undefined &&
    req.flags.trace === undefined &&
    run.tracePath !== undefined &&
    !existsSync(run.tracePath)
  )
    return lmtError('SIM_TRACE_READ', run.tracePath, "no such file (the configuration's trace_file_path)", {
      suggestions: [
        `convert the trace first: lmt convert -i <raw trace> -f <format> -o ${run.tracePath}`,
        `or pass the trace: lmt simulate ${req.configPath} --trace <converted trace>`,
      ],
      cause: err,
    })
  // an invalid row in a trace that was never converted: say which conversion it needs
  if (isLmtError(err) && err.kind === 'SIM_TRACE_ROW' && run.tracePath !== undefined) {
    const formats = await foreignFormats(run.tracePath, req.recogniseFormats)
    if (formats.length > 0) return notConvertedError(run.tracePath, formats, err)
  }
  return err
}

/** The inputs converted to a temporary Get+Write trace (removed afterwards, or at once when interrupted), simulated. */
async function simulateConverted(req: SimulateRequest, c: ConvertRequest): Promise<SimulateOutcome> {
  // loaded only for a conversion: convert's modules are not every run's
  const {convertInput, layoutBytesPerToken} = await import('./input/convert-input.js')
  const converted = convertInput({
    inputs: c.inputs,
    converter: c.converter,
    instanceId: 'instance',
    instanceBlockSizes: new Map(),
    warn: c.warn,
  })
  const cleanup = () => converted.cleanup()
  req.signal?.addEventListener('abort', cleanup)
  try {
    await converted.run()
    req.signal?.removeEventListener('abort', cleanup)
    const stem = fileStem(basename(c.inputs[0].replace(/[/\\]+$/, '')))
    const bytesPerToken =
      req.flags.bytesPerToken ??
      (c.converter.format === LMCACHE_FORMAT ? await layoutBytesPerToken(converted.inputs) : undefined)
    const outputDir = req.flags.outputDir ?? `${stem}.simulate`
    const flags = {...req.flags, trace: converted.trace, outputDir, bytesPerToken}
    return await simulate({...req, convert: undefined, flags})
  } finally {
    req.signal?.removeEventListener('abort', cleanup)
    converted.cleanup()
  }
}

async function simulateRun(req: SimulateRequest, run: RunContext) {
  const setup = await setUpRun(req, run)
  const lines: string[] = []
  const result = req.sweep ? await sweepRun(setup, lines) : await runSingle(setup, lines)
  // a run that played nothing has no result: no plot, no summary (and the directory it made is removed)
  if (result.effective.ordered.every((i) => i.counters.get_rows + i.counters.write_rows === 0))
    throw await noRowsError(setup, result.effective.skips)
  const summary = summaryDoc(setup, result, lines)
  await writeOutputs(setup, result, summary)
  if (!req.sweep) lines.push(singleRunLine(setup, result), ...tierLines(result))
  // a sweep's result is its points' lines: its largest point's table (often the infinite cache) would read as one
  const table = req.sweep ? [] : [...renderTable(summary), LOCAL_REMOTE_LINE]
  return {summary, table, lines, notices: setup.notes.list, outputDir: setup.out}
}

/** What a run gives: summary.json's document, the console's table and lines, its notices and output folder. */
export type SimulateOutcome = Awaited<ReturnType<typeof simulateRun>>

/** A sweep over capacities of one group (sweep/), from the rows loaded with the block sizes. */
async function sweepRun(setup: RunSetup, lines: string[]): Promise<RunResult> {
  const {req, cfg, notes} = setup
  const sizes = await settleRunSizes(setup)
  const parseStart = performance.now()
  const sorted = !notes.list.some((n) => n.code === 'LMT_SIM_RESORT')
  const main = new Player({...sizes.baseOptions, config: structuredClone(cfg), plots: false}) // a placeholder
  const parseSeconds = (performance.now() - parseStart) / 1000
  // loaded for a sweep only: its pool, passes and CSV are ~20 ms of a single run's start-up
  const {runSweep} = await import('./sweep/sweep.js')
  const result = await runSweep(
    sizes.rowsInMemory as TraceRow[],
    req,
    cfg,
    {...sizes.baseOptions, keyValues: sizes.keys?.sharedValues()},
    notes,
    setup.out,
    setup.pending,
    setup.csvNames.stagedIn,
  )
  lines.push(...result.lines)
  setup.outputs.push('sweep.csv')
  return {
    effective: result.largest,
    main,
    sorted,
    oracles: {infinite: result.infinite, belady: null},
    sweepDoc: result.doc,
    playSeconds: result.playSeconds,
    parseSeconds,
    jobs: result.jobs,
    sizes,
  }
}

/** A line per tiered instance: the share of its token hit rate each tier serves. */
function tierLines(r: RunResult): string[] {
  return r.main.ordered
    .filter((i) => i.tiered !== undefined && i.counters.input_tokens > 0)
    .map((i) => {
      const c = i.counters
      const names = i.tiered?.group.setup.tierNames ?? []
      const tiers = names.map((name, t) => ({name, rate: i.accTierHitTokens[t] / c.input_tokens}))
      return tierLine(i.cfg.instance_id, tiers, c.hit_tokens / c.input_tokens)
    })
}

/** The result line of a single run: its policies, capacity, hit rates and throughput. */
function singleRunLine(setup: RunSetup, r: RunResult): string {
  const {cfg, resolved} = setup
  const policies = [
    ...new Set(
      cfg.instance_groups
        .flatMap((g) => g.instances.map((i) => i.eviction_policy_type))
        .concat(resolved.quickInstance ? [resolved.quickInstance.eviction_policy_type] : []),
    ),
  ].join('+')
  const t = totalsOf(r.main.ordered)
  const lookupsPerSecond = r.playSeconds > 0 ? r.main.blockLookups / r.playSeconds : 0
  return runLine(setup.traceName, policies, cfg, t, lookupsPerSecond)
}

/**
 * The last step: the plots rendered (a failure is a warning, not a failed run), summary.json written, and the whole
 * set of files committed at once (CSVs, plots, summary.json).
 */
async function writeOutputs(setup: RunSetup, r: RunResult, summary: Record<string, unknown>): Promise<void> {
  const {req, notes, pending, out, outputs} = setup
  if (req.plots) {
    try {
      const written = await writePlots(setup, r)
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
}

/** The plot of a sweep's curve, or of a single run's hit rate over time; the names of the files written. */
async function writePlots(setup: RunSetup, r: RunResult): Promise<string[]> {
  // the plotting code loads only when a plot is drawn
  const {blockSizeLabel, plotHitRateOverTime, plotSweep} = await import('./output/plots.js')
  const {pending, out, traceName, cfg} = setup
  const {sweepDoc, effective, main} = r
  return setup.req.sweep
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
}
