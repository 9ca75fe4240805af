// `lmt report` as one call: which page the inputs ask for (an LMCache events trace's, a tiered configuration's sweep,
// or the capacity-planning answer), the `-i` inputs converted on the fly (simulate's conversion step), the page
// written. The caller renders the notices and summary lines it returns.
import {basename, dirname, resolve} from 'node:path'
import {isLmtError, lmtError} from '../../errors.js'
import {fileStem, parseInstanceBlockSizes} from '../../convert/settings.js'
import {parseKvLayout} from '../../convert/kv-layout.js'
import type {ConverterRegistration} from '../../convert/types.js'
import {
  type ConvertedInput,
  convertInput,
  foreignFormats,
  isTieredConfig,
  LMCACHE_FORMAT,
  layoutBytesPerToken,
  POLICIES,
  type PolicyName,
  readConfigFile,
  TIERED_BLOCK_BYTES_HINT,
} from '../../simulate/index.js'
import {buildEventsReport, isEventsTrace} from '../../replay/events/events-report.js'
import {eventsSummaryLines} from '../../formats/lct/events-summary.js'
import {positiveNumberFlag, seedFlag} from '../../util/number-flags.js'
import {writeFileAtomic} from '../../util/atomic-write.js'
import {
  ensureDirectory,
  outputError,
  refuseNonRegularOutput,
  refuseOutputIsInput,
} from '../../util/output-path.js'
import {buildReport, reportSummaryLines, type ReportRequest} from '../report.js'
import {buildTieredReport, tieredSummaryLines} from '../tiered-report.js'
import {renderReportHtml} from '../page/html.js'
import {renderEventsReportHtml} from '../page/events-html.js'
import {renderTieredReportHtml} from '../page/tiered-html.js'

/**
 * The report the command line asks for: its values named and given as `lmt report`'s flags, checked here in the order
 * the errors are told.
 */
export interface ReportCall {
  config?: string
  trace?: string
  /** inputs to convert on the fly (with `format`), or one LMCache events trace alone */
  input?: string[]
  format?: string
  /** the page (default ./<trace stem>.report.html) */
  output?: string
  'instance-id': string
  'instance-block-sizes'?: string
  'block-size'?: number
  'bytes-per-token'?: number
  'kv-layout'?: string
  capacity?: string
  'capacity-blocks'?: number
  /** comma-separated, or all */
  policies: string
  points: number
  group?: string
  'sweep-storage'?: string
  'replay-mode'?: string
  'write-delay-ns'?: number
  seed: string
  jobs?: number
  'skip-invalid': boolean
  version: string
  /** the converter of a format */
  converter(format: string): Promise<ConverterRegistration>
  /** the formats whose input a trace's first line looks like (the hint of a trace that was never converted) */
  recogniseFormats(line: string): Promise<string[]>
  warn(message: string): void
}

type Progress = (p: {phase: string; done: number; total: number}) => void

/** What one kind of report builds, renders and tells. */
interface Page<D> {
  build(onProgress: Progress): Promise<D>
  render(doc: D): string
  tell(doc: D): [notices: string[], lines: string[]]
}

const noticeLines = (doc: {notices: Array<{level: string; message: string; code: string}>}) =>
  doc.notices.map((n) => `${n.level}: ${n.message} [${n.code}]\n`)

/**
 * Builds the report and writes its page. An abort of `signal` (Ctrl-C) removes the converted trace at once: an
 * interrupted run leaves no page, temporary or converted trace.
 */
