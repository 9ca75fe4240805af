import {closeSync, mkdirSync, openSync, statSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {maxFrameBytesFlag} from '../cli/lct-flags.js'
import {ChunkedText} from '../cli/chunked-text.js'
import {LmtCommand} from '../cli/lmt-command.js'
import {countText, createProgressBar} from '../cli/progress.js'
import {LctError, LmtError, lmtError, OUTPUT_WRITE_HINT} from '../errors.js'
import {countTrace, openTrace} from '../lct/reader.js'
import type {LctHeader} from '../lct/types.js'
import {discoverLevels} from '../plugins/replay-levels.js'
import {replayTrace} from '../replay/driver.js'
import {writeFileAtomic} from '../util/atomic-write.js'
import {
  banner,
  jsonlLine,
  modelJson,
  opsCsv,
  progressLine,
  resultTable,
  summaryJson,
  verboseLine,
} from '../replay/outputs.js'
import {storageLevel} from '../../plugins/levels/storage.js'

const OUTPUT = 'OUTPUT'

const baseFlags = {
  level: Flags.string({summary: "Replay level; must equal the trace header's (default: the header's)."}),
  pace: Flags.string({
    summary: 'virtual: deterministic trace time, no sleeping; realtime: follow the wall clock.',
    options: ['virtual', 'realtime'],
    default: 'virtual',
  }),
  speed: Flags.string({summary: 'With --pace realtime: trace time runs this many times faster (default 1).'}),
  verbose: Flags.boolean({summary: 'One stdout line per record.', default: false, helpGroup: OUTPUT}),
  progress: Flags.boolean({
    summary: 'One stderr line per record instead of the bar (default on with --pace realtime).',
    allowNo: true,
    helpGroup: OUTPUT,
  }),
  'jsonl-out': Flags.string({summary: 'Write one JSON line per record to this file.', helpGroup: OUTPUT}),
  'output-dir': Flags.string({
    summary: 'Directory of trace_replay_ops.csv and trace_replay_summary.json.',
    default: '.',
    helpGroup: OUTPUT,
  }),
  'no-csv': Flags.boolean({summary: 'Do not write trace_replay_ops.csv.', default: false, helpGroup: OUTPUT}),
  json: Flags.boolean({
    summary: 'Also write trace_replay_summary.json (a file, not stdout).',
    default: false,
    helpGroup: OUTPUT,
  }),
  quiet: Flags.boolean({
    char: 'q',
    summary: 'No banner, no progress bar, no terminal table.',
    default: false,
  }),
  record: Flags.string({summary: 'Re-record the replayed calls into this .lct file.', helpGroup: OUTPUT}),
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

  static override description = `Reissues every recorded call at its recorded trace time against the target of the trace's level: for "storage", a bookkeeping-faithful model of LMCache's StorageManager (L1 with TTL locks, LRU eviction, mock L2, store and prefetch controllers). --pace virtual (default) runs a deterministic discrete-event clock, so an hour of trace replays in seconds and identically on every machine. Exit 1 if any record failed; skipped records (no handler, undecodable args) are counted, not failed.`

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

  async run(): Promise<void> {
    const warnings = new Map<string, number>()
    // per-record lines, chunked unless a terminal shows them; warnings keep their place among the progress lines
    let clearBar = (): void => {} // a progress bar's line is cleared before a warning is written
    const progressText = new ChunkedText((c) => {
      clearBar()
      process.stderr.write(c)
    }, process.stderr.isTTY)
    let replaying = false
    // stdout closed early (`lmt replay … --verbose | head`): the per-record lines stop, the replay and its files go on
    let stdoutClosed = false
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') stdoutClosed = true
      else throw err
    })
    const verboseText = new ChunkedText((c) => {
      if (!stdoutClosed) process.stdout.write(c)
    }, process.stdout.isTTY)
    const warn = (code: string, key: string, message: string): void => {
      const k = `${code}\u0000${key}`
      const n = (warnings.get(k) ?? 0) + 1
      warnings.set(k, n)
      if (n === 1) progressText.add(`warning: ${message}\n`)
      if (!replaying) progressText.flush() // outside the replay a warning shows at once
    }
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
    if (first.flags['list-levels']) {
      for (const name of levels.names()) {
        const r = levels.levels.get(name)
        if (!r) continue
        this.log(`${name}  ${r.source}  ${r.level.description}`)
        for (const [flag, def] of Object.entries(r.level.flags))
          this.log(`    --${flag}  ${(def as {summary?: string}).summary ?? ''}`)
      }
      return
    }
    const file = first.args.file
    if (!file)
      throw lmtError('REPLAY_USAGE', 'missing trace file', {
        suggestions: ['lmt replay trace.lct --l1-size-gb 8 --eviction-policy LRU'],
      })
    const pace = first.flags.pace as 'virtual' | 'realtime'
    let speed = 1
    if (first.flags.speed !== undefined) {
      if (pace === 'virtual') throw lmtError('REPLAY_USAGE', '--speed applies to --pace realtime only')
      speed = Number(first.flags.speed)
      if (!(speed > 0)) throw lmtError('REPLAY_USAGE', '--speed must be a number > 0')
    }
    // 4. header
    let header: LctHeader
    try {
      const reader = await openTrace(file, {maxFrameBytes: first.flags['max-frame-bytes'], name: file})
      header = reader.header
      await reader.close()
    } catch (err) {
      if (
        err instanceof LctError &&
        ['LCT_G0_HEADER', 'LCT_UNSUPPORTED_FORMAT', 'LCT_UNSUPPORTED_SCHEMA'].includes(err.kind)
      )
        throw new LmtError(err.kind, err.message, {exitCode: 2})
      throw err
    }
    // 5. level
    const levelName = first.flags.level ?? header.level
    if (first.flags.level !== undefined && first.flags.level !== header.level)
      throw lmtError(
        'REPLAY_LEVEL_MISMATCH',
        `trace level is '${header.level}' but --level ${first.flags.level} was given`,
      )
    const reg = levels.levels.get(levelName)
    if (!reg)
      throw lmtError(
        'REPLAY_UNKNOWN_LEVEL',
        `unknown replay level '${levelName}'; known levels: ${levels.names().join(', ')}`,
        {suggestions: ['install the lmt plugin that provides this level (lmt plugins install …)']},
      )
    const level = reg.level
    // 6. schema
    if (!level.replayableSchemaVersions.includes(header.traceSchemaVersion)) {
      if (header.traceSchemaVersion === 1 && first.flags['allow-schema-1'])
        warn(
          'schema1',
          '',
          'replaying a schema-1 trace: cache salts were not recorded; keys that differed only by salt are merged',
        )
      else if (header.traceSchemaVersion === 1)
        throw lmtError('REPLAY_SCHEMA_NOT_REPLAYABLE', SCHEMA_1_MESSAGE)
      else
        throw lmtError(
          'REPLAY_SCHEMA_NOT_REPLAYABLE',
          `trace_schema_version ${header.traceSchemaVersion} is not replayable by level ${level.name} (replayable: ${level.replayableSchemaVersions.join(', ')})`,
        )
    }
    // 7. strict parse with the level's flags
    const second = await this.parse({
      flags: {...baseFlags, ...(level.flags as typeof baseFlags)},
      args: Replay.args,
      strict: true,
    })
    // 8. level configuration
    let config: unknown
    try {
      config = level.parseConfig(second.flags as Record<string, unknown>, header, (m) =>
        process.stderr.write(`warning: ${m}\n`),
      )
    } catch (err) {
      if (err instanceof LmtError) throw err
      throw lmtError('REPLAY_CONFIG', (err as Error).message)
    }
    // 9. outputs before the work
    const flags = second.flags as typeof first.flags
    const outDir = flags['output-dir']
    let jsonlFd: number | undefined
    let jsonlText: ChunkedText | undefined
    try {
      mkdirSync(outDir, {recursive: true})
      if (flags['jsonl-out']) {
        mkdirSync(dirname(flags['jsonl-out']), {recursive: true})
        const fd = openSync(flags['jsonl-out'], 'w')
        jsonlFd = fd
        jsonlText = new ChunkedText((c) => writeSync(fd, c))
      }
    } catch (err) {
      throw lmtError('REPLAY_OUTPUT', `cannot prepare outputs: ${(err as Error).message}`)
    }
    const progress = flags.progress ?? pace === 'realtime'
    const total =
      progress || flags.verbose
        ? (await countTrace(file, {maxFrameBytes: flags['max-frame-bytes']})).totalRecords
        : 0
    const runDigest = level.configDigest?.(config).digest ?? ''
    const controller = new AbortController()
    const flushAll = (): void => {
      progressText.flush()
      verboseText.flush()
      jsonlText?.flush()
    }
    // a bar on a terminal, unless the per-record lines show the progress
    const bar = createProgressBar({enabled: !progress && !flags.quiet, label: 'replaying', unit: 'bytes'})
    clearBar = () => bar.clearLine()
    const traceBytes = statSync(file).size
    let interrupted = false
    const onSignal = (signal: NodeJS.Signals) => {
      if (interrupted) return
      interrupted = true
      controller.abort()
      bar.stop()
      flushAll()
      if (jsonlFd !== undefined) closeSync(jsonlFd)
      process.exit(signal === 'SIGINT' ? 130 : 143)
    }
    // `on`, not `once`: a second Ctrl-C during the clean-up must not fall back to the default (kill) action
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    // the banner comes once an interruption is handled
    if (!flags.quiet)
      process.stderr.write(
        banner(
          runDigest,
          header.smConfigDigest,
          pace,
          speed,
          Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
        ) + '\n',
      )
    let result
    replaying = true
    try {
      result = await replayTrace({
        file,
        level,
        config,
        header,
        pace,
        speed,
        maxFrameBytes: flags['max-frame-bytes'],
        exactLatency: flags['exact-latency'],
        recordPath: flags.record,
        warn,
        signal: controller.signal,
        onProgress: (records, offset) => bar.update(offset, traceBytes, `${countText(records)} records`),
        // only when something shows per-record outcomes: the driver then builds none
        onRecord:
          progress || flags.verbose || jsonlFd !== undefined
            ? (o) => {
                if (progress) progressText.add(progressLine(o, total) + '\n')
                if (flags.verbose && !stdoutClosed) verboseText.add(verboseLine(o, total) + '\n')
                jsonlText?.add(jsonlLine(o))
              }
            : undefined,
      })
    } finally {
      bar.stop()
      process.removeListener('SIGINT', onSignal)
      process.removeListener('SIGTERM', onSignal)
      replaying = false
      flushAll()
      if (jsonlFd !== undefined) closeSync(jsonlFd)
    }
    for (const [k, n] of warnings)
      if (n > 1)
        process.stderr.write(
          `warning: ${n - 1} more of: ${k.split('\u0000')[0]} (${k.split('\u0000')[1].slice(0, 80)})\n`,
        )
    // the summary files appear whole or not at all (the per-record JSONL is a log, kept as far as it got)
    try {
      if (!flags['no-csv']) writeFileAtomic(join(outDir, 'trace_replay_ops.csv'), opsCsv(result))
      if (flags.json)
        writeFileAtomic(
          join(outDir, 'trace_replay_summary.json'),
          summaryJson(result, modelJson(result, pace, speed, result.stats.histogramMode)),
        )
    } catch (err) {
      throw lmtError('REPLAY_OUTPUT', `cannot write outputs in ${outDir}: ${(err as Error).message}`, {
        suggestions: [OUTPUT_WRITE_HINT],
      })
    }
    if (!flags.quiet) for (const line of resultTable(result, pace)) this.log(line)
    if (result.recordsFailed > 0)
      throw lmtError('REPLAY_RECORDS_FAILED', `${result.recordsFailed} record(s) failed`)
  }
}
