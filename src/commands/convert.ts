import {accessSync, constants, realpathSync, statSync} from 'node:fs'
import {cpus} from 'node:os'
import {dirname, resolve} from 'node:path'
import {type Config, Flags} from '@oclif/core'
import {handleInterrupts} from '../cli/interrupts.js'
import {startInterruptWatchdog} from '../cli/interrupt-watchdog.js'
import {countText, createProgressBar} from '../cli/progress.js'
import {LmtCommand} from '../cli/lmt-command.js'
import {StderrReporter} from '../cli/stderr-reporter.js'
import {renderInputLine, renderSummary} from '../cli/convert-report.js'
import {ConversionRun} from '../convert/conversion-run.js'
import {
  checkTimezone,
  defaultOutputPath,
  loadConverterConfig,
  parseInstanceBlockSizes,
  parseModelMapping,
} from '../convert/settings.js'
import type {ConvertSummary} from '../convert/summary.js'
import {lmtError} from '../errors.js'
import {ensureDirectory, refuseNonRegularOutput} from '../util/output-path.js'
import {discoverConverters} from '../plugins/converter-discovery.js'
import {pluginConverterSources} from '../plugins/installed-plugins.js'
import {bytesLayout, jsonlToLct, parseKvLayout} from '../convert/lct-bridge.js'
import {storageConfigDict} from '../replay/storage/config.js'
import {normalizeEvictionPolicy, storageLevel} from '../replay/storage/storage-level.js'
import {rmSync} from 'node:fs'
import {tempPathBeside} from '../convert/stale-temps.js'
import {exitProcess} from '../plugins/exit-guard.js'

const INPUT_GROUP = 'INPUT'
const TEXT_GROUP = 'TEXT CONVERSION'
const LCT_GROUP = 'LCT OUTPUT'

