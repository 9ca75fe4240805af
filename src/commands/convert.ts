import {accessSync, constants, createReadStream, realpathSync, rmSync, statSync} from 'node:fs'
import {once} from 'node:events'
import {cpus} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {privateTempDir, STDIO, stdinAsFile} from '../cli/stdin-file.js'
import {LineReader} from '../jsonl/line-reader.js'
import {Flags, type Interfaces} from '@oclif/core'
import {handleInterrupts} from '../cli/interrupts.js'
import {integerFlag, numberFlag} from '../util/number-flags.js'
import {countText, createProgressBar, type ProgressBar} from '../cli/progress.js'
import {LmtCommand} from '../cli/lmt-command.js'
import {StderrReporter} from '../cli/stderr-reporter.js'
import {renderInputLine, renderSummary} from '../cli/convert-report.js'
import {ConversionRun, type ConvertRequest} from '../convert/conversion-run.js'
import {converterConfigFlags, converterSourceFlags} from '../cli/converter-flags.js'
import {withoutUnknownFlags} from '../cli/known-flags-argv.js'
import {
  defaultOutputPath,
  loadConverterConfig,
  parseInstanceBlockSizes,
  parseModelMapping,
} from '../convert/settings.js'
import type {ConvertSummary} from '../convert/summary.js'
import {lmtError} from '../errors.js'
import {ensureDirectory, refuseNonRegularOutput, sameFile} from '../util/output-path.js'
import {discoverConverters, pluginConverterSources} from '../plugins/converter-discovery.js'
import type {ConverterRegistration, ConverterRegistry} from '../plugins/converter-registry.js'
import type {jsonlToLct} from '../convert/lct-bridge.js'
import {bytesLayout, parseKvLayout} from '../convert/kv-layout.js'
// the flags only: the storage level, its configuration and the .lct bridge are loaded by a --mode lct run
import {normalizeEvictionPolicy, storageFlags} from '../replay/storage/storage-flags.js'
import {converterFlagsOf, converterSettings, foreignConverterFlag} from '../plugins/converter-flags.js'
import {tempPathBeside} from '../convert/stale-temps.js'
import {expandDirectoryInputs} from '../convert/directory-inputs.js'

const INPUT_GROUP = 'INPUT'
const TEXT_GROUP = 'TEXT CONVERSION' // the text_trace converter's flags are in this group too
const LCT_GROUP = 'LCT OUTPUT'

// the storage-manager flags of `lmt replay`, for the header config of --mode lct (same digest as such a replay)
const {
  'config-from-header': _cfh,
  'model-l1-alloc': _a,
  'model-lru-order': _o,
  'model-write-pending': _w,
  ...replayStorageFlags
} = storageFlags
// without a header to take them from, the two flags a replay requires have defaults here
const lctStorageFlags = Object.fromEntries(
  Object.entries({
    ...replayStorageFlags,
    'l1-size-gb': Flags.string({summary: 'L1 size in GiB (2^30 bytes) for the header config (default 8).'}),
    'eviction-policy': Flags.string({
      summary: 'LRU or noop for the header config (default LRU).',
      parse: async (v) => normalizeEvictionPolicy(v),
    }),
  }).map(([name, def]) => [name, {...def, helpGroup: LCT_GROUP}]),
) as typeof replayStorageFlags