export async function report(call: ReportCall, opts: {onProgress?: Progress; signal?: AbortSignal} = {}) {
  const onProgress = opts.onProgress ?? (() => {})
  if (await isEventsInput(call)) {
    const file = call.input?.[0] as string
    const output = checkedOutput(call.output ?? `${fileStem(basename(file))}.report.html`, [file])
    return writePage(output, undefined, onProgress, {
      build: (p) => buildEventsReport({file, version: call.version, onProgress: p}),
      render: renderEventsReportHtml,
      tell: (doc) => [doc.warnings.map((w) => `warning: ${w}\n`), eventsSummaryLines(doc.lmcache_trace_info)],
    })
  }
  checkInputFlags(call)
  const request = reportRequest(call)
  const stem = fileStem(basename(call.trace ?? call.input?.[0] ?? call.config ?? 'trace'))
  const output = checkedOutput(call.output ?? `${stem}.report.html`, [
    call.trace,
    call.config,
    ...(call.input ?? []),
  ])
  const traceLabel = call.input?.map((i) => basename(i)).join(', ')
  const converted =
    call.input === undefined
      ? undefined
      : await convertInput({
          inputs: call.input,
          converter: await call.converter(call.format as string),
          instanceId: call['instance-id'],
          instanceBlockSizes: parseInstanceBlockSizes(call['instance-block-sizes']),
          warn: call.warn,
        })
  const cleanup = () => converted?.cleanup()
  opts.signal?.addEventListener('abort', cleanup)
  try {
    const run = {...request, trace: converted?.trace ?? call.trace, traceLabel}
    const {config} = call
    if (config !== undefined && isTieredConfig((await readConfigFile(config)).raw.instance_groups)) {
      if (request.capacityBlocks !== undefined)
        throw lmtError('CLI_FLAG_NEEDS', '--capacity-blocks', 'a configuration without tier_strategy', {
          suggestions: ['a tiered configuration gives capacities in GiB: --capacity'],
        })
      if (request.bytesPerBlock !== undefined)
        throw lmtError('CLI_FLAG_NEEDS', '--kv-layout', 'a configuration without tier_strategy', {
          suggestions: [TIERED_BLOCK_BYTES_HINT],
        })
      return await writePage(output, converted, onProgress, {
        build: (p) => buildTieredReport({...run, config, storage: call['sweep-storage'], onProgress: p}),
        render: renderTieredReportHtml,
        tell: (doc) => [noticeLines(doc), tieredSummaryLines(doc)],
      })
    }
    if (call['sweep-storage'] !== undefined)
      throw lmtError('CLI_FLAG_NEEDS', '--sweep-storage', 'a configuration with a tier_strategy')
    // a lookup-hash log: LMCache's simulator beside lmt's policies, and without --bytes-per-token or --kv-layout the
    // bytes per token of the log's first layout (LMCache's rule), so that capacities read in GiB
    const lookup = converted !== undefined && call.format?.toLowerCase() === LMCACHE_FORMAT
    const layout =
      lookup && request.bytesPerToken === undefined && request.bytesPerBlock === undefined
        ? await layoutBytesPerToken(converted.inputs)
        : undefined
    const req: ReportRequest = {
      ...run,
      ...(lookup ? {lmcacheLookup: {inputs: converted.inputs, bytesPerToken: call['bytes-per-token']}} : {}),
      ...(layout === undefined ? {} : {bytesPerToken: layout}),
      config,
    }
    return await writePage(output, converted, onProgress, {
      build: (p) =>
        buildReport({...req, onProgress: p}).catch(async (err: unknown) => {
          throw await notConverted(err, call)
        }),
      render: renderReportHtml,
      tell: (doc) => [noticeLines(doc), reportSummaryLines(doc)],
    })
  } finally {
    opts.signal?.removeEventListener('abort', cleanup)
    cleanup()
  }
}

/** `-i FILE` alone (no --format, configuration or --trace) naming an LMCache events trace. */
async function isEventsInput(call: ReportCall): Promise<boolean> {
  const inputs = call.input ?? []
  if (
    inputs.length !== 1 ||
    call.format !== undefined ||
    call.config !== undefined ||
    call.trace !== undefined
  )
    return false
  return isEventsTrace(inputs[0])
}

