import {lstatSync} from 'node:fs'
import {parseOptionsForStdio, STDIO, stdinAsFile} from '../stdin-file.js'
import {basename, dirname, resolve} from 'node:path'
import {Args, Flags, type Interfaces} from '@oclif/core'
import {LmtCommand} from '../lmt-command.js'
import {handleInterrupts} from '../interrupts.js'
import {integerFlag, positiveNumberFlag, seedFlag} from '../../util/number-flags.js'
import {createProgressBar} from '../progress.js'
import {fileStem, parseInstanceBlockSizes} from '../../convert/settings.js'
import {parseKvLayout} from '../../convert/kv-layout.js'
import {inputReadHints, isLmtError, lmtError} from '../../errors.js'
import {
  foreignFormats,
  isTieredConfig,
  POLICIES,
  type PolicyName,
  readConfigFile,
  convertInput,
  type ConvertedInput,
  TIERED_BLOCK_BYTES_HINT,
  LMCACHE_FORMAT,
  layoutBytesPerToken,
} from '../../simulate/index.js'
import {expandDirectoryInputs} from '../../convert/directory-inputs.js'
import {discoverWithPlugins, findConverter} from '../../plugins/converter-discovery.js'
import {renderReportHtml} from '../../report/page/html.js'
import {renderEventsReportHtml} from '../../report/page/events-html.js'
import {
  buildEventsReport,
  type EventsReportDocument,
  isEventsTrace,
} from '../../replay/events/events-report.js'
import {eventsSummaryLines} from '../../formats/lct/events-summary.js'
import type {ReportDocument} from '../../report/document.js'
import {buildReport, reportSummaryLines, type ReportRequest} from '../../report/report.js'
import {buildTieredReport, type TieredReportDocument, tieredSummaryLines} from '../../report/tiered.js'
import {renderTieredReportHtml} from '../../report/page/tiered-html.js'
import {requestRowFlags} from './simulate.js'
import {writeFileAtomic} from '../../util/atomic-write.js'
import {
  ensureDirectory,
  outputError,
  refuseNonRegularOutput,
  refuseOutputIsInput,
} from '../../util/output-path.js'

const DEFAULT_POLICIES = 'lru,leaf_aware_lru,ttl'

/**
 * The page's path before any work: never over a device, a FIFO, a folder or one of the inputs; its folders made one
 * level at a time.
 */
function checkOutput(path: string, inputs: ReadonlyArray<string | undefined>): void {
  refuseNonRegularOutput(path, 'REPORT_OUTPUT_FAILED')
  refuseOutputIsInput(path, inputs)
  ensureDirectory(dirname(path), 'REPORT_OUTPUT_FAILED')
}

type ReportFlags = Interfaces.InferredFlags<(typeof Report)['flags']>
type Progress = (p: {phase: string; done: number; total: number}) => void

/** What one kind of report writes where, how it is built and rendered, and what it says on a terminal. */
interface Page<D> {
  output: string
  converted?: ConvertedInput
  build(onProgress: Progress): Promise<D>
  render(doc: D): string
  /** its notices (on stderr) and summary lines */
  tell(doc: D): [notices: string[], lines: string[]]
}

/** `-i FILE` alone (no --format, configuration or --trace) naming an LMCache events trace. */
async function isEventsInput(args: {config?: string}, flags: ReportFlags): Promise<boolean> {
  const inputs = flags.input ?? []
  if (
    inputs.length !== 1 ||
    flags.format !== undefined ||
    args.config !== undefined ||
    flags.trace !== undefined
  )
    return false
  return isEventsTrace(inputs[0])
}

