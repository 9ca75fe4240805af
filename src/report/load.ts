// The report's input: a Get+Write trace (quick form) or an Optimizer configuration, read with simulate's
// configuration and trace readers, made explicit: every instance listed with its block size.
import {basename} from 'node:path'
import {lmtError} from '../errors.js'
import {
  type BlockSizeChoice,
  blockSizeOf,
  firstRowType,
  type InstanceConfig,
  isTieredConfig,
  loadSorted,
  loadTieredRows,
  newStats,
  Notes,
  readConfigFile,
  resolveConfig,
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
  const blockSizes = new Map<string, BlockSizeChoice>()
  if (resolved.quick) {
    const ids = [...new Set(rows.map((r) => r.instance))]
    const q = resolved.quickInstance as Omit<InstanceConfig, 'instance_id'>
    cfg.instance_groups[0].instances = ids.map((id) => {
      const choice = blockSizeOf(rows, id, {flag: req.blockSize}, traceName)
      blockSizes.set(id, choice)
      return {...q, instance_id: id, block_size: choice.blockSize, eviction_policy_params: {}}
    })
  } else {
    const raw = (file?.raw.instance_groups ?? []) as Array<{instances?: Array<{block_size?: number}>}>
    cfg.instance_groups.forEach((g, gi) =>
      g.instances.forEach((inst, ii) => {
        const choice = blockSizeOf(
          rows,
          inst.instance_id,
          {flag: req.blockSize, config: raw[gi]?.instances?.[ii]?.block_size},
          traceName,
        )
        blockSizes.set(inst.instance_id, choice)
        inst.block_size = choice.blockSize
      }),
    )
    // the configuration's default-16 notice is replaced by the inference's own
    notes.list.splice(
      0,
      notes.list.length,
      ...notes.list.filter((n) => !/\/block_size not set/.test(n.message)),
    )
  }
  for (const [id, c] of blockSizes)
    if (c.source === 'inferred' || c.source === 'default')
      notes.add(
        'LMT_REPORT_BLOCK_SIZE',
        `instance "${id}": block size ${c.blockSize} ${c.source === 'inferred' ? 'inferred from the trace' : 'assumed'} (${c.reason})`,
        c.source === 'default' ? 'warning' : 'notice',
      )
  return {config: cfg, rows, tracePath, traceName, stats, notes, blockSizes}
}

export type LoadedInput = Awaited<ReturnType<typeof loadInput>>
