import {Args, Flags, type Interfaces} from '@oclif/core'
import {parseOptionsForStdio, stdinTraceInputs} from '../stdin-file.js'
import {LmtCommand} from '../lmt-command.js'
import {integerFlag, numberFlag, seedFlag} from '../../util/number-flags.js'
import {handleInterrupts} from '../interrupts.js'
import {countText, createProgressBar, type ProgressBar} from '../progress.js'
import {closest, lmtError} from '../../errors.js'
import {parseKvLayout} from '../../convert/kv-layout.js'
import {
  CAPACITY_UNIT_NAMES,
  capacityUnitOf,
  consoleText,
  type OracleChoice,
  POLICIES,
  type PolicyName,
  type SimFlags,
  simulate,
  type SimulateProgress,
  type SimulateRequest,
  type SweepRequest,
  LMCACHE_FORMAT,
  lmcacheSweepBytes,
  lookupJson,
  lookupLines,
  simulateLookupLog,
} from '../../simulate/index.js'

const LMCACHE_POLICY = 'lmcache_lru'
const MODEL = 'MODEL'
const SWEEP = 'SWEEP'

/** How request rows are replayed: simulate's flags, which `lmt report` takes with the same meaning. */
export const requestRowFlags = {
  'replay-mode': Flags.string({
    summary:
      "read_write: get and write rows; request: each get schedules its write (default: the configuration's replay mode, else read_write; --trace alone: request when its first row is one; a tier_strategy configuration reads no mode, its rows may mix).",
    options: ['read_write', 'request'],
    helpGroup: MODEL,
  }),
  'write-delay-ns': integerFlag({
    summary:
      "Nanoseconds from a request row's read to its write (default: the configuration's write delay, else 1).",
    min: 1,
    helpGroup: MODEL,
  }),
}

/** A policy name in any case (`LRU` is `lru`); an unknown one is a usage error that names the nearest. */
function parsePolicy(v: string): PolicyName | typeof LMCACHE_POLICY {
  const name = v.toLowerCase()
  if (name === LMCACHE_POLICY || POLICIES.includes(name as PolicyName)) return name as PolicyName
  const all = [...POLICIES, LMCACHE_POLICY]
  throw lmtError('SIM_UNKNOWN_POLICY', v, closest(v, all), {
    suggestions: [`policies: ${all.join(', ')}`],
  })
}

/** Reading (bytes, rows so far), then a sweep's points, then (one thread) its Belady references. */
function showProgress(bar: ProgressBar, p: SimulateProgress): void {
  if (p.step) {
    bar.phase(p.step.label, 'records')
    return bar.update(p.step.done, p.step.total)
  }
  if (!p.points) return bar.update(p.bytes, p.total, () => `${countText(p.rows)} rows`)
  bar.phase(p.points.belady ? 'Belady references' : 'sweep', 'points')
  bar.update(p.points.done, p.points.total)
}

export default class Simulate extends LmtCommand {
  static override summary =
    'Simulate KV-cache hit rates of eviction policies over a Get+Write trace (Optimizer-compatible)'

  static override description = `Replays the standard JSONL that "lmt convert" writes against one prefix cache per instance and reports block and token hit rates, per request (<instance>_hit_rates.csv, identical to Alibaba's Optimizer) and in total (terminal table, summary.json, an SVG plot). Give an Optimizer configuration file, or use the quick form with --trace and a capacity. --sweep computes a whole hit-rate-versus-capacity curve with the infinite-capacity ceiling.`