/** The flags of every conversion; a converter adds its own (--help lists the built-ins'). */
const convertFlags = {
  input: Flags.string({
    char: 'i',
    summary: 'Input files, converted in the given order (gzip or zstd compressed too; - for standard input).',
    multiple: true,
    required: true,
  }),
  output: Flags.string({
    char: 'o',
    summary:
      'Output file; - for standard output (default: <stem>_optimizer.jsonl, or <stem>.lct with --mode lct, in the current folder; merged_optimizer.jsonl for several).',
  }),
  format: Flags.string({
    char: 'f',
    summary: 'Input format: a format name or alias (see "lmt converters").',
    required: true,
  }),
  mode: Flags.string({
    summary: 'Output: optimizer (Get+Write JSONL) or lct (an LMCache storage .lct trace).',
    options: ['optimizer', 'lct'],
    default: 'optimizer',
  }),
  't-wall-start': Flags.string({
    summary: "Wall-clock time of the first record in epoch seconds (default: each record's own timestamp).",
    helpGroup: LCT_GROUP,
  }),
  'kv-rank': integerFlag({
    summary: 'The kv_rank of every key written.',
    min: 0,
    default: 0,
    helpGroup: LCT_GROUP,
  }),
  'kv-layout': Flags.string({
    summary: 'KV layout of one block: 2x36x16x8x128:bfloat16, or JSON {"shapes", "dtypes"}.',
    helpGroup: LCT_GROUP,
  }),
  'bytes-per-block': integerFlag({
    summary: 'Bytes of one block, instead of --kv-layout (default 65536).',
    min: 1,
    helpGroup: LCT_GROUP,
  }),
  ...lctStorageFlags,
  'instance-id': Flags.string({
    summary: 'Instance id of the traces of formats that have none.',
    default: 'instance',
    helpGroup: INPUT_GROUP,
  }),
  'instance-block-sizes': Flags.string({
    summary: "Tokens per block per instance, id:n[,id:n…] (default: the format's, e.g. 512 for mooncake).",
    helpGroup: INPUT_GROUP,
  }),
  ...converterSourceFlags(INPUT_GROUP),
  ...converterConfigFlags(INPUT_GROUP),
  sort: Flags.boolean({
    summary: 'Merge several inputs by time; --no-sort concatenates them in the order given.',
    allowNo: true,
    default: true,
  }),
  'model-name': Flags.string({
    summary:
      'Text: the tokenizer in ./model/<name> if that directory exists; --mode lct: the model name of every key.',
    helpGroup: TEXT_GROUP,
  }),
  'model-mapping': Flags.string({
    summary: 'Model names to rename, a:b[,c:d…] (for custom converters; the built-in ones ignore it).',
    helpGroup: INPUT_GROUP,
  }),
  'num-workers': integerFlag({
    summary: 'Worker threads for the converter (text_trace: tokenizer threads); 0 = the CPUs less one.',
    default: 4,
    min: 0,
    minMeans: 'the CPUs less one',
    max: 256,
    helpGroup: TEXT_GROUP,
  }),
  'ignore-response': Flags.boolean({
    summary: 'Leave responses out (for custom converters; the built-in ones ignore it).',
    default: false,
    helpGroup: INPUT_GROUP,
  }),
  truncate: Flags.boolean({
    summary: 'Truncation on or off (--no-truncate) for custom converters; the built-in ones ignore it.',
    allowNo: true,
    default: true,
    helpGroup: INPUT_GROUP,
  }),
  strict: Flags.boolean({summary: 'The first bad input line is a fatal error.', default: false}),
  progress: Flags.boolean({
    summary: 'Progress bar on stderr (only when it is a terminal).',
    allowNo: true,
    default: true,
  }),
  quiet: Flags.boolean({
    char: 'q',
    summary: 'No progress, no informational lines, no per-line warnings (still counted).',
    default: false,
  }),
}

export default class Convert extends LmtCommand {
  static override summary = 'Convert request traces to the Optimizer standard Get+Write JSONL'

  static override description = `Reads one or more inputs with a converter (a plugin found by its class name: FooConverter is format "foo"), sorts each input stably by timestamp_ns, merges the inputs by time (or concatenates them with --no-sort) and writes the output atomically. Output bytes are identical to Alibaba's original Python converter. Human-readable text goes to stderr; stdout carries only the --json summary. Run "lmt converters" to list formats.`

  // every example runs as shown from any folder: its inputs ship with lmt (config.root), its outputs go to the
  // current folder
  static override examples = [
    {
      description: 'A KVCM event-publisher log (without -o: publisher_optimizer.jsonl beside the input)',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/event_publisher.log -f publisher_log -o publisher_optimizer.jsonl',
    },
    {
      description: 'A Qwen-Bailian trace for one instance with 32-token blocks',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/qwen_bailian_sample.jsonl -o qwen_optimizer.jsonl -f qwen_bailian --instance-id my_instance --instance-block-sizes my_instance:32',
    },
    {
      description: "A Mooncake FAST'25 trace (ms timestamps, 512-token blocks)",
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/mooncake_conversation_trace.jsonl -f mooncake -o mooncake_optimizer.jsonl',
    },
    {
      description: 'Two inputs merged by time',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/mooncake_conversation_trace.jsonl <%= config.root %>/samples/mooncake_synthetic_trace.jsonl -f mooncake -o merged_optimizer.jsonl',
    },
    {
      description: 'A converter of your own (a module file), the summary as JSON',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/examples/lmt-plugin-example/samples/lookups.jsonl -f lookup_hash_log --converter-module <%= config.root %>/examples/lmt-plugin-example/converters/lookup-hash-log.js -o lookups_optimizer.jsonl --json',
    },
    {
      description: 'An LMCache storage .lct trace of the same requests, for lmt replay',
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/mooncake_conversation_trace.jsonl -f mooncake --mode lct -o mooncake.lct --kv-layout 2x36x512x8x128:bfloat16 --l1-size-gb 64',
    },
  ]

