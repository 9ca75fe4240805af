import {statSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {checkMaxFrameBytes, maxFrameBytesFlag} from '../cli/lct-flags.js'
import {ChunkedText} from '../cli/chunked-text.js'
import {handleInterrupts} from '../cli/interrupts.js'
import {lctErrorJson} from '../cli/lct-errors.js'
import {LmtCommand} from '../cli/lmt-command.js'
import {countText, createProgressBar, type ProgressBar} from '../cli/progress.js'
import {RecordLog} from '../cli/record-log.js'
import {LctError, LmtError, lmtError} from '../errors.js'
import {countTrace, openTrace} from '../lct/reader.js'
import type {LctHeader} from '../lct/types.js'
import {discoverLevels} from '../plugins/replay-levels.js'
import {replayTrace, type ReplayResult} from '../replay/driver.js'
import type {ReplayLevel} from '../replay/level.js'
import {writeFileAtomic} from '../util/atomic-write.js'
import {ensureDirectory, outputError, refuseNonRegularOutput} from '../util/output-path.js'
import {
  banner,
  configMismatch,
  jsonlLine,
  modelJson,
  opsCsv,
  progressLine,
  resultTable,
  summaryJson,
  verboseLine,
} from '../replay/outputs.js'
import {storageLevel} from '../replay/storage/storage-level.js'

const OUTPUT = 'OUTPUT'

const baseFlags = {
  level: Flags.string({summary: "Replay level; must equal the trace header's (default: the header's)."}),
  pace: Flags.string({
    summary: 'virtual: deterministic trace time, no sleeping; realtime: follow the wall clock.',
    options: ['virtual', 'realtime'],
    default: 'virtual',
  }),
  speed: Flags.string({summary: 'With --pace realtime: trace time runs this many times faster (default 1).'}),
  verbose: Flags.boolean({
    summary: 'One stdout line per record (not with --json).',
    default: false,
    helpGroup: OUTPUT,
  }),
  progress: Flags.boolean({
    summary: 'One stderr line per record instead of the bar (default on with --pace realtime).',
    allowNo: true,
    helpGroup: OUTPUT,
  }),
  'jsonl-out': Flags.string({
    summary: 'Write one JSON line per record to this file (a log: kept as far as the replay got).',
    helpGroup: OUTPUT,
  }),
  'output-dir': Flags.string({
    summary: 'Directory of trace_replay_ops.csv and trace_replay_summary.json (default: the current one).',
    default: '.',
    helpGroup: OUTPUT,
  }),
  'no-csv': Flags.boolean({summary: 'Do not write trace_replay_ops.csv.', default: false, helpGroup: OUTPUT}),
  json: Flags.boolean({
    summary:
      'Print the summary document on stdout (also written to trace_replay_summary.json); errors as JSON.',
    default: false,
    helpGroup: OUTPUT,
  }),
  quiet: Flags.boolean({
    char: 'q',
    summary: 'No banner, no progress bar, no terminal table, no list of the files written.',
    default: false,
  }),
  record: Flags.string({
    summary: 'Re-record the replayed calls into this .lct file (written whole at the end, or not at all).',
    helpGroup: OUTPUT,
  }),
  'allow-schema-1': Flags.boolean({
    summary: 'Replay schema-1 traces (cache salts were not recorded).',
    default: false,
  }),
  'max-frame-bytes': maxFrameBytesFlag,
  'exact-latency': Flags.boolean({
    summary: 'Keep every latency sample (no histogram after 2 M samples).',
    default: false,
    helpGroup: OUTPUT,
  }),
  'list-levels': Flags.boolean({summary: 'List the known replay levels and exit.', default: false}),
}

const SCHEMA_1_MESSAGE =
  'trace_schema_version 1 is not replay-safe: schema-1 recorders did not store ObjectKey.cache_salt, so keys that differed only by cache salt were recorded as one key and replay may show hits and lock conflicts that never happened; replayable versions: 2 (pass --allow-schema-1 to replay it with every cache_salt empty)'

export default class Replay extends LmtCommand {
  static override summary = "Replay an LMCache .lct trace against a model of LMCache's StorageManager"

  static override description = `Reissues every recorded call at its recorded trace time against the target of the trace's level: for "storage", a bookkeeping-faithful model of LMCache's StorageManager (L1 with TTL locks, LRU eviction, mock L2, store and prefetch controllers). --pace virtual (default) runs a deterministic discrete-event clock, so an hour of trace replays in seconds and identically on every machine. Exit 1 if any record failed; skipped records (no handler, undecodable args) are counted, not failed. The table goes to stdout (with --json: the summary document instead); warnings and the list of the files written go to stderr.`

  static override examples = [
    {
      description: "The sample trace with its recorder's config (digest 6bddebcb)",
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU',
    },
    {
      description: 'Take the configuration from the trace header, write the JSON summary',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --config-from-header --json --output-dir out/',
    },
    {
      description: 'With a mock L2 and re-recording',
      command: `<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --l1-size-gb 8 --eviction-policy LRU --l2-adapter '{"type": "mock", "max_size_gb": 64, "mock_bandwidth_gb": 4}' --record rerecorded.lct`,
    },
    {
      description: 'Wall-clock pacing, four times faster',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --l1-size-gb 8 --eviction-policy LRU --pace realtime --speed 4',
    },
    '<%= config.bin %> <%= command.id %> --list-levels',
  ]

  static override usage = [
    '<%= command.id %> FILE (--l1-size-gb GB --eviction-policy LRU|noop | --config-from-header) [FLAGS]',
    '<%= command.id %> --list-levels',
  ]

  static override args = {
    file: Args.string({description: '.lct trace file'}),
  }

  static override flags = {
    ...baseFlags,
    ...(storageLevel.flags as typeof storageLevel.flags & Record<string, never>),
  }

  static override enableJsonFlag = true

  /** the error document of every lmt command; a trace error also gives its byte offset */
  protected override toErrorJson(err: unknown) {
    return lctErrorJson(err, super.toErrorJson(err))
  }

  async run(): Promise<unknown> {
    const warnings = new Warnings()
    // 1. base flags; every known level's flags are accepted here, the header decides which apply (step 7)
    const levels = await discoverLevels(this.config, (m) => process.stderr.write(`warning: ${m}\n`))
    const allLevelFlags: Record<string, unknown> = {}
    for (const r of levels.levels.values())
      for (const [k, v] of Object.entries(r.level.flags)) allLevelFlags[k] ??= v
    const first = await this.parse({
      flags: {...(allLevelFlags as typeof baseFlags), ...baseFlags},
      args: Replay.args,
      strict: true,
    })
    if (first.flags['list-levels']) return this.listLevels(levels)
    const file = first.args.file
    if (!file)
      throw lmtError('REPLAY_USAGE', 'missing trace file', {
        suggestions: ['lmt replay trace.lct --l1-size-gb 8 --eviction-policy LRU'],
      })
    const maxFrameBytes = checkMaxFrameBytes(first.flags['max-frame-bytes'], 'REPLAY_USAGE')
    const pace = first.flags.pace as 'virtual' | 'realtime'
    const speed = speedOf(pace, first.flags.speed)
    // 4.–6. header, level, schema
    const header = await readHeader(file, maxFrameBytes)
    const level = levelOf(levels, first.flags.level, header)
    checkSchema(level, header, first.flags['allow-schema-1'], warnings)
    // 7. strict parse with the level's flags
    const second = await this.parse({
      flags: {...baseFlags, ...(level.flags as typeof baseFlags)},
      args: Replay.args,
      strict: true,
    })
    const flags = second.flags as typeof first.flags
    // 8. level configuration
    const config = levelConfig(level, second.flags as Record<string, unknown>, header)
    return this.execute({file, level, config, header, pace, speed, maxFrameBytes, flags, warnings})
  }

  /**
   * Steps 9 and on: the outputs opened, Ctrl-C handled (until the summary files are written: none is cut short), the
   * replay, the summary files, the list of the files written, the table; the summary document returned for --json.
   */
  private async execute(o: RunSettings): Promise<unknown> {
    const {flags} = o
    const controller = new AbortController()
    const out = new RecordOutputs(flags, controller)
    o.warnings.progress = out.progressText
    const stopHandling = handleInterrupts({
      json: this.jsonEnabled(),
      exit: (code) => process.exit(code),
      // the abort removes the --record temporary file at once; the JSONL log is kept as far as it got
      cleanup: () => {
        controller.abort(lmtError('INTERRUPTED', 'a signal'))
        out.close()
      },
    })
    let result: ReplayResult
    let summary: string | undefined
    const written: string[] = []
    try {
      result = await this.replay(o, out, controller.signal)
      // the last lines are written by close(): a failure there is an error too
      out.close()
      if (out.log?.failed) throw out.log.failed
      if (flags.json)
        summary = summaryJson(result, modelJson(result, o.pace, o.speed, result.stats.histogramMode))
      written.push(...writeSummaries(flags, result, summary))
    } finally {
      stopHandling()
      out.close()
    }
    if (flags.record) written.push(`${flags.record} (--record)`)
    if (flags['jsonl-out']) written.push(`${flags['jsonl-out']} (--jsonl-out)`)
    if (!flags.quiet) for (const w of written) process.stderr.write(`wrote ${w}\n`)
    if (!flags.quiet) for (const line of resultTable(result, o.pace)) this.log(line)
    if (result.recordsFailed > 0)
      throw lmtError('REPLAY_RECORDS_FAILED', `${result.recordsFailed} record(s) failed`)
    return summary === undefined ? undefined : JSON.parse(summary)
  }

  /** The replay itself: the record count for progress lines, the banner, the driver, the warnings' totals. */
  private async replay(o: RunSettings, out: RecordOutputs, signal: AbortSignal): Promise<ReplayResult> {
    const {flags, warnings} = o
    try {
      const progress = flags.progress ?? o.pace === 'realtime'
      const bar = createProgressBar({
        enabled: !progress && !flags.quiet && !this.jsonEnabled(),
        label: 'replaying',
        unit: 'bytes',
      })
      out.bar = bar
      const traceBytes = statSync(o.file).size
      const total =
        progress || flags.verbose
          ? (await countTrace(o.file, {maxFrameBytes: o.maxFrameBytes})).totalRecords
          : 0
      const runDigest = o.level.configDigest?.(o.config).digest ?? ''
      if (!flags.quiet && configMismatch(runDigest, o.header.smConfigDigest))
        process.stderr.write(
          banner(
            o.level.name,
            runDigest,
            o.header.smConfigDigest,
            o.pace,
            o.speed,
            Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
          ) + '\n',
        )
      warnings.replaying = true
      return await replayTrace({
        file: o.file,
        level: o.level,
        config: o.config,
        header: o.header,
        pace: o.pace,
        speed: o.speed,
        maxFrameBytes: o.maxFrameBytes,
        exactLatency: flags['exact-latency'],
        recordPath: flags.record,
        warn: (code, key, message) => warnings.warn(code, key, message),
        signal,
        onRecord: out.onRecord(progress, total),
        onProgress: (records, offset) => bar.update(offset, traceBytes, `${countText(records)} records`),
      })
    } finally {
      out.bar?.stop()
      warnings.replaying = false
      out.flush()
      warnings.totals()
    }
  }

  private listLevels(levels: Awaited<ReturnType<typeof discoverLevels>>) {
    const listing = []
    for (const name of levels.names()) {
      const r = levels.levels.get(name)
      if (!r) continue
      this.log(`${name}  ${r.source}  ${r.level.description}`)
      for (const [flag, def] of Object.entries(r.level.flags))
        this.log(`    --${flag}  ${(def as {summary?: string}).summary ?? ''}`)
      listing.push({
        name,
        source: r.source,
        description: r.level.description,
        flags: Object.keys(r.level.flags).map((f) => `--${f}`),
      })
    }
    return {levels: listing}
  }
}

interface RunSettings {
  file: string
  level: ReplayLevel
  config: unknown
  header: LctHeader
  pace: 'virtual' | 'realtime'
  speed: number
  maxFrameBytes: number
  flags: ReplayFlags
  warnings: Warnings
}

type ReplayFlags = {[K in keyof typeof baseFlags]: unknown} & {
  verbose: boolean
  progress?: boolean
  'jsonl-out'?: string
  'output-dir': string
  'no-csv': boolean
  json: boolean
  quiet: boolean
  record?: string
  'exact-latency': boolean
}

/** Writes the CSV and (with --json) the summary atomically; returns their paths. */
function writeSummaries(flags: ReplayFlags, result: ReplayResult, summary: string | undefined): string[] {
  const outDir = flags['output-dir']
  const files: Array<[string, string]> = []
  if (!flags['no-csv']) files.push([join(outDir, 'trace_replay_ops.csv'), opsCsv(result)])
  if (summary !== undefined) files.push([join(outDir, 'trace_replay_summary.json'), summary])
  try {
    for (const [path, data] of files) writeFileAtomic(path, data)
  } catch (err) {
    throw outputError('REPLAY_OUTPUT', `cannot write outputs in ${outDir}`, err)
  }
  return files.map(([path]) => path)
}

/** Warnings printed once per code and key, then counted (the totals come after the replay). */
class Warnings {
  private readonly counts = new Map<string, number>()
  /** per-record progress lines: a warning keeps its place among them */
  progress: ChunkedText | undefined
  replaying = false

  warn(code: string, key: string, message: string): void {
    const k = `${code}\u0000${key}`
    const n = (this.counts.get(k) ?? 0) + 1
    this.counts.set(k, n)
    if (n > 1) return
    if (this.progress) {
      this.progress.add(`warning: ${message}\n`)
      if (!this.replaying) this.progress.flush() // outside the replay a warning shows at once
    } else process.stderr.write(`warning: ${message}\n`)
  }

  totals(): void {
    for (const [k, n] of this.counts)
      if (n > 1)
        process.stderr.write(
          `warning: ${n - 1} more of: ${k.split('\u0000')[0]} (${k.split('\u0000')[1].slice(0, 80)})\n`,
        )
    this.counts.clear()
  }
}

/** The per-record outputs (progress on stderr, verbose on stdout, the --jsonl-out log), opened before the replay. */
class RecordOutputs {
  // chunked unless a terminal shows them
  readonly progressText = new ChunkedText((c) => {
    this.bar?.clearLine() // a progress bar's line is cleared before a warning or a progress line is written
    process.stderr.write(c)
  }, process.stderr.isTTY)
  /** the bar on a terminal (unless per-record lines show the progress) */
  bar: ProgressBar | undefined
  readonly verboseText: ChunkedText
  readonly log: RecordLog | undefined
  // stdout closed early (`lmt replay … --verbose | head`): the per-record lines stop, the replay and its files go on
  private stdoutClosed = false

  constructor(
    private readonly flags: ReplayFlags,
    controller: AbortController,
  ) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') this.stdoutClosed = true
      else throw err
    })
    this.verboseText = new ChunkedText((c) => {
      if (!this.stdoutClosed) process.stdout.write(c)
    }, process.stdout.isTTY)
    checkReplayOutputs(flags['output-dir'], flags)
    // a failed write of the log ends the replay with its error
    const jsonl = flags['jsonl-out']
    if (jsonl) this.log = new RecordLog(jsonl, (err) => controller.abort(err))
  }

  /** The driver's per-record callback: only when something shows per-record outcomes (the driver then builds none). */
  onRecord(progress: boolean, total: number): Parameters<typeof replayTrace>[0]['onRecord'] {
    const verbose = this.flags.verbose && !this.flags.json
    if (!progress && !verbose && !this.log) return undefined
    return (o) => {
      if (progress) this.progressText.add(progressLine(o, total) + '\n')
      if (verbose && !this.stdoutClosed) this.verboseText.add(verboseLine(o, total) + '\n')
      this.log?.add(jsonlLine(o))
    }
  }

  /** Writes the progress and verbose lines gathered. */
  flush(): void {
    this.progressText.flush()
    this.verboseText.flush()
  }

  /** Writes what is gathered and closes the log (idempotent, synchronous). */
  close(): void {
    this.flush()
    this.log?.close()
  }
}