  // the trace is the output of the Mooncake example of "lmt convert --help", in the current folder
  static override examples = [
    {
      description: 'Quick form: 17,090 blocks of LRU over the converted Mooncake trace',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --capacity-blocks 17090 --block-size 512 -o sim',
    },
    {
      description: 'An Optimizer configuration file, its trace and policy overridden',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/optimizer_config.json --trace mooncake_optimizer.jsonl -o sim-config --policy leaf_aware_lru',
    },
    {
      description: 'Infinite capacity: the prefix-sharing ceiling',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --capacity-blocks -1 --block-size 512 -o sim-inf',
    },
    {
      description: 'A 30-point sweep over 0.1 %–100 % of the working set, with a plot',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --sweep --block-size 512 -o sweep-out',
    },
    {
      description: 'Listed capacities, policy curve only, the points replayed on 2 threads',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --block-size 512 --sweep --sweep-capacities 1000,5000,20000 --oracle none -j 2 -o sweep-listed',
    },
    {
      description:
        "A tiered configuration (tier_strategy): its SSD tier swept from 1 to 64 GiB, the hit rate each tier serves per point (tiered configurations refuse timestamp 0, as that Optimizer does: --skip-invalid skips the converted trace's first row)",
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/tiers_config.json --trace mooncake_optimizer.jsonl --skip-invalid --sweep --sweep-storage ssd --sweep-unit gib --sweep-min 1 --sweep-max 64 -o sweep-ssd',
    },
    {
      description: 'A capacity in GiB (2^30 bytes) from the KV layout of a block of 512 tokens',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --capacity 64 --kv-layout 2x36x512x8x128:bfloat16 -o sim-gib',
    },
    {
      description:
        "An LMCache lookup-hash log directory with LMCache's cache-simulator rules (2 chunks of 64 MiB: 0.125 GiB)",
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/lmcache_lookup_logs -f lmcache_lookup --policy lmcache_lru --capacity 0.125',
    },
    {
      description: "The same log with lmt's own LRU (one prefix cache per model), converted on the fly",
      command:
        '<%= config.bin %> <%= command.id %> -i <%= config.root %>/samples/lmcache_lookup_logs -f lmcache_lookup --policy lru --capacity 0.125 -o sim-lookup',
    },
    {
      description: 'The summary as JSON',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/optimizer_config.json --trace mooncake_optimizer.jsonl -o sim-json --json',
    },
  ]

  static override usage = [
    '<%= command.id %> CONFIG.json [FLAGS]',
    '<%= command.id %> --trace TRACE.jsonl (--capacity-blocks N | --capacity GIB) [FLAGS]',
    '<%= command.id %> (CONFIG.json | --trace TRACE.jsonl) --sweep [FLAGS]',
    '<%= command.id %> -i INPUT... -f FORMAT [FLAGS]',
  ]

  static override enableJsonFlag = true

  static override args = {
    // oclif reads a missing one from a piped stdin (`echo config.json | lmt simulate`)
    config: Args.string({description: 'Optimizer configuration file (JSON); omit for the quick form'}),
  }

