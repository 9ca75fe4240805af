import {rmSync} from 'node:fs'
import {Args, type Interfaces} from '@oclif/core'
import {STDIO, stdinAsFile} from '../stdin-file.js'
import {checkMaxFrameBytes} from '../lct-flags.js'
import {replayBaseFlags as baseFlags, reservedReplayFlagNames} from '../replay-flags.js'
import {handleInterrupts} from '../interrupts.js'
import {LctCommand} from '../lct-command.js'
import {countText, createProgressBar, isSilent} from '../progress.js'
import {RecordOutputs, Warnings} from '../replay-sinks.js'
import {banner, configMismatch, resultTable} from '../trace-report.js'
import {lmtError} from '../../errors.js'
import {discoverLevels} from '../../plugins/replay-levels.js'
import {levelsListing} from './levels.js'
import type {ReplayResult} from '../../replay/driver.js'
import {commitReplayOutputs, type ReplayFiles} from '../../replay/outputs.js'
import type {PlaceFile} from '../../replay/record-file.js'
import {type ReplayRequest, replayRequest, type ReplayRun, runReplay} from '../../replay/run.js'
import type {Replacement} from '../../util/replace-set.js'
import {storageLevel} from '../../replay/storage/storage-level.js'

export default class Replay extends LctCommand {
  static override summary = "Replay an LMCache .lct trace against a model of LMCache's StorageManager"

  static override description = `Reissues every recorded call at its recorded trace time against the target of the trace's level: for "storage", a bookkeeping-faithful model of LMCache's StorageManager (L1 with TTL locks, LRU eviction, mock L2, store and prefetch controllers). --pace virtual (default) runs a deterministic discrete-event clock, so an hour of trace replays in seconds and identically on every machine. Exit 1 if any record failed; skipped records (no handler, undecodable args) are counted, not failed. The table goes to stdout (with --json: the summary document instead); warnings and the list of the files written go to stderr. Files are written only when asked for: --output-dir (the per-operation CSV and, with --json, the summary), --record, --jsonl-out.`

  static override examples = [
    {
      description: "The sample trace with its recorder's config (digest 6bddebcb)",
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU',
    },
    {
      description:
        'The configuration from the trace header; the summary as JSON, and its files in replay-out/',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --config-from-header --json --output-dir replay-out/',
    },
    {
      description:
        'A trace recorded with a mock L2 (v2_mock_l2.lct is the sample above re-recorded by lmt with this L2), replayed with the same configuration and re-recorded',
      command: `<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_mock_l2.lct --l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU --l2-adapter '{"type": "mock", "max_size_gb": 1, "mock_bandwidth_gb": 4}' --record rerecorded.lct`,
    },
    {
      description: 'Wall-clock pacing, four times faster, one line per record',
      command:
        '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU --pace realtime --speed 4',
    },
    '<%= config.bin %> <%= command.id %> --list-levels',
  ]

  static override usage = [
    '<%= command.id %> FILE (--l1-size-gb GIB --eviction-policy LRU|noop | --config-from-header) [FLAGS]',
    '<%= command.id %> --list-levels',
  ]

  static override args = {
    file: Args.string({description: '.lct trace file (gzip or zstd compressed too; - for standard input)'}),
  }

  static override flags = {
    ...baseFlags,
    ...(storageLevel.flags as typeof storageLevel.flags & Record<string, never>),
  }

  static override enableJsonFlag = true

  async run(): Promise<unknown> {
    const warnings = new Warnings()
    // 1. base flags; every known level's flags are accepted here, the header decides which apply (step 7)
    const discoveryWarnings: string[] = []
    const levels = await discoverLevels(
      this.config,
      (m) => {
        discoveryWarnings.push(m)
        process.stderr.write(`warning: ${m}\n`)
      },
      reservedReplayFlagNames(),
    )
    const allLevelFlags: Record<string, unknown> = {}
    for (const r of levels.levels.values())
      for (const [k, v] of Object.entries(r.level.flags)) allLevelFlags[k] ??= v
    const first = await this.parse({
      flags: {...(allLevelFlags as typeof baseFlags), ...baseFlags},
      args: Replay.args,
      strict: true,
    })
    if (first.flags['list-levels']) return this.listLevels(levels, discoveryWarnings)
    const settings = await this.settings(first.args.file, first.flags, levels, warnings)
    return this.execute(settings)
  }

  /** Steps 2–8 (docs/storage-replay.md §1.4): the trace, its header, the level, the strict parse, the config. */
  private async settings(
    file: string | undefined,
    flags: ReplayFlags,
    levels: Awaited<ReturnType<typeof discoverLevels>>,
    warnings: Warnings,
  ): Promise<RunSettings> {
    if (!file)
      throw lmtError('REPLAY_NO_TRACE', {
        suggestions: ['lmt replay trace.lct --l1-size-gb 8 --eviction-policy LRU'],
      })
    if (file === STDIO) file = await stdinAsFile() // read by path (and more than once)
    const request = await replayRequest({
      file,
      maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes']),
      pace: flags.pace as 'virtual' | 'realtime',
      speed: flags.speed,
      level: flags.level,
      allowSchema1: flags['allow-schema-1'],
      levels,
      parseWithLevel: async (level) =>
        (
          await this.parse({
            flags: {...baseFlags, ...(level.flags as typeof baseFlags)},
            args: Replay.args,
            strict: true,
          })
        ).flags as ReplayFlags,
      warn: (c, k, m) => warnings.warn(c, k, m),
      configWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    })
    return {...request, warnings}
  }

