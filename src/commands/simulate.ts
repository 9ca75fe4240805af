import {readFileSync} from 'node:fs'
import {Args, Flags} from '@oclif/core'
import {LmtCommand, exitCodeOf} from '../cli/lmt-command.js'
import {handleInterrupts} from '../cli/interrupts.js'
import {countText, createProgressBar, type ProgressBar} from '../cli/progress.js'
import {isLmtError, lmtError} from '../errors.js'
import {POLICIES, type PolicyName, type SimFlags} from '../simulate/config.js'
import {type OracleChoice, simulate, type SimulateProgress, type SweepRequest} from '../simulate/run.js'
import {PendingFiles} from '../simulate/pending-files.js'

function parseSeed(text: string): bigint {
  let v: bigint
  try {
    v = BigInt(text.trim())
  } catch {
    throw lmtError('SIM_USAGE', `--seed: "${text}" is not an integer (decimal or 0x hex)`)
  }
  if (v < 1n || v >= 2n ** 64n)
    throw lmtError('SIM_USAGE', `--seed must be between 1 and 2^64 - 1 (got ${text})`)
  return v
}

function packageVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {version: string}).version
  } catch {
    return 'unknown'
  }
}

/** Reading (bytes, rows so far), then a sweep's points, then (one thread) its Belady references. */
function showProgress(bar: ProgressBar, p: SimulateProgress): void {
  if (!p.points) return bar.update(p.bytes, p.total, `${countText(p.rows)} rows`)
  bar.phase(p.points.belady ? 'Belady references' : 'sweep', 'points')
  bar.update(p.points.done, p.points.total)
}

export default class Simulate extends LmtCommand {
  static override summary =
    'Simulate KV-cache hit rates of eviction policies over a Get+Write trace (Optimizer-compatible)'

  static override description = `Replays the standard JSONL that "lmt convert" writes against one prefix cache per instance and reports
block and token hit rates, per request (<instance>_hit_rates.csv, identical to Alibaba's Optimizer) and in total
(terminal table, summary.json, an SVG plot). Give an Optimizer configuration file, or use the quick form with
--trace and a capacity. --sweep computes a whole hit-rate-versus-capacity curve with the infinite-capacity ceiling.`

  static override examples = [
    {
      description: 'Quick form: 17,090 blocks of LRU over a converted Mooncake trace',
      command:
        '<%= config.bin %> <%= command.id %> --trace mooncake_optimizer.jsonl --capacity-blocks 17090 --block-size 512',
    },
    {
      description: 'An Optimizer configuration file, policy overridden',
      command: '<%= config.bin %> <%= command.id %> optimizer_config.json --policy leaf_aware_lru',
    },
    {
      description: 'Infinite capacity: the prefix-sharing ceiling',
      command:
        '<%= config.bin %> <%= command.id %> --trace trace.jsonl --capacity-blocks -1 --block-size 512',
    },
    {
      description: 'A 30-point sweep over 0.1 %–100 % of the working set, with a plot',
      command:
        '<%= config.bin %> <%= command.id %> --trace trace.jsonl --sweep --block-size 512 -o sweep-out',
    },
    {
      description: 'Listed capacities, policy curve only, the points replayed on 4 threads',
      command:
        '<%= config.bin %> <%= command.id %> --trace trace.jsonl --block-size 512 --sweep --sweep-capacities 1000,5000,20000 --oracle none -j 4',
    },
    {
      description: 'Machine-readable summary',
      command: '<%= config.bin %> <%= command.id %> config.json --json',
    },
  ]

  static override enableJsonFlag = true

  static override args = {
    config: Args.string({description: 'Optimizer configuration file (JSON); omit for the quick form'}),
  }