/** Which input, and the flags that exclude each other (before any other check, in this order). */
function checkInputFlags(call: ReportCall): void {
  const sources = [call.config, call.trace, call.input].filter((x) => x !== undefined).length
  if (call.input !== undefined && call.config === undefined && call.trace === undefined && !call.format)
    throw lmtError('CLI_FLAG_NEEDS', '--input', '--format (see lmt converters)')
  if (sources === 0)
    throw lmtError('REPORT_NO_INPUT', {suggestions: ['lmt report --trace trace.jsonl -o report.html']})
  if (call.trace !== undefined && call.input !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--trace', '--input')
  if (call.capacity !== undefined && call['capacity-blocks'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--capacity', '--capacity-blocks')
  if (call['kv-layout'] !== undefined && call['bytes-per-token'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--kv-layout', '--bytes-per-token')
}

/** The library request the values ask for (its trace, configuration and progress are the run's). */
function reportRequest(call: ReportCall): Omit<ReportRequest, 'config' | 'trace'> {
  const capacityGb = positiveNumberFlag('capacity', call.capacity, 'GiB')
  const seed = seedFlag(call.seed)
  const policies = call.policies === 'all' ? [...POLICIES] : call.policies.split(',').map((p) => p.trim())
  for (const p of policies)
    if (!POLICIES.includes(p as PolicyName)) throw lmtError('REPORT_UNKNOWN_POLICY', p, POLICIES)
  return {
    blockSize: call['block-size'],
    bytesPerToken: call['bytes-per-token'],
    bytesPerBlock:
      call['kv-layout'] === undefined ? undefined : parseKvLayout(call['kv-layout']).rawSizeBytes(),
    capacityBlocks: call['capacity-blocks'],
    capacityGb,
    policies: policies as PolicyName[],
    points: call.points,
    group: call.group,
    seed,
    jobs: call.jobs,
    skipInvalid: call['skip-invalid'],
    replayMode: call['replay-mode'] as ReportRequest['replayMode'],
    writeDelayNs: call['write-delay-ns'],
    version: call.version,
  }
}

/**
 * The page's path before any work: never over a device, a FIFO, a folder or one of the inputs; its folders made one
 * level at a time.
 */
function checkedOutput(path: string, inputs: ReadonlyArray<string | undefined>): string {
  const output = resolve(path)
  refuseNonRegularOutput(output, 'REPORT_OUTPUT_FAILED')
  refuseOutputIsInput(output, inputs)
  ensureDirectory(dirname(output), 'REPORT_OUTPUT_FAILED')
  return output
}

/**
 * Converts the input when asked, builds the report and writes its page (atomically); the document, the page's path,
 * the notices for stderr (each with its newline) and the summary lines.
 */
async function writePage<D extends object>(
  output: string,
  converted: ConvertedInput | undefined,
  onProgress: Progress,
  page: Page<D>,
) {
  if (converted) {
    onProgress({phase: 'converting', done: 0, total: 1})
    await converted.run()
  }
  const doc = await page.build(onProgress)
  onProgress({phase: 'writing the page', done: 1, total: 1})
  const html = page.render(doc)
  try {
    writeFileAtomic(output, html)
  } catch (err) {
    throw outputError('REPORT_OUTPUT_FAILED', `cannot write ${output}`, err)
  }
  const [notices, lines] = page.tell(doc)
  return {doc, output, notices, lines}
}

/** A raw trace given as --trace: the -i … -f … that converts it on the fly (else the error as it was). */
async function notConverted(err: unknown, call: ReportCall): Promise<unknown> {
  const {trace} = call
  if (!isLmtError(err) || err.kind !== 'SIM_TRACE_ROW' || trace === undefined) return err
  const formats = await foreignFormats(trace, call.recogniseFormats)
  if (formats.length === 0) return err
  return lmtError('SIM_TRACE_NOT_CONVERTED', basename(trace), formats, {
    suggestions: [`lmt report -i ${trace} -f ${formats[0]} (converts it on the fly)`],
    cause: err,
  })
}