  static override usage = '<%= command.id %> -i FILE... -f FORMAT [-o FILE] [--mode optimizer|lct] [FLAGS]'

  static override enableJsonFlag = true

  static override flags = convertFlags

  async run(): Promise<ConvertSummary> {
    const plan = await this.plan()
    const summary = await this.convert(plan)
    if (plan.toStdout) await copyToStdout(plan.output)
    return summary
  }

  /**
   * Parse in two phases, as `lmt replay` does: the command's flags (and the built-in converters') loosely, to learn
   * the format and where converters come from; then, once the converter is known, strictly with its own flags. A
   * flag of another format is a usage error naming that format. Then the checks, in the documented order.
   */
  private async plan(): Promise<ConvertPlan> {
    const argv = [...this.argv]
    // a flag of a converter not yet discovered is passed over here, not an error
    const loose = {flags: Convert.flags, enableJsonFlag: true, args: {}, strict: false}
    const first = (await this.parse(loose, withoutUnknownFlags(argv, Convert.flags))).flags
    // under --json the document on stdout is the summary: stderr keeps the warnings only, as in every command
    const reporter = new StderrReporter(first.quiet, process.stderr, !first.json)
    // value parsing, then local files only
    const instanceBlockSizes = parseInstanceBlockSizes(first['instance-block-sizes'])
    const modelMapping = parseModelMapping(first['model-mapping'])
    for (const input of first.input) {
      if (/^https?:/i.test(input)) throw lmtError('CONVERT_REMOTE_INPUT', input)
    }
    const {registration: reg, registry} = await this.converter(first, reporter)
    const flags = await this.parseWithConverter(argv, reg, registry, reporter)
    const given = flags.input.map((i) => (i === STDIO ? 'stdin' : i)) // names the default output (a folder by its name)
    if (flags.input.filter((i) => i === STDIO).length > 1) throw lmtError('CLI_STDIN_TWICE', '-i')
    const toStdout = flags.output === STDIO
    if (toStdout && this.jsonEnabled())
      throw lmtError('CLI_FLAGS_EXCLUSIVE', '-o -', '--json', {
        suggestions: [
          'standard output carries the converted records: write them to a file to have the --json summary',
        ],
      })
    const stdinPath = flags.input.includes(STDIO) ? await stdinAsFile() : undefined
    flags.input = expandDirectoryInputs(
      flags.input.map((i) => (i === STDIO ? (stdinPath as string) : i)),
      reg.cls,
    )
    for (const input of flags.input) checkInput(input)
    const lctMode = flags.mode === 'lct'
    if (!lctMode) {
      // the .lct output's flags mean nothing to a JSONL output: refused, as other formats' flags are
      const lctFlag = lctFlagGiven(argv)
      if (lctFlag)
        throw lmtError('CLI_FLAG_NEEDS', `--${lctFlag}`, '--mode lct', {
          suggestions: ['add --mode lct to write an LMCache .lct trace, or drop the flag'],
        })
      if (flags.output !== undefined && /\.lct$/i.test(flags.output))
        reporter.warn(
          `${flags.output} ends in .lct but the output is Get+Write JSONL; hint: add --mode lct to write an LMCache .lct trace`,
        )
    }
    const output = toStdout
      ? join(privateTempDir(), lctMode ? 'output.lct' : 'output.jsonl')
      : (flags.output ??
        (lctMode ? defaultOutputPath(given).replace(/_optimizer\.jsonl$/, '.lct') : defaultOutputPath(given)))
    checkOutput(output, flags.input)
    const lct = lctMode ? await lctSettings(flags, reporter) : undefined
    const converterConfig = loadConverterConfig(
      flags['converter-config-file'],
      flags['converter-config-json'],
    )
    const settings = converterSettings(reg, flags, converterConfig)
    if (reg.format === 'qwen_bailian' && !instanceBlockSizes.has(flags['instance-id']))
      for (const input of flags.input)
        if (await looksLikeMooncake(input))
          reporter.warn(
            `${input} looks like a Mooncake trace (about one id per 512 tokens, where qwen_bailian reads one per 16); hint: use -f mooncake (512-token blocks, timestamps in ms)`,
          )
    return {
      flags,
      reg,
      reporter,
      output,
      toStdout,
      lct,
      instanceBlockSizes,
      modelMapping,
      converterConfig,
      settings,
    }
  }

