import {Flags} from '@oclif/core'
import {maxFrameBytesFlag} from './lct-flags.js'

const OUTPUT = 'OUTPUT'

/** The flags of `lmt replay` other than a level's (a level's flags may not reuse these names). */
export const replayBaseFlags = {
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
    summary: 'Progress bar on stderr (only when it is a terminal).',
    allowNo: true,
    default: true,
    helpGroup: OUTPUT,
  }),
  'per-record': Flags.boolean({
    summary:
      'One stderr line per record, "[n/N] OK <call> (ms)", instead of the bar (default on with --pace realtime, off with -q or --json).',
    allowNo: true,
    helpGroup: OUTPUT,
  }),
  'jsonl-out': Flags.string({
    summary: 'Write one JSON line per record to this file (a log: kept as far as the replay got).',
    helpGroup: OUTPUT,
  }),
  'output-dir': Flags.string({
    summary:
      'Write trace_replay_ops.csv (and, with --json, trace_replay_summary.json) into this directory (default: no files).',
    helpGroup: OUTPUT,
  }),
  'no-csv': Flags.boolean({
    summary: 'With --output-dir: do not write trace_replay_ops.csv.',
    default: false,
    helpGroup: OUTPUT,
  }),
  json: Flags.boolean({
    summary:
      'Print the summary document on stdout instead of the table (and into trace_replay_summary.json with --output-dir); errors as JSON.',
    default: false,
    helpGroup: OUTPUT,
  }),
  quiet: Flags.boolean({
    char: 'q',
    summary:
      'No banner, no progress bar or per-record lines, no terminal table, no list of the files written.',
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

/**
 * Every flag name a replay level may not declare: the base flags, the negations oclif derives (`--no-x` of an
 * `allowNo` flag; `x` of a flag spelled `no-x`, which a level's `--x` with `allowNo` would shadow) and oclif's `help`.
 */
export function reservedReplayFlagNames(flags: Record<string, object> = replayBaseFlags): Set<string> {
  const names = new Set(['help'])
  for (const [name, def] of Object.entries(flags)) {
    names.add(name)
    if (name.startsWith('no-')) names.add(name.slice(3))
    if ((def as {allowNo?: boolean}).allowNo === true) names.add(`no-${name}`)
  }
  return names
}
