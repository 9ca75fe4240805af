import {parseOptionsForStdio, stdinTraceInputs} from '../stdin-file.js'
import {Args, Flags} from '@oclif/core'
import {LmtCommand} from '../lmt-command.js'
import {handleInterrupts} from '../interrupts.js'
import {integerFlag} from '../../util/number-flags.js'
import {createProgressBar} from '../progress.js'
import {discoverConverters, findConverter} from '../../plugins/converter-discovery.js'
import {report} from '../../report/run/write-report.js'
import {requestRowFlags} from './simulate.js'

const DEFAULT_POLICIES = 'lru,leaf_aware_lru,ttl'

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

  async run(): Promise<object> {
    const {args, flags} = await this.parse(parseOptionsForStdio(Report, this.argv))
    await stdinTraceInputs(flags)
    const json = this.jsonEnabled()
    const warn = (m: string) => (json || flags.quiet ? undefined : process.stderr.write(`warning: ${m}\n`))
    const bar = createProgressBar({
      enabled: flags.progress && !flags.quiet && !json,
      label: 'report',
      unit: 'points',
    })
    // an interrupt aborts the run's signal: the report leaves no page, temporary or converted trace
    const controller = new AbortController()
    const stopHandling = handleInterrupts({
      json,
      cleanup: () => {
        bar.stop()
        controller.abort()
      },
    })
    const outcome = await report(
      {
        ...flags,
        config: args.config,
        version: this.config.version,
        converter: async (format) =>
          (await findConverter({format}, this.config, {warn, info() {}})).registration,
        recogniseFormats: async (line) =>
          (await discoverConverters({config: this.config})).recognise(line).map((r) => r.format),
        warn,
      },
      {
        signal: controller.signal,
        // a phase of the report on the bar: bytes while the trace is read, steps or points after
        onProgress: ({phase, done, total}) => {
          bar.phase(phase, phase === 'reading the trace' ? 'bytes' : 'points')
          bar.update(done, total)
        },
      },
    ).finally(() => {
      bar.stop()
      stopHandling()
    })
    if (!json && !flags.quiet) {
      for (const n of outcome.notices) process.stderr.write(n)
      for (const line of outcome.lines) this.log(line)
      this.log(`report: ${outcome.output}`)
    }
    return {...outcome.doc, output: outcome.output}
  }
}