function speedOf(pace: 'virtual' | 'realtime', flag: string | undefined): number {
  if (flag === undefined) return 1
  if (pace === 'virtual') throw lmtError('REPLAY_USAGE', '--speed applies to --pace realtime only')
  const speed = Number(flag)
  if (!(speed > 0)) throw lmtError('REPLAY_USAGE', '--speed must be a number > 0')
  return speed
}

/** The trace's header; one that lmt cannot replay is a usage error (exit 2), other trace errors exit 1. */
async function readHeader(file: string, maxFrameBytes: number): Promise<LctHeader> {
  try {
    const reader = await openTrace(file, {maxFrameBytes, name: file})
    const header = reader.header
    await reader.close()
    return header
  } catch (err) {
    if (
      err instanceof LctError &&
      ['LCT_G0_HEADER', 'LCT_UNSUPPORTED_FORMAT', 'LCT_UNSUPPORTED_SCHEMA'].includes(err.kind)
    )
      throw new LmtError(err.kind, err.message, {exitCode: 2})
    throw err
  }
}

function levelOf(
  levels: Awaited<ReturnType<typeof discoverLevels>>,
  flag: string | undefined,
  header: LctHeader,
): ReplayLevel {
  const levelName = flag ?? header.level
  if (flag !== undefined && flag !== header.level)
    throw lmtError('REPLAY_LEVEL_MISMATCH', `trace level is '${header.level}' but --level ${flag} was given`)
  const reg = levels.levels.get(levelName)
  if (!reg)
    throw lmtError(
      'REPLAY_UNKNOWN_LEVEL',
      `unknown replay level '${levelName}'; known levels: ${levels.names().join(', ')}`,
      {suggestions: ['install the lmt plugin that provides this level (lmt plugins install …)']},
    )
  return reg.level
}