  /** Discovery, then the converter of -f (an unknown format is a usage error listing the known ones). */
  private async converter(
    flags: {format: string; 'converter-dir'?: string[]; 'converter-module'?: string[]},
    reporter: StderrReporter,
  ): Promise<{registration: ConverterRegistration; registry: ConverterRegistry}> {
    const registry = await discoverConverters({
      dirs: flags['converter-dir'],
      modules: flags['converter-module'],
      plugins: await pluginConverterSources(this.config, (m) => reporter.warn(m)),
      onWarning: (m) => reporter.warn(m),
    })
    const registration = registry.resolve(flags.format)
    if (!registration)
      throw lmtError('CONVERT_UNKNOWN_FORMAT', flags.format, registry.knownNames(), {
        suggestions: ['run "lmt converters" to see every format and where it comes from'],
      })
    return {registration, registry}
  }

  /** The strict parse: the command's flags and the chosen converter's own. */
  private async parseWithConverter(
    argv: string[],
    reg: ConverterRegistration,
    registry: ConverterRegistry,
    reporter: StderrReporter,
  ): Promise<ParsedConvertFlags> {
    const commandNames = new Set([...Object.keys(convertFlags), 'json', 'help'])
    const own = converterFlagsOf(reg, commandNames, (m) => reporter.warn(m))
    const foreign = foreignConverterFlag(argv, registry, reg, new Set([...commandNames, ...Object.keys(own)]))
    if (foreign) throw foreign
    const parsed = await this.parse(
      {
        flags: {...(own as typeof convertFlags), ...convertFlags},
        enableJsonFlag: true,
        args: {},
        strict: true,
      },
      argv,
    )
    return parsed.flags as ParsedConvertFlags
  }

  /** The conversion (and with --mode lct the .lct written from its output), Ctrl-C handled throughout. */
  private async convert(plan: ConvertPlan): Promise<ConvertSummary> {
    const {flags, reg, reporter, output, lct} = plan
    const bar = createProgressBar({
      enabled: flags.progress && !flags.quiet && !this.jsonEnabled(),
      label: 'converting',
      unit: 'bytes',
    })
    reporter.beforeWrite = () => bar.clearLine()
    const controller = new AbortController()
    const jsonlOutput = lct ? tempPathBeside(resolve(output)) : output
    const run = new ConversionRun({
      inputs: flags.input,
      output: jsonlOutput,
      format: reg.format,
      converterClass: reg.cls,
      converterSource: reg.source,
      converterPath: reg.path,
      options: converterOptions(plan),
      sort: flags.sort,
      strict: flags.strict,
      logger: reporter,
      signal: controller.signal,
      onProgress: (p) => bar.update(p.bytesDone, p.bytesTotal, () => `${countText(p.traces)} traces`),
      onInputDone: (s) => reporter.info(renderInputLine(s)),
    })
    const lctTemps = new Set<string>() // the .lct being written, while it is
    const stopHandling = handleInterrupts({
      exit: (code) => process.exit(code),
      json: this.jsonEnabled(),
      cleanup: () => {
        controller.abort()
        bar.stop()
        run.cleanupSync()
        if (lct) rmSync(jsonlOutput, {force: true})
        for (const t of lctTemps) rmSync(t, {force: true})
      },
    })
    try {
      // the banner comes once an interruption is handled: from here on, Ctrl-C cleans up
      for (const line of bannerLines(plan)) reporter.info(line)
      const summary = await run.run()
      if (lct) await writeLct(jsonlOutput, output, lct, {bar, reporter, temps: lctTemps, summary})
      bar.stop()
      // the whole command, bridging included: the figure a user's clock shows (less the process start-up)
      summary.elapsedMs = Math.round(performance.now() - this.startedAt)
      // performance.now() counts from process start: the closing time is the whole command's
      for (const line of renderSummary(summary, {inputsShown: true, elapsedMs: performance.now()}))
        reporter.info(line)
      return summary
    } finally {
      bar.stop()
      stopHandling()
    }
  }
}

