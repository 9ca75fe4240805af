import {createReadStream} from 'node:fs'
import {once} from 'node:events'
import {join} from 'node:path'
import {Flags} from '@oclif/core'
import {privateTempDir, stdinAsFile} from '../stdin-file.js'
import {handleInterrupts} from '../interrupts.js'
import {integerFlag} from '../../util/number-flags.js'
import {countText, createProgressBar} from '../progress.js'
import {LmtCommand} from '../lmt-command.js'
import {StderrReporter} from '../stderr-reporter.js'
import {renderInputLine, renderSummary} from '../convert-report.js'
import {converterSourceFlags} from '../converter-source-flags.js'
import {withoutUnknownFlags} from '../known-flags-argv.js'
import {convert, type ConvertFlags} from '../../convert/convert.js'
import '../../convert/fast/index.js' // convert's accelerators (convert/seams.ts)
import type {ConvertSummary} from '../../convert/summary.js'
import type {ConverterRegistration, ConverterRegistry} from '../../plugins/converter-registry.js'
import {converterFlagsOf, foreignConverterFlag} from '../../plugins/converter-flags.js'
import {findConverter} from '../../plugins/converter-discovery.js'
// the flags only: the storage level, its configuration and the .lct bridge are loaded by a --mode lct run
import {normalizeEvictionPolicy, storageFlags} from '../../replay/storage/storage-flags.js'

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
  // the converter config (docs/convert.md §2.3)
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
    summary:
      'Worker threads a converter may use (text_trace: its tokenizer threads; qwen_bailian and mooncake do not read it: they use every core but one, 1 to 3); 0 = the CPUs less one.',
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
      description:
        'A KVCM event-publisher log (without -o: event_publisher_optimizer.jsonl in the current folder)',
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

  /**
   * Parse in two phases, as `lmt replay` does: the command's flags loosely, to learn the format and where converters
   * come from; then, once the discovery has found the converter, strictly with its own flags (a flag of another
   * format is a usage error naming that format). The conversion is one library call; this renders it.
   */
  async run(): Promise<ConvertSummary> {
    const argv = [...this.argv]
    // a flag of a converter not yet discovered is passed over here, not an error
    const loose = {flags: Convert.flags, enableJsonFlag: true, args: {}, strict: false}
    const first = (await this.parse(loose, withoutUnknownFlags(argv, Convert.flags))).flags
    // under --json the document on stdout is the summary: stderr keeps the warnings only, as in every command
    const reporter = new StderrReporter(first.quiet, process.stderr, !first.json)
    const bar = createProgressBar({
      enabled: first.progress && !first.quiet && !this.jsonEnabled(),
      label: 'converting',
      unit: 'bytes',
    })
    reporter.beforeWrite = () => bar.clearLine()
    let phase = 'converting'
    try {
      const {summary, output, toStdout} = await convert(first as ConvertFlags, {
        logger: reporter,
        json: this.jsonEnabled(),
        converter: async () => {
          const {registration: reg, registry} = await findConverter(first, this.config, reporter)
          return {reg, flags: await this.parseWithConverter(argv, reg, registry, reporter)}
        },
        stdinAsFile,
        stdoutFile: (lct) => join(privateTempDir(), lct ? 'output.lct' : 'output.jsonl'),
        lctFlagGiven: lctFlagGiven(argv),
        interruptible: (cleanup) =>
          handleInterrupts({
            json: this.jsonEnabled(),
            cleanup: () => {
              bar.stop()
              cleanup()
            },
          }),
        progress: (name, done, total, count) => {
          if (name !== phase) bar.phase((phase = name), 'bytes')
          bar.update(done, total, () => `${countText(count)} ${name === 'converting' ? 'traces' : 'records'}`)
        },
        progressDone: () => bar.stop(),
        onInputDone: (s) => reporter.info(renderInputLine(s)),
      })
      bar.stop()
      // the whole command, bridging included: the figure a user's clock shows (less the process start-up)
      summary.elapsedMs = Math.round(performance.now() - this.startedAt)
      // performance.now() counts from process start: the closing time is the whole command's
      for (const line of renderSummary(summary, performance.now())) reporter.info(line)
      if (toStdout) await copyToStdout(output)
      return summary
    } finally {
      bar.stop()
    }
  }

  /** The strict parse: the command's flags and the chosen converter's own. */
  private async parseWithConverter(
    argv: string[],
    reg: ConverterRegistration,
    registry: ConverterRegistry,
    reporter: StderrReporter,
  ): Promise<ConvertFlags> {
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
    return parsed.flags as ConvertFlags
  }
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
