// The report's input: a Get+Write trace (quick form) or an Optimizer configuration, read with simulate's
// configuration and trace readers, made explicit: every instance listed with its block size.
import {basename} from 'node:path'
import {lmtError} from '../errors.js'
import {
  firstRowType,
  fitsOfRows,
  type InstanceConfig,
  isTieredConfig,
  loadSorted,
  loadTieredRows,
  newStats,
  Notes,
  readConfigFile,
  resolveConfig,
  settleBlockSizes,
  type SimFlags,
} from '../simulate/index.js'

export interface LoadRequest {
  /** the trace (overrides the configuration's trace_file_path) */
  trace?: string
  config?: string
  blockSize?: number
  bytesPerToken?: number
  /** how request rows are replayed, as simulate's --replay-mode and --write-delay-ns */
  replayMode?: SimFlags['replayMode']
  writeDelayNs?: number
  skipInvalid: boolean
  /** a tiered configuration is read (for report/tiered-report.ts, which plays it): rows as a tiered play reads them */
  tiered?: boolean
  /** the name the page gives the trace (default its file name): the inputs of a conversion made on the fly */
  traceLabel?: string
  onBytes?(done: number, total: number): void
}

/** notices about the placeholders this module gives resolveConfig (capacity, output directory) */
const PLACEHOLDER = /--capacity-blocks -1|--output-dir|quick form:/

/** Reads the configuration (or builds the quick form), then the rows, then settles every instance's block size. */
export async function loadInput(req: LoadRequest) {
  if (!req.config && !req.trace) throw lmtError('REPORT_NO_INPUT')
  const file = req.config ? await readConfigFile(req.config) : undefined
  const tiered = file !== undefined && isTieredConfig(file.raw.instance_groups)
  if (tiered && !req.tiered)
    throw lmtError('SIM_TIERED_NOT_PLAYED', 'the untiered report', {
      suggestions: ['buildTieredReport (report/tiered-report.ts) plays it tier by tier, as lmt report does'],
    })
  // the capacity is the report's to choose: -1 satisfies the configuration check (a tiered one keeps its GiB)
  const flags: SimFlags = {
    trace: req.trace,
    outputDir: '.',
    capacityBlocks: tiered ? undefined : -1,
    bytesPerToken: req.bytesPerToken,
    replayMode: req.replayMode,
    writeDelayNs: req.writeDelayNs,
  }
  const first = !file && req.trace ? await firstRowType(req.trace) : undefined
  const resolved = resolveConfig(file, flags, first)
  const notes = new Notes(resolved.notices.filter((n) => !PLACEHOLDER.test(n.message)))
  const cfg = resolved.config
  const tracePath = cfg.trace_file_path
  const traceName = req.traceLabel ?? basename(tracePath)
  const stats = newStats(tracePath)
  const rows = tiered
    ? (
        await loadTieredRows(tracePath, traceName, req.skipInvalid, stats, (b) =>
          req.onBytes?.(b, stats.bytes),
        )
      ).rows
    : await loadSorted(
        tracePath,
        traceName,
        resolved,
        {skipInvalid: req.skipInvalid, onProgress: (p) => req.onBytes?.(p.bytes, p.total)},
        stats,
        notes,
      )
  // every instance's block size by simulate's rule: --block-size's, else the configuration's (either checked against
  // the rows), else the one the rows imply, else 16
  if (resolved.quick)
    cfg.instance_groups[0].instances = [...new Set(rows.map((r) => r.instance))].map((id) => ({
      ...(resolved.quickInstance as Omit<InstanceConfig, 'instance_id'>),
      instance_id: id,
      eviction_policy_params: {},
    }))
  const instances = cfg.instance_groups.flatMap((g) => g.instances)
  const given = new Map(resolved.blockSizeGiven)
  if (req.blockSize !== undefined)
    for (const i of instances) {
      i.block_size = req.blockSize
      given.set(i.instance_id, 'flag')
    }
  const fits = fitsOfRows(rows)
  const plan = settleBlockSizes({...resolved, quick: false, blockSizeGiven: given}, fits, traceName, true)
  const blockSizes = new Map(
    instances.map((i) => [i.instance_id, {blockSize: i.block_size, source: plan.source(i.instance_id)}]),
  )
  for (const [id, c] of blockSizes) {
    const fit = fits.get(id)
    if (c.source === 'inferred')
      notes.add(
        'LMT_REPORT_BLOCK_SIZE',
        `instance "${id}": block size ${c.blockSize} inferred from the trace (its gets fit block sizes ${fit?.lo}–${fit?.hi})`,
      )
    else if (c.source === 'default')
      notes.add(
        'LMT_REPORT_BLOCK_SIZE',
        `instance "${id}": block size ${c.blockSize} assumed (no get of the instance has keys; ${c.blockSize} assumed)`,
        'warning',
      )
  }
  return {config: cfg, rows, tracePath, traceName, stats, notes, blockSizes}
}

export type LoadedInput = Awaited<ReturnType<typeof loadInput>>