  static override flags = {
    trace: Flags.string({char: 't', summary: 'Trace (standard JSONL); overrides trace_file_path.'}),
    'output-dir': Flags.string({
      char: 'o',
      summary: 'Output directory; overrides output_result_path (quick form: ./<trace stem>.simulate).',
    }),
    policy: Flags.string({summary: 'Eviction policy of every instance.', options: [...POLICIES]}),
    capacity: Flags.string({summary: 'Capacity of every group in GB; negative = infinite.'}),
    'capacity-blocks': Flags.integer({summary: 'Capacity of every group in blocks; -1 = infinite.', min: -1}),
    'block-size': Flags.integer({summary: 'Tokens per block of every instance.', min: 1}),
    'bytes-per-token': Flags.integer({
      summary: 'Bytes per token of every instance (for capacities in GB).',
      min: 1,
    }),
    'eviction-mode': Flags.string({
      summary: '1 GROUP_ROUGH, 2 INSTANCE_ROUGH, 3 INSTANCE_PRECISE.',
      options: ['1', '2', '3'],
    }),
    'batch-size': Flags.integer({summary: 'eviction_batch_size_per_instance.', min: 1}),
    'replay-mode': Flags.string({summary: 'trace_replay.mode.', options: ['read_write', 'request']}),
    'write-delay-ns': Flags.integer({summary: 'trace_replay.write_delay_ns (request mode).', min: 1}),
    seed: Flags.string({
      summary: 'Seed of random_lru (decimal or 0x hex, not 0).',
      default: '0x12345678ABCDEF01',
    }),
    oracle: Flags.string({
      summary: 'Oracle ceilings to compute.',
      options: ['none', 'infinite', 'belady', 'all'],
    }),
    'skip-invalid': Flags.boolean({
      summary: 'Count and skip invalid trace rows instead of failing.',
      default: false,
    }),
    'strict-instances': Flags.boolean({
      summary: 'A row of an unconfigured instance is an error.',
      default: false,
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
    sweep: Flags.boolean({summary: 'Capacity sweep of one group.', default: false}),
    'sweep-capacities': Flags.string({summary: 'Comma-separated sweep points, in --sweep-unit.'}),
    'sweep-min': Flags.string({summary: 'Smallest log-spaced sweep point.'}),
    'sweep-max': Flags.string({summary: 'Largest log-spaced sweep point.'}),
    'sweep-points': Flags.integer({summary: 'Number of log-spaced points.', min: 2}),
    'sweep-unit': Flags.string({summary: 'Unit of the sweep points.', options: ['blocks', 'gb', 'fraction']}),
    'sweep-group': Flags.string({summary: 'Group whose capacity the sweep varies.'}),
    jobs: Flags.integer({
      char: 'j',
      summary:
        'Threads that replay the points of a sweep and its oracles (default: the available cores; results never depend on it).',
      min: 1,
    }),
    stack: Flags.string({
      summary:
        'Sweeps: take the points the one-pass stack method proves exact from it (auto), or replay every point (off).',
      options: ['auto', 'off'],
      default: 'auto',
    }),
    'keep-point-csv': Flags.boolean({
      summary: "In a sweep, also write every point's hit-rate CSVs.",
      default: false,
    }),
  }

  protected override toErrorJson(err: unknown) {
    if (isLmtError(err)) return {error: {code: err.code, message: err.message, exitCode: err.exitCode}}
    const base = super.toErrorJson(err)
    return {
      error: {
        ...base.error,
        code: base.error.code === 'USAGE' ? 'LMT_SIM_USAGE' : base.error.code,
        exitCode: exitCodeOf(err as Error),
      },
    }
  }

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(Simulate)
    const num = (name: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined
      const n = Number(v)
      if (!Number.isFinite(n) || v.trim() === '')
        throw lmtError('SIM_USAGE', `--${name}: "${v}" is not a number`)
      return n
    }
    if (!args.config && !flags.trace)
      throw lmtError('SIM_USAGE', 'give a configuration file or --trace', {
        suggestions: ['lmt simulate --trace T.jsonl --capacity-blocks 10000'],
      })
    if (flags.capacity !== undefined && flags['capacity-blocks'] !== undefined)
      throw lmtError('SIM_USAGE', '--capacity and --capacity-blocks are mutually exclusive')
    const sweepFlags = [
      'sweep-capacities',
      'sweep-min',
      'sweep-max',
      'sweep-points',
      'sweep-unit',
      'sweep-group',
      'keep-point-csv',
    ] as const
    if (!flags.sweep) {
      for (const f of sweepFlags)
        if (flags[f] !== undefined && flags[f] !== false) throw lmtError('SIM_USAGE', `--${f} needs --sweep`)
      if (!args.config && flags.capacity === undefined && flags['capacity-blocks'] === undefined)
        throw lmtError('SIM_USAGE', 'the quick form needs --capacity or --capacity-blocks (or --sweep)', {
          suggestions: ['--capacity-blocks -1 simulates an infinite cache'],
        })
    } else {
      if (flags.capacity !== undefined || flags['capacity-blocks'] !== undefined)
        throw lmtError('SIM_USAGE', '--sweep sets the capacity itself; drop --capacity/--capacity-blocks')
      if (
        flags['sweep-capacities'] !== undefined &&
        (flags['sweep-min'] !== undefined || flags['sweep-max'] !== undefined)
      )
        throw lmtError('SIM_USAGE', '--sweep-capacities and --sweep-min/--sweep-max are mutually exclusive')
    }
    const seed = parseSeed(flags.seed)
    let sweep: SweepRequest | undefined
    if (flags.sweep) {
      const capacities = flags['sweep-capacities']
        ?.split(',')
        .map((x) => num('sweep-capacities', x) as number)
      const anyPoint =
        capacities !== undefined || flags['sweep-min'] !== undefined || flags['sweep-max'] !== undefined
      const unit = (flags['sweep-unit'] ?? (anyPoint ? 'blocks' : 'fraction')) as SweepRequest['unit']
      const min = num('sweep-min', flags['sweep-min'])
      const max = num('sweep-max', flags['sweep-max'])
      if ((min !== undefined && min <= 0) || (min !== undefined && max !== undefined && max <= min))
        throw lmtError('SIM_USAGE', '--sweep-min must be > 0 and below --sweep-max')
      sweep = {capacities, min, max, points: flags['sweep-points'] ?? 30, unit, group: flags['sweep-group']}
    }
    const simFlags: SimFlags = {
      trace: flags.trace,
      outputDir: flags['output-dir'],
      policy: flags.policy as PolicyName | undefined,
      capacity: num('capacity', flags.capacity),
      capacityBlocks: flags['capacity-blocks'],
      blockSize: flags['block-size'],
      bytesPerToken: flags['bytes-per-token'],
      evictionMode:
        flags['eviction-mode'] === undefined ? undefined : (Number(flags['eviction-mode']) as 1 | 2 | 3),
      batchSize: flags['batch-size'],
      replayMode: flags['replay-mode'] as SimFlags['replayMode'],
      writeDelayNs: flags['write-delay-ns'],
    }
    if (flags.sweep && !args.config) simFlags.capacityBlocks = -1 // placeholder: each point sets its own capacity
    const json = this.jsonEnabled()
    const bar = createProgressBar({
      enabled: flags.progress && !flags.quiet && !json,
      label: flags.sweep ? 'reading' : 'simulating',
      unit: 'bytes',
    })
    const pending = new PendingFiles()
    const stopHandling = handleInterrupts({
      exit: (code) => process.exit(code),
      json,
      cleanup: () => {
        bar.stop()
        pending.removeAll() // the finished outputs stay; no partial file or temporary is left
      },
    })
    const outcome = await simulate({
      configPath: args.config,
      flags: simFlags,
      seed,
      skipInvalid: flags['skip-invalid'],
      strictInstances: flags['strict-instances'],
      plots: flags.plots,
      oracle: (flags.oracle ?? (flags.sweep ? 'all' : 'none')) as OracleChoice,
      sweep,
      keepPointCsv: flags['keep-point-csv'],
      stack: flags.stack as 'auto' | 'off',
      jobs: flags.jobs,
      pending,
      version: packageVersion(this.config.root),
      onProgress: (p) => showProgress(bar, p),
    }).finally(() => {
      bar.stop()
      stopHandling()
    })
    if (!flags.quiet && !json) {
      for (const n of outcome.notices) process.stderr.write(`${n.level}: ${n.message} [${n.code}]\n`)
      for (const line of outcome.table) this.log(line)
      for (const line of outcome.lines) this.log(line)
      this.log(`outputs in ${outcome.outputDir}`)
    }
    return outcome.summary
  }
}
