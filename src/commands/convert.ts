import {accessSync, constants, mkdirSync, realpathSync, statSync} from 'node:fs'
import {cpus} from 'node:os'
import {dirname, resolve} from 'node:path'
import {Flags} from '@oclif/core'
import {handleInterrupts} from '../cli/interrupts.js'
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
import {discoverConverters} from '../plugins/converter-discovery.js'
import {pluginConverterSources} from '../plugins/installed-plugins.js'
import {bytesLayout, jsonlToLct, parseKvLayout} from '../convert/lct-bridge.js'
import {storageConfigDict} from '../replay/storage/config.js'
import {storageLevel} from '../../plugins/levels/storage.js'
import {randomBytes} from 'node:crypto'
import {basename as pathBasename, join as pathJoin} from 'node:path'
import {rmSync} from 'node:fs'

// the storage-manager flags of `lmt replay`, for the header config of --mode lct (same digest as such a replay)
const {
  'config-from-header': _cfh,
  'model-l1-alloc': _a,
  'model-lru-order': _o,
  'model-write-pending': _w,
  ...replayStorageFlags
} = storageLevel.flags as Record<string, never>
// without a header to take them from, the two flags a replay requires have defaults here
const lctStorageFlags = {
  ...replayStorageFlags,
  'l1-size-gb': Flags.string({summary: 'lct mode: L1 size in GB for the header config (default 8).'}),
  'eviction-policy': Flags.string({summary: 'lct mode: LRU or noop for the header config (default LRU).'}),
}

export default class Convert extends LmtCommand {
  static override summary = 'Convert request traces to the Optimizer standard Get+Write JSONL'

  static override description = `Reads one or more inputs with a converter (a plugin found by its class name: FooConverter is
format "foo"), sorts each input stably by timestamp_ns, merges the inputs by time (or concatenates them with
--no-sort) and writes the output atomically. Output bytes are identical to Alibaba's original Python converter.
Human-readable text goes to stderr; stdout carries only the --json summary. Run "lmt converters" to list formats.`

  static override examples = [
    {
      description: 'A KVCM event-publisher log (output: publisher_optimizer.jsonl beside the input)',
      command: '<%= config.bin %> <%= command.id %> -i publisher.log -f publisher_log',
    },
    {
      description: 'A Qwen-Bailian trace for one instance with 32-token blocks',
      command:
        '<%= config.bin %> <%= command.id %> -i qwen.jsonl -o out.jsonl -f qwen_bailian --instance-id my_instance --instance-block-sizes my_instance:32',
    },
    {
      description: "A Mooncake FAST'25 trace (ms timestamps, 512-token blocks)",
      command: '<%= config.bin %> <%= command.id %> -i conversation_trace.jsonl -f mooncake',
    },
    {
      description: 'Two inputs merged by time into <dir of a.jsonl>/merged_optimizer.jsonl',
      command: '<%= config.bin %> <%= command.id %> -i a.jsonl b.jsonl -f qwen_bailian',
    },
    {
      description: 'Your own converter module with a config, summary as JSON',
      command: `<%= config.bin %> <%= command.id %> -i in.jsonl -f my --converter-module ./my_converter.js --converter-config-json '{"field":"x"}' --json`,
    },
  ]

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
      summary: 'Output file (default: <stem>_optimizer.jsonl beside the input, or merged_optimizer.jsonl).',
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
      summary: 'lct mode: t_wall of the first record (epoch s); default: each timestamp.',
    }),
    'chunk-tokens': Flags.integer({
      summary: 'lmcache_lct: tokens per LMCache chunk (input_len = keys × this).',
      default: 256,
      min: 1,
    }),
    'kv-rank': Flags.integer({summary: 'lct mode: ObjectKey kv_rank.', default: 0}),
    'kv-layout': Flags.string({
      summary: 'lct mode: per-block KV layout, JSON {"shapes","dtypes"} or 2x36x16x8x128:bfloat16.',
    }),
    'bytes-per-block': Flags.integer({
      summary: 'lct mode: bytes of one block (instead of --kv-layout).',
      min: 1,
    }),
    ...lctStorageFlags,
    'instance-id': Flags.string({summary: 'Instance id for formats without one.', default: 'instance'}),
    'instance-block-sizes': Flags.string({summary: 'Per-instance block sizes in tokens: id:n[,id:n…].'}),
    'converter-dir': Flags.string({
      summary: 'Extra directory of converter modules (repeatable).',
      multiple: true,
    }),
    'converter-module': Flags.string({
      summary: 'Extra converter module: a file or a package (repeatable).',
      multiple: true,
    }),
    'converter-config-json': Flags.string({
      summary: 'Converter config as a JSON object (overrides file keys).',
    }),
    'converter-config-file': Flags.string({summary: 'Converter config from a JSON file.'}),
    sort: Flags.boolean({
      summary: 'Merge inputs by time; --no-sort concatenates them in input order.',
      allowNo: true,
      default: true,
    }),
    'tokenizer-path': Flags.string({
      summary: 'text_trace: tokenizer directory (or Hub model id with --allow-download).',
    }),
    'model-name': Flags.string({
      summary: 'text_trace: use ./model/<name> if that directory exists; lct mode: ObjectKey model_name.',
    }),
    'model-mapping': Flags.string({summary: 'a:b[,c:d…], passed to converters.'}),
    'time-field': Flags.string({summary: 'text_trace: field holding the time.', default: 'time'}),
    'content-field': Flags.string({
      summary: 'text_trace: field holding the prompt.',
      default: 'prompt_messages',
    }),
    'num-workers': Flags.integer({
      summary: 'text_trace tokenization threads; 0 = CPUs − 1.',
      default: 4,
      min: 0,
    }),
    'ignore-response': Flags.boolean({summary: 'Passed to converters (ignoreResponse).', default: false}),
    truncate: Flags.boolean({
      summary: 'Passed to converters; --no-truncate gives truncate: false.',
      allowNo: true,
      default: true,
    }),
    timezone: Flags.string({
      summary: 'text_trace: zone of naive times: UTC, local, or an IANA name.',
      default: 'UTC',
    }),
    'allow-download': Flags.boolean({
      summary: 'text_trace: allow fetching a tokenizer from the Hub.',
      default: false,
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
    const jsonlOutput = lctMode
      ? pathJoin(dirname(resolve(output)), `.${pathBasename(output)}.jsonl-${randomBytes(6).toString('hex')}`)
      : output
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
    const stopHandling = handleInterrupts({
      exit: (code) => process.exit(code),
      json: this.jsonEnabled(),
      cleanup: () => {
        controller.abort()
        bar.stop()
        run.cleanupSync()
        if (lctMode) rmSync(jsonlOutput, {force: true})
      },
    })
    try {
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
          const bridged = await jsonlToLct(jsonlOutput, output, {
            ...lct,
            onProgress: (bytes, records) => bar.update(bytes, jsonlBytes, `${countText(records)} records`),
          })
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
      stopHandling()
    }
  }
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
  try {
    mkdirSync(dirname(resolve(output)), {recursive: true})
  } catch (err) {
    throw lmtError('OUTPUT_FAILED', `cannot create the directory of ${output}: ${(err as Error).message}`)
  }
}