type ParsedConvertFlags = Interfaces.InferredFlags<typeof convertFlags>

type ConversionRunOptions = ConvertRequest['options']

type LctSettings = Parameters<typeof jsonlToLct>[2]

interface ConvertPlan {
  flags: ParsedConvertFlags
  reg: ConverterRegistration
  reporter: StderrReporter
  output: string
  /** `-o -`: the output is written to a private temporary file, then copied to standard output */
  toStdout: boolean
  lct?: LctSettings
  instanceBlockSizes: Map<string, number>
  modelMapping?: Map<string, string>
  converterConfig?: Record<string, unknown>
  settings: unknown
}

/** What the converter is constructed with (docs/convert.md §4.1). */
function converterOptions(plan: ConvertPlan): ConversionRunOptions {
  const {flags, converterConfig} = plan
  return {
    defaultInstanceId: flags['instance-id'],
    instanceBlockSizes: plan.instanceBlockSizes,
    mode: 'optimizer',
    ...(converterConfig === undefined ? {} : {converterConfig}),
    ...(plan.settings === undefined ? {} : {settings: plan.settings}),
    modelMapping: plan.modelMapping,
    numWorkers: flags['num-workers'] === 0 ? Math.max(1, cpus().length - 1) : flags['num-workers'],
    ignoreResponse: flags['ignore-response'],
    truncate: flags.truncate,
  }
}

/** The banner's lines: the converter, then the instance, block sizes, truncation and model mapping. */
function bannerLines({reg, flags, instanceBlockSizes, modelMapping}: ConvertPlan): string[] {
  const sizes = [...instanceBlockSizes].map(([id, n]) => `${id}=${n}`).join(', ')
  return [
    `lmt convert: format ${reg.format} (${reg.className} from ${reg.source})`,
    `  instance id: ${flags['instance-id']}; block sizes: ${sizes || '(converter default)'}; truncate: ${flags.truncate}; ` +
      `model mapping: ${modelMapping ? [...modelMapping].map(([a, b]) => `${a}→${b}`).join(', ') : 'none'}`,
  ]
}