  static override flags = {
    trace: Flags.string({
      char: 't',
      summary:
        "Trace file (Get+Write JSONL, as lmt convert writes it; gzip or zstd too; - for standard input); replaces the configuration's.",
    }),
    input: Flags.string({
      char: 'i',
      summary: `Inputs to convert on the fly (with --format), e.g. an LMCache lookup-hash log directory (-f ${LMCACHE_FORMAT}).`,
      multiple: true,
    }),
    format: Flags.string({char: 'f', summary: 'Format of --input (see lmt converters).'}),
    instance: Flags.string({
      summary: `With -f ${LMCACHE_FORMAT}: only the lookups of this model (LMCache's --model).`,
    }),
    'output-dir': Flags.string({
      char: 'o',
      summary:
        "Output directory; replaces the configuration's (quick form default: ./<trace stem>.simulate).",
    }),
    policy: Flags.string({
      summary: 'Eviction policy of every instance, in any case (default lru).',
      helpValue: [...POLICIES, LMCACHE_POLICY].join('|'),
      parse: async (v) => parsePolicy(v),
    }),
    capacity: Flags.string({
      summary:
        "Capacity of every group in GiB (2^30 bytes, as the configuration's GB fields); a negative number is infinite.",
    }),
    'capacity-blocks': integerFlag({
      summary: 'Capacity of every group in blocks; -1 is infinite (other negative numbers are refused).',
      min: -1,
      minMeans: 'infinite',
    }),
    'block-size': integerFlag({
      summary: 'Tokens per block of every instance (default: inferred per instance from the trace).',
      min: 1,
    }),
    'block-size-check': Flags.boolean({
      summary:
        'Fail when the rows hold fewer keys than full blocks of the given block size (--no-block-size-check replays anyway).',
      allowNo: true,
      default: true,
    }),
    'bytes-per-token': integerFlag({
      summary: 'Bytes per token of every instance (for capacities in GiB).',
      min: 1,
    }),
    'kv-layout': Flags.string({
      summary:
        "One block's KV layout, e.g. 2x36x512x8x128:bfloat16 (75,497,472 bytes): capacities in GiB become the blocks they hold.",
    }),
    'eviction-mode': Flags.string({
      summary:
        'Where capacity is enforced: 1 per group, roughly; 2 per instance, roughly; 3 per instance, exactly (default 1 with a configuration, 3 in the quick form).',
      options: ['1', '2', '3'],
      helpGroup: MODEL,
    }),
    'batch-size': integerFlag({
      summary: 'Blocks evicted at a time per instance (default 100).',
      min: 1,
      helpGroup: MODEL,
    }),
    ...requestRowFlags,
    seed: Flags.string({
      summary: 'Seed of random_lru (decimal or 0x hex, not 0).',
      default: '0x12345678ABCDEF01',
      helpGroup: MODEL,
    }),
    oracle: Flags.string({
      summary:
        'Reference ceilings: infinite capacity, Belady (next need), all, or none (default none; a sweep computes all).',
      options: ['none', 'infinite', 'belady', 'all'],
      helpGroup: SWEEP,
    }),
    'skip-invalid': Flags.boolean({
      summary: 'Count and skip invalid trace rows instead of failing.',
      default: false,
      helpGroup: MODEL,
    }),
    'strict-instances': Flags.boolean({
      summary: 'A row of an instance the configuration does not list is an error.',
      default: false,
      helpGroup: MODEL,
    }),
    plots: Flags.boolean({summary: 'Write SVG plots (--no-plots to skip).', allowNo: true, default: true}),
    quiet: Flags.boolean({
      char: 'q',
      summary: 'No table, no summary line, no notices on stderr.',
      default: false,
    }),
    progress: Flags.boolean({
      summary: 'Progress bar on stderr when it is a terminal.',
      allowNo: true,
      default: true,
    }),
    sweep: Flags.boolean({
      summary: 'Hit rate against capacity: a sweep of the capacity of one group.',
      default: false,
      helpGroup: SWEEP,
    }),
    'sweep-capacities': Flags.string({
      summary: 'The sweep points, comma-separated, in --sweep-unit (instead of log-spaced ones).',
      helpGroup: SWEEP,
    }),
    'sweep-min': Flags.string({
      summary: 'Smallest log-spaced point (default 0.001 of the working set, or 1 block).',
      helpGroup: SWEEP,
    }),
    'sweep-max': Flags.string({
      summary: 'Largest log-spaced point (default the whole working set).',
      helpGroup: SWEEP,
    }),
    'sweep-points': integerFlag({
      summary: 'Number of log-spaced points (default 30).',
      min: 2,
      max: 100_000,
      helpGroup: SWEEP,
    }),
    'sweep-unit': Flags.string({
      summary:
        'Unit of the sweep points: blocks, gib (2^30 bytes; gb is the same unit), or fraction of the working set (default fraction; blocks when points are given).',
      options: [...CAPACITY_UNIT_NAMES],
      helpGroup: SWEEP,
    }),
    'sweep-group': Flags.string({
      summary: 'Group whose capacity the sweep varies (default: the only one).',
      helpGroup: SWEEP,
    }),
    'sweep-storage': Flags.string({
      summary:
        'A tiered group (tier_strategy, hierarchical eviction): the storage whose capacity the sweep varies, by unique_name (default: the first tier, as --capacity).',
      helpGroup: SWEEP,
    }),
    jobs: integerFlag({
      char: 'j',
      summary:
        'Threads that replay the points of a sweep and its references (default: the available cores; results never depend on it).',
      min: 1,
      max: 256,
      helpGroup: SWEEP,
    }),
    stack: Flags.string({
      summary:
        'auto: take the points the one-pass stack method proves exact from it; off: replay every point.',
      options: ['auto', 'off'],
      default: 'auto',
      helpGroup: SWEEP,
    }),
    'keep-point-csv': Flags.boolean({
      summary: "Also write every point's hit-rate CSVs.",
      default: false,
      helpGroup: SWEEP,
    }),
  }

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(parseOptionsForStdio(Simulate, this.argv))
    await stdinTraceInputs(flags)
    if (flags.policy === LMCACHE_POLICY) return this.runLmcache(flags, args.config)
    const convert = await this.convertRequest(flags)
    checkUsage(args, flags)
    const request = {...this.request(args, flags), convert}
    // an interrupt aborts the run's signal: the run leaves no partial file or temporary (a conversion's trace included)
    const outcome = await this.underInterrupts(flags, flags.sweep ? 'reading' : 'simulating', (bar, signal) =>
      simulate({...request, signal, onProgress: (p) => showProgress(bar, p)}),
    )
    if (!flags.quiet && !this.jsonEnabled()) {
      const text = consoleText(outcome.notices, outcome.table, outcome.lines, outcome.outputDir)
      for (const line of text.notices) process.stderr.write(`${line}\n`)
      for (const line of text.lines) this.log(line)
    }
    return outcome.summary
  }

  /** `--policy lmcache_lru`: LMCache's cache simulator over lookup-hash logs (below). */
  private async runLmcache(
    flags: SimulateFlags,
    config: string | undefined,
  ): Promise<Record<string, unknown>> {
    checkLmcacheUsage(flags, config)
    const caps = capacities(flags)
    const result = await this.underInterrupts(flags, 'simulating', (bar, signal) => {
      const warn = (m: string) => {
        bar.clearLine()
        if (!flags.quiet) process.stderr.write(`warning: ${m}\n`)
      }
      return simulateLookupLog({
        inputs: flags.input as string[],
        model: flags.instance,
        capacitiesGib: caps.gib,
        capacitiesBytes: caps.bytes,
        bytesPerToken: flags['bytes-per-token'],
        stats: !flags.sweep,
        signal,
        onSkip: (s) => warn(`${s.file}:${s.lineNo}: skipped: ${s.reason}`),
        onWarning: warn,
        onProgress: (bytes, total) => bar.update(bytes, total),
      })
    })
    if (!flags.quiet && !this.jsonEnabled())
      for (const line of lookupLines(result, flags.sweep ? undefined : caps.gib?.[0], flags.instance))
        this.log(line)
    const head = {policy: LMCACHE_POLICY, format: LMCACHE_FORMAT, inputs: flags.input}
    return lookupJson(result, flags.sweep, head, flags.instance)
  }

  /**
   * `work` under a progress bar (on a terminal, unless quiet or --json) and the interrupt handler, which aborts its
   * signal and stops the bar before the exit.
   */
  private async underInterrupts<T>(
    flags: SimulateFlags,
    label: string,
    work: (bar: ProgressBar, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const json = this.jsonEnabled()
    const bar = createProgressBar({enabled: flags.progress && !flags.quiet && !json, label, unit: 'bytes'})
    const controller = new AbortController()
    const stopHandling = handleInterrupts({
      json,
      cleanup: () => {
        controller.abort()
        bar.stop()
      },
    })
    try {
      return await work(bar, controller.signal)
    } finally {
      bar.stop()
      stopHandling()
    }
  }

  /** `-i INPUT -f FORMAT` with lmt's policies: the converter of the format (the library converts, then simulates). */
  private async convertRequest(flags: SimulateFlags): Promise<SimulateRequest['convert']> {
    if (flags.input === undefined) return undefined
    if (flags.trace !== undefined) throw lmtError('CLI_FLAGS_EXCLUSIVE', '--trace', '--input')
    if (flags.format === undefined)
      throw lmtError('CLI_FLAG_NEEDS', '--input', '--format (see lmt converters)')
    const warn = (m: string) => (flags.quiet ? undefined : process.stderr.write(`warning: ${m}\n`))
    const registry = await this.converters(warn)
    const converter = registry.resolve(flags.format)
    if (!converter)
      throw lmtError('CONVERT_UNKNOWN_FORMAT', flags.format, registry.knownNames(), {
        suggestions: ['run "lmt converters" to see every format'],
      })
    return {inputs: flags.input, converter, warn}
  }

  /** The converter registry, loaded only when asked for (-i, the not-converted message): it pulls in the specifier resolver. */
  private async converters(warn?: (message: string) => void) {
    const {discoverConverters} = await import('../../plugins/converter-discovery.js')
    return discoverConverters({config: this.config, onWarning: warn})
  }

  /** The library's request from the flags (the run adds its temporaries and its progress display). */
  private request(args: SimulateArgs, flags: SimulateFlags): Omit<SimulateRequest, 'onProgress'> {
    const seed = seedFlag(flags.seed)
    const sweep = sweepRequestOf(flags)
    return {
      configPath: args.config,
      flags: simFlagsOf(args, flags),
      seed,
      skipInvalid: flags['skip-invalid'],
      strictInstances: flags['strict-instances'],
      plots: flags.plots,
      oracle: (flags.oracle ?? (flags.sweep ? 'all' : 'none')) as OracleChoice,
      sweep,
      keepPointCsv: flags['keep-point-csv'],
      blockSizeCheck: flags['block-size-check'],
      recogniseFormats: async (line) => (await this.converters()).recognise(line).map((r) => r.format),
      stack: flags.stack as 'auto' | 'off',
      jobs: flags.jobs,
      version: this.config.version,
    }
  }
}