  /**
   * Steps 9 and on: the outputs opened, Ctrl-C handled (until the outputs are in place: none is cut short), the
   * replay, the output set (summary files, --record file, log) replaced at once, the list of the files written, the
   * table; the summary document returned for --json.
   */
  private async execute(o: RunSettings): Promise<unknown> {
    const {flags} = o
    const files = {...replayFiles(flags), input: o.file}
    const controller = new AbortController()
    const out = new RecordOutputs({verbose: flags.verbose, json: flags.json, files}, controller)
    o.warnings.progress = out.progressText
    // the finished --record file, until the output set takes it
    let record: Replacement | undefined
    const dropRecord = () => {
      if (record) rmSync(record.tmp, {force: true})
      record = undefined
    }
    const stopHandling = handleInterrupts({
      json: this.jsonEnabled(),
      // the abort removes the --record temporary file at once; the JSONL log is kept as far as it got
      cleanup: () => {
        controller.abort(lmtError('CLI_INTERRUPTED', 'a signal'))
        out.close()
        dropRecord()
      },
    })
    let result: ReplayResult
    let summary: string | undefined
    const written: string[] = []
    try {
      ;({result, summary} = await this.replay(o, out, controller.signal, (r) => (record = r)))
      // the last lines are written by finish(): a failure there is an error too
      out.log?.finish()
      if (out.log?.failed) throw out.log.failed
      const done = [record, out.log?.handOver()].filter((r): r is Replacement => r !== undefined)
      record = undefined
      written.push(...commitReplayOutputs(files, result, summary, done))
    } finally {
      stopHandling()
      out.close()
      dropRecord()
    }
    if (flags.record) written.push(`${flags.record} (--record)`)
    if (flags['jsonl-out']) written.push(`${flags['jsonl-out']} (--jsonl-out)`)
    // under --json stderr keeps the warnings only, as in every command
    if (!flags.quiet && !flags.json) for (const w of written) process.stderr.write(`wrote ${w}\n`)
    if (!flags.quiet) for (const line of resultTable(result, o.pace)) this.log(line)
    if (result.recordsFailed > 0) throw lmtError('REPLAY_RECORDS_FAILED', result.recordsFailed)
    return summary === undefined ? undefined : JSON.parse(summary)
  }

  /** The replay with its console: the progress bar or per-record lines, the banner, the warnings' totals. */
  private async replay(
    o: RunSettings,
    out: RecordOutputs,
    signal: AbortSignal,
    placeRecord: PlaceFile,
  ): Promise<ReplayRun> {
    const {flags, warnings} = o
    try {
      // per-record lines replace the bar; by default only when the wall clock paces the replay
      const perRecord = flags['per-record'] ?? (o.pace === 'realtime' && !flags.quiet && !this.jsonEnabled())
      const bar = createProgressBar({
        enabled: flags.progress && !perRecord && !flags.quiet && !this.jsonEnabled(),
        label: 'replaying',
        unit: 'bytes',
      })
      out.bar = bar
      return await runReplay(o, {
        exactLatency: flags['exact-latency'],
        recordPath: flags.record,
        placeRecord,
        warn: (code, key, message) => warnings.warn(code, key, message),
        signal,
        countRecords: perRecord || flags.verbose,
        onRecord: (total) => out.onRecord(perRecord, total),
        onProgress: isSilent(bar)
          ? undefined
          : (records, offset, bytes) => bar.update(offset, bytes, () => `${countText(records)} records`),
        onStart: () => {
          if (!flags.quiet) this.showBanner(o)
          warnings.replaying = true
        },
        summary: flags.json,
      })
    } finally {
      out.bar?.stop()
      warnings.replaying = false
      out.flush()
      warnings.totals()
    }
  }

  /** The mismatch banner (§7.7), when the run's configuration digest differs from the recorded one. */
  private showBanner(o: RunSettings): void {
    const runDigest = o.level.configDigest?.(o.config).digest ?? ''
    if (!configMismatch(runDigest, o.header.smConfigDigest)) return
    const color = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR
    process.stderr.write(
      banner(o.level.name, runDigest, o.header.smConfigDigest, o.pace, o.speed, color) + '\n',
    )
  }

  /** The levels and their flags; under --json the document of `lmt levels --json`. */
  private listLevels(levels: Awaited<ReturnType<typeof discoverLevels>>, warnings: readonly string[]) {
    if (this.jsonEnabled()) return levelsListing(levels, warnings)
    // columns as lmt levels aligns them
    const w = Math.max(0, ...levels.list().map((r) => r.name.length))
    const s = Math.max(0, ...levels.list().map((r) => r.source.length))
    for (const r of levels.list()) {
      this.log(`${r.name.padEnd(w)}  ${r.source.padEnd(s)}  ${r.level.description}`)
      for (const [flag, def] of Object.entries(r.level.flags))
        this.log(`    --${flag}  ${(def as {summary?: string}).summary ?? ''}`)
    }
    return levelsListing(levels, warnings)
  }
}

interface RunSettings extends ReplayRequest<ReplayFlags> {
  warnings: Warnings
}

type ReplayFlags = Interfaces.InferredFlags<typeof baseFlags>

/** The files the flags ask for. */
function replayFiles(flags: ReplayFlags): ReplayFiles {
  return {
    outputDir: flags['output-dir'],
    csv: flags['output-dir'] !== undefined && !flags['no-csv'],
    summary: flags['output-dir'] !== undefined && flags.json,
    record: flags.record,
    jsonlOut: flags['jsonl-out'],
  }
}