/** --mode lct: the layout, the start time and the storage config of the header (as `lmt replay` would digest it). */
async function lctSettings(flags: ParsedConvertFlags, reporter: StderrReporter): Promise<LctSettings> {
  if (flags['kv-layout'] !== undefined && flags['bytes-per-block'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--kv-layout', '--bytes-per-block')
  const layout =
    flags['kv-layout'] !== undefined
      ? parseKvLayout(flags['kv-layout'])
      : bytesLayout(flags['bytes-per-block'] ?? 65536)
  const tWall = numberFlag('t-wall-start', flags['t-wall-start'], {
    min: 0,
    words: 'a number of epoch seconds',
  })
  if (tWall !== undefined && !Number.isFinite(tWall))
    throw lmtError('CLI_OUT_OF_RANGE', '--t-wall-start', 'a number of epoch seconds')
  const sf = flags as unknown as Record<string, unknown>
  const {storageLevel} = await import('../replay/storage/storage-level.js')
  const {storageConfigDict} = await import('../replay/storage/config.js')
  const storage = storageLevel.parseConfig(
    {...sf, 'l1-size-gb': sf['l1-size-gb'] ?? '8', 'eviction-policy': sf['eviction-policy'] ?? 'LRU'},
    undefined as never,
    (m) => reporter.warn(m),
  )
  return {
    modelName: flags['model-name'],
    kvRank: flags['kv-rank'],
    layout,
    tWallStart: tWall,
    configDict: storageConfigDict(storage.config),
  }
}

/** Writes the .lct from the conversion's JSONL output (then removed), and says what it holds. */
async function writeLct(
  jsonlOutput: string,
  output: string,
  lct: LctSettings,
  o: {bar: ProgressBar; reporter: StderrReporter; temps: Set<string>; summary: ConvertSummary},
): Promise<void> {
  try {
    const jsonlBytes = statSync(jsonlOutput).size
    o.bar.phase('writing .lct', 'bytes')
    const {jsonlToLct} = await import('../convert/lct-bridge.js')
    const bridged = await jsonlToLct(
      jsonlOutput,
      output,
      {
        ...lct,
        onProgress: (bytes, records) =>
          o.bar.update(bytes, jsonlBytes, () => `${countText(records)} records`),
      },
      o.temps,
    )
    o.bar.stop()
    o.summary.output = output
    o.reporter.info(
      `  .lct: ${bridged.records} records (${bridged.gets} gets, ${bridged.writes} writes${bridged.skipped ? `, ${bridged.skipped} not mappable` : ''})`,
    )
  } finally {
    rmSync(jsonlOutput, {force: true})
  }
}

/**
 * Whether the first rows of an input have far fewer hash ids than 16-token blocks (at most one per 128 tokens, in
 * nine rows of ten of those long enough to tell, among its first 1,000 lines): the shape of a Mooncake trace given
 * to qwen_bailian.
 */
async function looksLikeMooncake(path: string): Promise<boolean> {
  let rows = 0
  let sparse = 0
  let lines = 0
  try {
    for await (const line of new LineReader(path, {tooLong: () => {}, invalidUtf8: () => {}}).lines()) {
      if (rows >= 200 || ++lines > 1000) break
      let row: {input_length?: unknown; hash_ids?: unknown}
      try {
        row = JSON.parse(line.text) as typeof row
      } catch {
        continue
      }
      if (typeof row.input_length !== 'number' || !Array.isArray(row.hash_ids) || row.input_length < 1024)
        continue
      rows++
      if (row.hash_ids.length * 128 <= row.input_length) sparse++
    }
  } catch {
    return false // the conversion reports an unreadable input
  }
  return rows >= 5 && sparse >= 0.9 * rows
}

/** The first flag of the .lct output (LCT OUTPUT in --help) on a command line, by its long name; or undefined. */
function lctFlagGiven(argv: readonly string[]): string | undefined {
  const names = Object.entries(convertFlags)
    .filter(([, def]) => (def as {helpGroup?: string}).helpGroup === LCT_GROUP)
    .map(([name]) => name)
  for (const a of argv) {
    if (a === '--') break
    const m = /^--([^=]+)/.exec(a)
    if (m && names.includes(m[1])) return m[1]
  }
  return undefined
}

/** A finished output copied to standard output (a reader that stops early ends the copy, not lmt with an error). */
async function copyToStdout(path: string): Promise<void> {
  for await (const chunk of createReadStream(path, {highWaterMark: 1 << 20})) {
    if (!process.stdout.write(chunk as Buffer)) {
      const stop = await Promise.race([
        once(process.stdout, 'drain').then(() => false),
        once(process.stdout, 'error').then(() => true),
      ])
      if (stop) return
    }
  }
}

function checkInput(input: string): void {
  let st
  try {
    st = statSync(input)
  } catch {
    throw lmtError('CONVERT_INPUT_NOT_FOUND', input, {
      suggestions: ['check the path; inputs are local files'],
    })
  }
  if (!st.isFile()) throw lmtError('CONVERT_INPUT_UNREADABLE', input, 'not a regular file')
  try {
    accessSync(input, constants.R_OK)
  } catch (err) {
    throw lmtError('CONVERT_INPUT_UNREADABLE', input, (err as Error).message)
  }
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

function checkOutput(output: string, inputs: readonly string[]): void {
  let st
  try {
    st = statSync(output)
  } catch {
    st = undefined
  }
  if (st?.isDirectory())
    throw lmtError('CONVERT_OUTPUT_IS_DIRECTORY', output, {suggestions: ['pass a file path with -o']})
  const target = realOrResolved(output)
  for (const input of inputs) {
    // the same path through links, or the same file by device and inode (a hard link)
    if (realOrResolved(input) === target || sameFile(input, output))
      throw lmtError('CONVERT_OUTPUT_IS_INPUT', output, input, {
        suggestions: ['choose another -o path'],
      })
  }
  refuseNonRegularOutput(output)
  ensureDirectory(dirname(resolve(output)), 'CONVERT_OUTPUT_FAILED')
}