// the storage-manager flags of `lmt replay`, for the header config of --mode lct (same digest as such a replay)
const {
  'config-from-header': _cfh,
  'model-l1-alloc': _a,
  'model-lru-order': _o,
  'model-write-pending': _w,
  ...replayStorageFlags
} = storageLevel.flags as Record<string, never>
// without a header to take them from, the two flags a replay requires have defaults here
const lctStorageFlags = Object.fromEntries(
  Object.entries({
    ...replayStorageFlags,
    'l1-size-gb': Flags.string({summary: 'L1 size in GB for the header config (default 8).'}),
    'eviction-policy': Flags.string({
      summary: 'LRU or noop for the header config (default LRU).',
      parse: async (v) => normalizeEvictionPolicy(v),
    }),
  }).map(([name, def]) => [name, {...def, helpGroup: LCT_GROUP}]),
) as typeof replayStorageFlags

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

  static override flags = {
    input: Flags.string({
      char: 'i',
      summary: 'Input files, converted in the given order.',
      multiple: true,
      required: true,
    }),
    output: Flags.string({
      char: 'o',
      summary:
        'Output file (default: <stem>_optimizer.jsonl, or <stem>.lct with --mode lct, beside the input; merged_optimizer.jsonl for several).',
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
    'chunk-tokens': Flags.integer({
      summary:
        "Reading .lct traces (-f lmcache_lct): tokens per LMCache chunk (a get's input_len = keys × this).",
      default: 256,
      min: 1,
      helpGroup: INPUT_GROUP,
    }),
    'kv-rank': Flags.integer({
      summary: 'The kv_rank of every key written.',
      default: 0,
      helpGroup: LCT_GROUP,
    }),
    'kv-layout': Flags.string({
      summary: 'KV layout of one block: 2x36x16x8x128:bfloat16, or JSON {"shapes", "dtypes"}.',
      helpGroup: LCT_GROUP,
    }),
    'bytes-per-block': Flags.integer({
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
    'converter-dir': Flags.string({
      summary: 'A directory of extra converter modules (repeatable).',
      multiple: true,
      helpGroup: INPUT_GROUP,
    }),
    'converter-module': Flags.string({
      summary: 'An extra converter module: a file or a package (repeatable).',
      multiple: true,
      helpGroup: INPUT_GROUP,
    }),
    'converter-config-json': Flags.string({
      summary: "Settings for the converter as a JSON object (they win over the file's).",
      helpGroup: INPUT_GROUP,
    }),
    'converter-config-file': Flags.string({
      summary: 'Settings for the converter from a JSON file.',
      helpGroup: INPUT_GROUP,
    }),
    sort: Flags.boolean({
      summary: 'Merge several inputs by time; --no-sort concatenates them in the order given.',
      allowNo: true,
      default: true,
    }),
    'tokenizer-path': Flags.string({
      summary: 'Tokenizer directory (or a Hub model id with --allow-download).',
      helpGroup: TEXT_GROUP,
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
    'time-field': Flags.string({summary: 'Field holding the time.', default: 'time', helpGroup: TEXT_GROUP}),
    'content-field': Flags.string({
      summary: 'Field holding the prompt.',
      default: 'prompt_messages',
      helpGroup: TEXT_GROUP,
    }),
    'num-workers': Flags.integer({
      summary: 'Tokenizer threads; 0 = the CPUs less one.',
      default: 4,
      min: 0,
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
    timezone: Flags.string({
      summary: 'Zone of times without one: UTC, local, or an IANA name such as Asia/Shanghai.',
      default: 'UTC',
      helpGroup: TEXT_GROUP,
    }),
    'allow-download': Flags.boolean({
      summary: 'Allow fetching a tokenizer from the Hugging Face Hub.',
      default: false,
      helpGroup: TEXT_GROUP,
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

  async run(): Promise<ConvertSummary> {
    const {flags} = await this.parse(Convert)
    const reporter = new StderrReporter(flags.quiet)
    // 2. value parsing
    const instanceBlockSizes = parseInstanceBlockSizes(flags['instance-block-sizes'])
    const modelMapping = parseModelMapping(flags['model-mapping'])
    const timezone = checkTimezone(flags.timezone)
    // 3. local files only
    for (const input of flags.input) {
      if (/^https?:/i.test(input))
        throw lmtError('USAGE', `HTTP(S) inputs are not supported; download the file first: ${input}`)
    }
    // 4. discovery and format
    // plugin code can block the event loop, where lmt's Ctrl-C handler never runs: a watchdog process then ends lmt
    const watchdog = mayRunPluginCode(this.config, flags) ? startInterruptWatchdog() : undefined
    const registry = await discoverConverters({
      dirs: flags['converter-dir'],
      modules: flags['converter-module'],
      plugins: await pluginConverterSources(this.config, (m) => reporter.warn(m)),
      onWarning: (m) => reporter.warn(m),
    })
    const reg = registry.resolve(flags.format)
    if (!reg)
      throw lmtError('UNKNOWN_FORMAT', flags.format, registry.knownNames(), {
        suggestions: ['run "lmt converters" to see every format and where it comes from'],
      })
    if (reg.source === 'built-in') watchdog?.stop() // lmt's own converters always answer Ctrl-C
    // 5. inputs
    for (const input of flags.input) checkInput(input)
    // 6. output
    const lctMode = flags.mode === 'lct'
    const output =
      flags.output ??
      (lctMode
        ? defaultOutputPath(flags.input).replace(/_optimizer\.jsonl$/, '.lct')
        : defaultOutputPath(flags.input))
    checkOutput(output, flags.input)
    let lct: Parameters<typeof jsonlToLct>[2] | undefined
    if (lctMode) {
      if (flags['kv-layout'] !== undefined && flags['bytes-per-block'] !== undefined)
        throw lmtError('USAGE', '--kv-layout and --bytes-per-block are mutually exclusive')
      const layout =
        flags['kv-layout'] !== undefined
          ? parseKvLayout(flags['kv-layout'])
          : bytesLayout(flags['bytes-per-block'] ?? 65536)
      const tWall = flags['t-wall-start'] === undefined ? undefined : Number(flags['t-wall-start'])
      if (tWall !== undefined && !Number.isFinite(tWall))
        throw lmtError('USAGE', '--t-wall-start must be a number of epoch seconds')
      const sf = flags as unknown as Record<string, unknown>
      const storage = storageLevel.parseConfig(
        {...sf, 'l1-size-gb': sf['l1-size-gb'] ?? '8', 'eviction-policy': sf['eviction-policy'] ?? 'LRU'},
        undefined as never,
        (m) => reporter.warn(m),
      )
      lct = {
        modelName: flags['model-name'],
        kvRank: flags['kv-rank'],
        layout,
        tWallStart: tWall,
        configDict: storageConfigDict(storage.config),
      }
    }
    // 7. converter config
    const converterConfig = loadConverterConfig(
      flags['converter-config-file'],
      flags['converter-config-json'],
    )

    const bar = createProgressBar({
      enabled: flags.progress && !flags.quiet,
      label: 'converting',
      unit: 'bytes',
    })
    reporter.beforeWrite = () => bar.clearLine()
    const controller = new AbortController()
    const jsonlOutput = lctMode ? tempPathBeside(resolve(output)) : output
    const run = new ConversionRun({
      inputs: flags.input,
      output: jsonlOutput,
      format: reg.format,
      converterClass: reg.cls,
      converterSource: reg.source,
      converterPath: reg.path,
      options: {
        defaultInstanceId: flags['instance-id'],
        instanceBlockSizes,
        mode: 'optimizer',
        ...(converterConfig === undefined ? {} : {converterConfig}),
        tokenizerPath: flags['tokenizer-path'],
        modelName: flags['model-name'],
        modelMapping,
        timeField: flags['time-field'],
        contentField: flags['content-field'],
        numWorkers: flags['num-workers'] === 0 ? Math.max(1, cpus().length - 1) : flags['num-workers'],
        ignoreResponse: flags['ignore-response'],
        truncate: flags.truncate,
        timezone,
        allowDownload: flags['allow-download'],
        chunkTokens: flags['chunk-tokens'],
      },
      sort: flags.sort,
      strict: flags.strict,
      logger: reporter,
      signal: controller.signal,
      onProgress: (p) => bar.update(p.bytesDone, p.bytesTotal, `${countText(p.traces)} traces`),
      onInputDone: (s) => reporter.info(renderInputLine(s)),
    })
    const lctTemps = new Set<string>() // the .lct being written, while it is
    const stopHandling = handleInterrupts({
      exit: (code) => exitProcess(code), // Node's own exit, even if a plugin replaced process.exit
      json: this.jsonEnabled(),
      cleanup: () => {
        controller.abort()
        bar.stop()
        run.cleanupSync()
        if (lctMode) rmSync(jsonlOutput, {force: true})
        for (const t of lctTemps) rmSync(t, {force: true})
      },
    })
    try {
      if (reg.source !== 'built-in') await watchdog?.ready
      // the banner comes once an interruption is handled: from here on, Ctrl-C cleans up
      reporter.info(`lmt convert: format ${reg.format} (${reg.className} from ${reg.source})`)
      const sizes = [...instanceBlockSizes].map(([id, n]) => `${id}=${n}`).join(', ')
      reporter.info(
        `  instance id: ${flags['instance-id']}; block sizes: ${sizes || '(converter default)'}; truncate: ${flags.truncate}; ` +
          `model mapping: ${modelMapping ? [...modelMapping].map(([a, b]) => `${a}→${b}`).join(', ') : 'none'}`,
      )
      const summary = await run.run()
      if (lct) {
        try {
          const jsonlBytes = statSync(jsonlOutput).size
          bar.phase('writing .lct', 'bytes')
          const bridged = await jsonlToLct(
            jsonlOutput,
            output,
            {
              ...lct,
              onProgress: (bytes, records) => bar.update(bytes, jsonlBytes, `${countText(records)} records`),
            },
            lctTemps,
          )
          bar.stop()
          summary.output = output
          reporter.info(
            `  .lct: ${bridged.records} records (${bridged.gets} gets, ${bridged.writes} writes${bridged.skipped ? `, ${bridged.skipped} not mappable` : ''})`,
          )
        } finally {
          rmSync(jsonlOutput, {force: true})
        }
      }
      bar.stop()
      // the whole command, bridging included: the figure a user's clock shows (less the process start-up)
      summary.elapsedMs = Math.round(performance.now() - this.startedAt)
      for (const line of renderSummary(summary)) reporter.info(line)
      return summary
    } finally {
      bar.stop()
      watchdog?.stop()
      stopHandling()
    }
  }
}

/** Whether a conversion may run third-party code: a converter flag, or an installed plugin. */
function mayRunPluginCode(
  config: Config,
  flags: {'converter-dir'?: string[]; 'converter-module'?: string[]},
): boolean {
  if ((flags['converter-dir']?.length ?? 0) > 0 || (flags['converter-module']?.length ?? 0) > 0) return true
  return config.getPluginsList().some((p) => p.name !== config.name && p.type !== 'core')
}

function checkInput(input: string): void {
  let st
  try {
    st = statSync(input)
  } catch {
    throw lmtError('INPUT_NOT_FOUND', `input not found: ${input}`, {
      suggestions: ['check the path; inputs are local files'],
    })
  }
  if (!st.isFile()) throw lmtError('INPUT_NOT_FOUND', `cannot read ${input}: not a regular file`)
  try {
    accessSync(input, constants.R_OK)
  } catch (err) {
    throw lmtError('INPUT_NOT_FOUND', `cannot read ${input}: ${(err as Error).message}`)
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
    throw lmtError('USAGE', `output ${output} is a directory`, {suggestions: ['pass a file path with -o']})
  const target = realOrResolved(output)
  for (const input of inputs) {
    if (realOrResolved(input) === target)
      throw lmtError('USAGE', `output ${output} is the same file as input ${input}`, {
        suggestions: ['choose another -o path'],
      })
  }
  refuseNonRegularOutput(output)
  ensureDirectory(dirname(resolve(output)), 'OUTPUT_FAILED')
}