type SimulateArgs = Interfaces.InferredArgs<typeof Simulate.args>
type SimulateFlags = Interfaces.InferredFlags<typeof Simulate.flags>

const SWEEP_FLAGS = [
  'sweep-capacities',
  'sweep-min',
  'sweep-max',
  'sweep-points',
  'sweep-unit',
  'sweep-group',
  'sweep-storage',
  'keep-point-csv',
] as const

/** The usage errors of docs/simulate.md §1.2 (exit 2), before any work. */
function checkUsage(args: SimulateArgs, flags: SimulateFlags): void {
  if (!args.config && !flags.trace && !flags.input)
    throw lmtError('SIM_NO_INPUT', {
      suggestions: ['lmt simulate --trace T.jsonl --capacity-blocks 10000'],
    })
  if (flags.capacity !== undefined && flags['capacity-blocks'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--capacity', '--capacity-blocks')
  if (flags['kv-layout'] !== undefined && flags['bytes-per-token'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--kv-layout', '--bytes-per-token')
  if (!flags.sweep) {
    for (const f of SWEEP_FLAGS)
      if (flags[f] !== undefined && flags[f] !== false) throw lmtError('CLI_FLAG_NEEDS', `--${f}`, '--sweep')
    if (!args.config && flags.capacity === undefined && flags['capacity-blocks'] === undefined)
      throw lmtError('CLI_FLAG_NEEDS', 'the quick form', '--capacity or --capacity-blocks (or --sweep)', {
        suggestions: ['--capacity-blocks -1 simulates an infinite cache'],
      })
  } else {
    if (flags.capacity !== undefined || flags['capacity-blocks'] !== undefined)
      throw lmtError('SIM_SWEEP_SETS_CAPACITY')
    if (
      flags['sweep-capacities'] !== undefined &&
      (flags['sweep-min'] !== undefined || flags['sweep-max'] !== undefined)
    )
      throw lmtError('CLI_FLAGS_EXCLUSIVE', '--sweep-capacities', '--sweep-min/--sweep-max')
  }
}

/** The sweep the flags ask for, if any. */
function sweepRequestOf(flags: SimulateFlags): SweepRequest | undefined {
  if (!flags.sweep) return undefined
  const capacities = flags['sweep-capacities']
    ?.split(',')
    .map((x) => numberFlag('sweep-capacities', x) as number)
  const anyPoint =
    capacities !== undefined || flags['sweep-min'] !== undefined || flags['sweep-max'] !== undefined
  const unit = capacityUnitOf(
    flags['sweep-unit'] ?? (anyPoint ? 'blocks' : 'fraction'),
  ) as SweepRequest['unit']
  const min = numberFlag('sweep-min', flags['sweep-min'])
  const max = numberFlag('sweep-max', flags['sweep-max'])
  if ((min !== undefined && min <= 0) || (min !== undefined && max !== undefined && max <= min))
    throw lmtError('CLI_OUT_OF_RANGE', '--sweep-min', '> 0 and below --sweep-max')
  return {
    capacities,
    min,
    max,
    points: flags['sweep-points'] ?? 30,
    unit,
    group: flags['sweep-group'],
    storage: flags['sweep-storage'],
  }
}

/** The flags that override a configuration (or make the quick form). */
function simFlagsOf(args: SimulateArgs, flags: SimulateFlags): SimFlags {
  const simFlags: SimFlags = {
    trace: flags.trace,
    outputDir: flags['output-dir'],
    policy: flags.policy as PolicyName | undefined,
    capacity: numberFlag('capacity', flags.capacity),
    capacityBlocks: flags['capacity-blocks'],
    blockSize: flags['block-size'],
    bytesPerToken: flags['bytes-per-token'],
    bytesPerBlock:
      flags['kv-layout'] === undefined ? undefined : parseKvLayout(flags['kv-layout']).rawSizeBytes(),
    evictionMode:
      flags['eviction-mode'] === undefined ? undefined : (Number(flags['eviction-mode']) as 1 | 2 | 3),
    batchSize: flags['batch-size'],
    replayMode: flags['replay-mode'] as SimFlags['replayMode'],
    writeDelayNs: flags['write-delay-ns'],
  }
  if (flags.sweep && !args.config) {
    simFlags.capacityBlocks = -1 // placeholder: each point sets its own capacity
    simFlags.capacitySwept = true
  }
  return simFlags
}

// `--policy lmcache_lru`: LMCache's cache simulator (src/simulate/lmcache/) over lookup-hash logs, rendered

/** LMCache's default sweep: 0.5 – 500 GiB, 30 points. */
const DEFAULT_SWEEP = {min: 0.5, max: 500, points: 30}

/** A capacity in GiB: a number, optionally followed by `GiB` (or `GB`, the same 2^30 bytes in lmt). */
function gibValue(flag: string, text: string): number {
  const n = Number(text.trim().replace(/\s*gi?b$/i, ''))
  if (!(n > 0) || !Number.isFinite(n))
    throw lmtError('CLI_BAD_VALUE', `--${flag}`, text, 'a positive number of GiB')
  return n
}

/** The checks of the lmcache_lru form (usage errors, before any work). */
function checkLmcacheUsage(flags: SimulateFlags, config: string | undefined): void {
  if (config !== undefined || flags.input === undefined || flags.format !== LMCACHE_FORMAT)
    throw lmtError('SIM_LMCACHE_USAGE', `reads lookup-hash logs: give -i LOG_DIR -f ${LMCACHE_FORMAT}`, {
      suggestions: [`lmt simulate -i LOG_DIR -f ${LMCACHE_FORMAT} --policy ${LMCACHE_POLICY} --capacity 64`],
    })
  if (flags['capacity-blocks'] !== undefined)
    throw lmtError('SIM_LMCACHE_USAGE', 'the capacity is in GiB (--capacity), as LMCache counts it')
  if (!flags.sweep && flags.capacity === undefined)
    throw lmtError('CLI_FLAG_NEEDS', `--policy ${LMCACHE_POLICY}`, '--capacity GiB (or --sweep)')
  if (flags.sweep && flags['sweep-unit'] !== undefined && !/^gi?b$/i.test(flags['sweep-unit']))
    throw lmtError('SIM_LMCACHE_USAGE', 'sweep points are capacities in GiB (--sweep-unit gib)')
}

/** The capacities of the run: one (`--capacity`), listed GiB, or LMCache's log-spaced bytes. */
function capacities(flags: SimulateFlags): {gib?: number[]; bytes?: number[]} {
  if (!flags.sweep) return {gib: [gibValue('capacity', flags.capacity as string)]}
  if (flags['sweep-capacities'] !== undefined)
    return {gib: flags['sweep-capacities'].split(',').map((x) => gibValue('sweep-capacities', x))}
  const min = flags['sweep-min'] === undefined ? DEFAULT_SWEEP.min : gibValue('sweep-min', flags['sweep-min'])
  const max = flags['sweep-max'] === undefined ? DEFAULT_SWEEP.max : gibValue('sweep-max', flags['sweep-max'])
  if (max < min) throw lmtError('CLI_OUT_OF_RANGE', '--sweep-max', 'at least --sweep-min')
  return {bytes: lmcacheSweepBytes(min, max, flags['sweep-points'] ?? DEFAULT_SWEEP.points)}
}