function checkSchema(level: ReplayLevel, header: LctHeader, allowSchema1: boolean, warnings: Warnings): void {
  if (level.replayableSchemaVersions.includes(header.traceSchemaVersion)) return
  if (header.traceSchemaVersion === 1 && allowSchema1)
    warnings.warn(
      'schema1',
      '',
      'replaying a schema-1 trace: cache salts were not recorded; keys that differed only by salt are merged',
    )
  else if (header.traceSchemaVersion === 1) throw lmtError('REPLAY_SCHEMA_NOT_REPLAYABLE', SCHEMA_1_MESSAGE)
  else
    throw lmtError(
      'REPLAY_SCHEMA_NOT_REPLAYABLE',
      `trace_schema_version ${header.traceSchemaVersion} is not replayable by level ${level.name} (replayable: ${level.replayableSchemaVersions.join(', ')})`,
    )
}

function levelConfig(level: ReplayLevel, flags: Record<string, unknown>, header: LctHeader): unknown {
  try {
    return level.parseConfig(flags, header, (m) => process.stderr.write(`warning: ${m}\n`))
  } catch (err) {
    if (err instanceof LmtError) throw err
    throw lmtError('REPLAY_CONFIG', (err as Error).message)
  }
}

/** Every output path before the work: no device or FIFO is written over, and the folders exist (or the error). */
function checkReplayOutputs(
  outDir: string,
  flags: {'no-csv': boolean; json: boolean; record?: string; 'jsonl-out'?: string},
): void {
  const files = [
    ...(flags['no-csv'] ? [] : [join(outDir, 'trace_replay_ops.csv')]),
    ...(flags.json ? [join(outDir, 'trace_replay_summary.json')] : []),
    ...(flags.record ? [flags.record] : []),
    ...(flags['jsonl-out'] ? [flags['jsonl-out']] : []),
  ]
  for (const f of files) refuseNonRegularOutput(f, 'REPLAY_OUTPUT')
  ensureDirectory(outDir, 'REPLAY_OUTPUT')
  for (const f of files) ensureDirectory(dirname(f), 'REPLAY_OUTPUT')
}