/** Which input, and the flags that exclude each other (before any other check, in this order). */
function checkInputFlags(args: {config?: string}, flags: ReportFlags): void {
  const sources = [args.config, flags.trace, flags.input].filter((x) => x !== undefined).length
  if (flags.input !== undefined && args.config === undefined && flags.trace === undefined && !flags.format)
    throw lmtError('CLI_FLAG_NEEDS', '--input', '--format (see lmt converters)')
  if (sources === 0)
    throw lmtError('REPORT_NO_INPUT', {suggestions: ['lmt report --trace trace.jsonl -o report.html']})
  if (flags.trace !== undefined && flags.input !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--trace', '--input')
  if (flags.capacity !== undefined && flags['capacity-blocks'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--capacity', '--capacity-blocks')
  if (flags['kv-layout'] !== undefined && flags['bytes-per-token'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--kv-layout', '--bytes-per-token')
}

/** The library request the flags ask for (its trace, configuration and progress are the run's). */
function reportRequest(flags: ReportFlags, version: string): Omit<ReportRequest, 'config' | 'trace'> {
  const capacityGb = positiveNumberFlag('capacity', flags.capacity, 'GiB')
  const seed = seedFlag(flags.seed)
  const policies = flags.policies === 'all' ? [...POLICIES] : flags.policies.split(',').map((p) => p.trim())
  for (const p of policies)
    if (!POLICIES.includes(p as PolicyName)) throw lmtError('REPORT_UNKNOWN_POLICY', p, POLICIES)
  return {
    blockSize: flags['block-size'],
    bytesPerToken: flags['bytes-per-token'],
    bytesPerBlock:
      flags['kv-layout'] === undefined ? undefined : parseKvLayout(flags['kv-layout']).rawSizeBytes(),
    capacityBlocks: flags['capacity-blocks'],
    capacityGb,
    policies: policies as PolicyName[],
    points: flags.points,
    group: flags.group,
    seed,
    jobs: flags.jobs,
    skipInvalid: flags['skip-invalid'],
    replayMode: flags['replay-mode'] as ReportRequest['replayMode'],
    writeDelayNs: flags['write-delay-ns'],
    version,
  }
}

const noticeLines = (doc: {notices: Array<{level: string; message: string; code: string}>}) =>
  doc.notices.map((n) => `${n.level}: ${n.message} [${n.code}]\n`)

export default class Report extends LmtCommand {
  static override summary =
    'One HTML page that answers how much KV cache a trace needs, with which policy, and why'

  static override description = `Characterizes a Get+Write trace (load over time, input lengths, prefix sharing, reuse distance and time, working set, key popularity) and replays it at a grid of capacities for every policy, with the Belady (next need) and infinite-capacity references: the capacity each policy needs to reach 50/80/90/95 % of the infinite-capacity hit rate, and the hit rate over time at one capacity. A configuration with a tier_strategy (storage tiers) gets simulate's tiered sweep instead: hit rate against one storage's capacity, in total and per tier, and the share each tier serves. Writes one self-contained HTML file (charts render offline) and, with --json, prints the same numbers.`

  // the trace of the first and last examples is the output of the Mooncake example of "lmt convert --help"
  static override examples = [
    {
      description: 'A converted trace (block size inferred), 128 KiB of KV per token-block of 512 tokens',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --bytes-per-token 256 -o report.html',
    },
    {
      description: 'Convert on the fly',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/mooncake_conversation_trace.jsonl -f mooncake -o report.html',
    },
    {
      description: "An LMCache lookup-hash log directory: LMCache's cache simulator beside lmt's policies",
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/lmcache_lookup_logs -f lmcache_lookup -o lookups.report.html',
    },
    {
      description:
        'An LMCache events trace (--trace-level events): its trace info, occupancy and evictions over time',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/lct/events_level_meta_INFERRED.lct -o events.report.html',
    },
    {
      description:
        'A tiered configuration (tier_strategy): the hit rate each tier serves as the SSD tier grows (--skip-invalid: the converted trace starts at timestamp 0, which tiered configurations refuse)',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/tiers_config.json --trace mooncake_optimizer.jsonl --skip-invalid --sweep-storage ssd -o tiers.report.html',
    },
    {
      description: 'An Optimizer configuration, the numbers as JSON',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/optimizer_config.json --trace mooncake_optimizer.jsonl --json',
    },
  ]

  static override enableJsonFlag = true

  static override args = {
    config: Args.string({description: 'Optimizer configuration file (JSON); omit to use --trace or -i'}),
  }

  static override flags = {
    trace: Flags.string({
      char: 't',
      summary: 'Get+Write trace (standard JSONL; gzip or zstd too; - for standard input).',
    }),
    input: Flags.string({
      char: 'i',
      summary:
        'Inputs to convert on the fly (with --format; a lookup-hash log directory with -f lmcache_lookup), or one LMCache events .lct alone.',
      multiple: true,
    }),
    format: Flags.string({char: 'f', summary: 'Format of --input (see lmt converters).'}),
    'instance-id': Flags.string({
      summary: 'Instance id for formats without one (with --input).',
      default: 'instance',
    }),
    'instance-block-sizes': Flags.string({
      summary: 'id:n[,id:n…] block sizes for the conversion (with --input).',
    }),
    output: Flags.string({char: 'o', summary: 'The HTML file (default ./<trace stem>.report.html).'}),
    'block-size': integerFlag({
      summary: 'Tokens per block of every instance (default: inferred from the trace).',
      min: 1,
    }),
    'bytes-per-token': integerFlag({
      summary: 'KV bytes per token of every instance (capacities in GiB).',
      min: 1,
    }),
    'kv-layout': Flags.string({
      summary: "One block's KV layout, e.g. 2x36x512x8x128:bfloat16 (capacities in GiB).",
    }),
    capacity: Flags.string({
      summary: 'Capacity in GiB (2^30 bytes) of the hit-rate-over-time replays (default: LRU’s 90 % point).',
    }),
    'capacity-blocks': integerFlag({summary: 'The same capacity in blocks.', min: 1}),
    policies: Flags.string({
      summary: `Policies to answer for, comma-separated or all (lru always; random_lru replays are slow).`,
      default: DEFAULT_POLICIES,
    }),
    points: integerFlag({
      summary: 'Capacities of the grid (log-spaced up to the working set).',
      min: 3,
      max: 1000,
      default: 12,
    }),
    group: Flags.string({summary: 'The group the answer is for (configurations with several groups).'}),
    'sweep-storage': Flags.string({
      summary:
        'A tiered configuration (tier_strategy): the storage whose capacity the curve varies, by unique_name (default: as lmt simulate --sweep).',
    }),
    ...requestRowFlags,
    seed: Flags.string({summary: 'Seed of random_lru (decimal or 0x hex).', default: '0x12345678ABCDEF01'}),
    jobs: integerFlag({
      char: 'j',
      summary: 'Threads for the replays (default: the available cores).',
      min: 1,
      max: 256,
    }),
    'skip-invalid': Flags.boolean({
      summary: 'Count and skip invalid trace rows instead of failing.',
      default: false,
    }),
    quiet: Flags.boolean({char: 'q', summary: 'No summary lines or notices on stderr.', default: false}),
    progress: Flags.boolean({
      summary: 'Progress bar on stderr when it is a terminal.',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<ReportDocument | EventsReportDocument | TieredReportDocument> {
    const {args, flags} = await this.parse(parseOptionsForStdio(Report, this.argv))
    if (flags.trace === STDIO) flags.trace = await stdinAsFile()
    if (flags.input?.includes(STDIO)) {
      if (flags.input.filter((i) => i === STDIO).length > 1) throw lmtError('CLI_STDIN_TWICE', '-i')
      const path = await stdinAsFile()
      flags.input = flags.input.map((i) => (i === STDIO ? path : i))
    }
    if (await isEventsInput(args, flags))
      return this.page(flags, this.eventsPage(flags.input?.[0] as string, flags.output))
    checkInputFlags(args, flags)
    const request = reportRequest(flags, this.config.version)
    const json = this.jsonEnabled()
    const warn = (m: string) => (json || flags.quiet ? undefined : process.stderr.write(`warning: ${m}\n`))
    const stem = fileStem(basename(flags.trace ?? flags.input?.[0] ?? args.config ?? 'trace'))
    const output = resolve(flags.output ?? `${stem}.report.html`)
    checkOutput(output, [flags.trace, args.config, ...(flags.input ?? [])])
    const traceLabel = flags.input?.map((i) => basename(i)).join(', ')
    const converted = flags.input ? await this.converter(flags, warn) : undefined
    const run = {...request, trace: converted?.trace ?? flags.trace, traceLabel}
    if (
      args.config !== undefined &&
      isTieredConfig((await readConfigFile(args.config)).raw.instance_groups)
    ) {
      if (request.capacityBlocks !== undefined)
        throw lmtError('CLI_FLAG_NEEDS', '--capacity-blocks', 'a configuration without tier_strategy', {
          suggestions: ['a tiered configuration gives capacities in GiB: --capacity'],
        })
      if (request.bytesPerBlock !== undefined)
        throw lmtError('CLI_FLAG_NEEDS', '--kv-layout', 'a configuration without tier_strategy', {
          suggestions: [TIERED_BLOCK_BYTES_HINT],
        })
      const {config} = args
      return this.page<TieredReportDocument>(flags, {
        output,
        converted,
        build: (onProgress) =>
          buildTieredReport({...run, config, storage: flags['sweep-storage'], onProgress}),
        render: renderTieredReportHtml,
        tell: (doc) => [noticeLines(doc), tieredSummaryLines(doc)],
      })
    }
    if (flags['sweep-storage'] !== undefined)
      throw lmtError('CLI_FLAG_NEEDS', '--sweep-storage', 'a configuration with a tier_strategy')
    // a lookup-hash log: LMCache's simulator beside lmt's policies, and without --bytes-per-token or --kv-layout the
    // bytes per token of the log's first layout (LMCache's rule), so that capacities read in GiB
    const lookup = flags.input !== undefined && flags.format?.toLowerCase() === LMCACHE_FORMAT
    const layout =
      lookup && request.bytesPerToken === undefined && request.bytesPerBlock === undefined
        ? await layoutBytesPerToken(flags.input as string[])
        : undefined
    const req: ReportRequest = {
      ...run,
      ...(lookup
        ? {lmcacheLookup: {inputs: flags.input as string[], bytesPerToken: flags['bytes-per-token']}}
        : {}),
      ...(layout === undefined ? {} : {bytesPerToken: layout}),
      config: args.config,
    }
    return this.page<ReportDocument>(flags, {
      output,
      converted,
      build: (onProgress) =>
        buildReport({...req, onProgress}).catch(async (err: unknown) => {
          throw await this.notConverted(err, flags.trace)
        }),
      render: renderReportHtml,
      tell: (doc) => [noticeLines(doc), reportSummaryLines(doc)],
    })
  }

  /** `-i EVENTS.lct`: LMCache's trace info and the events replay on one page. */
  private eventsPage(file: string, outputFlag?: string): Page<EventsReportDocument> {
    const output = resolve(outputFlag ?? `${fileStem(basename(file))}.report.html`)
    checkOutput(output, [file])
    return {
      output,
      build: (onProgress) =>
        buildEventsReport({file, name: basename(file), version: this.config.version, onProgress}),
      render: renderEventsReportHtml,
      tell: (doc) => [doc.warnings.map((w) => `warning: ${w}\n`), eventsSummaryLines(doc.lmcache_trace_info)],
    }
  }

  /**
   * Converts the input when asked, builds the report and writes the page, with a progress bar and Ctrl-C handled (an
   * interrupted run leaves no page, temporary or converted trace); then, without --json or --quiet, its notices on
   * stderr, its summary lines and where it is.
   */
  private async page<D>(flags: ReportFlags, page: Page<D>): Promise<D & {output: string}> {
    const {output, converted} = page
    const json = this.jsonEnabled()
    const bar = createProgressBar({
      enabled: flags.progress && !flags.quiet && !json,
      label: 'report',
      unit: 'points',
    })
    /** a phase of the report on the bar: bytes while the trace is read, steps or points after */
    const show = (phase: string, done: number, total: number) => {
      bar.phase(phase, phase === 'reading the trace' ? 'bytes' : 'points')
      bar.update(done, total)
    }
    const stopHandling = handleInterrupts({
      json,
      cleanup: () => {
        bar.stop()
        converted?.cleanup()
      },
    })
    let doc: D
    try {
      if (converted) {
        show('converting', 0, 1)
        await converted.run()
      }
      doc = await page.build((p) => show(p.phase, p.done, p.total))
      show('writing the page', 1, 1)
      const html = page.render(doc)
      try {
        writeFileAtomic(output, html)
      } catch (err) {
        throw outputError('REPORT_OUTPUT_FAILED', `cannot write ${output}`, err)
      }
    } finally {
      bar.stop()
      stopHandling()
      converted?.cleanup()
    }
    if (!json && !flags.quiet) {
      const [notices, lines] = page.tell(doc)
      for (const n of notices) process.stderr.write(n)
      for (const line of lines) this.log(line)
      this.log(`report: ${output}`)
    }
    return {...doc, output}
  }

  /** A raw trace given as --trace: the -i … -f … that converts it on the fly (else the error as it was). */
  private async notConverted(err: unknown, trace: string | undefined): Promise<unknown> {
    if (!isLmtError(err) || err.kind !== 'SIM_TRACE_ROW' || trace === undefined) return err
    const formats = await foreignFormats(trace, async (line) => {
      const registry = await discoverWithPlugins(this.config, {}, () => {})
      return registry.recognise(line).map((r) => r.format)
    })
    if (formats.length === 0) return err
    return lmtError('SIM_TRACE_NOT_CONVERTED', basename(trace), formats, {
      suggestions: [`lmt report -i ${trace} -f ${formats[0]} (converts it on the fly)`],
      cause: err,
    })
  }

  private async converter(
    flags: {input?: string[]; format?: string; 'instance-id': string; 'instance-block-sizes'?: string},
    warn: (m: string) => void,
  ): Promise<ConvertedInput> {
    const {registration: reg} = await findConverter({format: flags.format as string}, this.config, {
      warn,
      info() {},
    })
    const inputs = expandDirectoryInputs(flags.input ?? [], reg.cls)
    flags.input = inputs
    for (const input of inputs)
      try {
        const st = lstatSync(input)
        if (!st.isFile())
          throw Object.assign(new Error('not a regular file'), {
            code: st.isDirectory() ? 'EISDIR' : undefined,
          })
      } catch (err) {
        throw lmtError('CONVERT_INPUT_UNREADABLE', input, (err as Error).message, {
          suggestions: inputReadHints(err, 'an input file'),
        })
      }
    return convertInput({
      inputs,
      converter: reg,
      instanceId: flags['instance-id'],
      instanceBlockSizes: parseInstanceBlockSizes(flags['instance-block-sizes']),
      warn,
    })
  }
}
