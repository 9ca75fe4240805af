// What the console shows of `.lct` traces: `lmt trace info` (docs/lct.md §7) and `lmt replay`, LMCache's "trace
// replay" (docs/storage-replay.md §7: the result table, the banner, the progress and verbose lines). The files a
// replay writes are rendered in src/replay/outputs.ts.
import {JsonFloat} from '../formats/json/json-float.js'
import {readable} from '../formats/lct/readable.js'
import type {RawValue} from '../formats/lct/msgpack.js'
import type {TraceCount} from '../formats/lct/types.js'
import {sortedCounts} from '../formats/lct/events-summary.js'
import type {RecordOutcome, ReplayResult} from '../replay/driver.js'
import {pyCenter, pyFloatRepr, pyFormatFixed, pyRound} from '../util/pyfmt.js'

const MAX_WARNING_LINES = 20

function row(label: string, value: string): string {
  return '  ' + `${label}:`.padEnd(28) + value
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function metaValue(v: RawValue): string {
  if (typeof v === 'string') return v
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v)
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (v === null) return 'None'
  return JSON.stringify(readable(v))
}

/** The text report of `lmt trace info` (docs/lct.md §7.1). */
export function renderTraceInfo(file: string, c: TraceCount): string[] {
  const h = c.header
  const out = [
    `Trace file: ${file}`,
    row('level', h.level),
    row('format_version', String(h.formatVersion)),
    row('trace_schema_version', String(h.traceSchemaVersion)),
    row('duration', `${pyFormatFixed(c.maxTMono, 3)}s`),
    row('sm_config_digest', h.smConfigDigest === '' ? '(none)' : h.smConfigDigest),
  ]
  for (const k of Object.keys(h.levelMeta).sort(byCodePoint)) out.push(row(k, metaValue(h.levelMeta[k])))
  out.push(row('total_records', String(c.totalRecords)))
  const ops = [...c.byQualname.keys()].sort(byCodePoint)
  if (ops.length === 0) out.push('  ops: (none)')
  else {
    out.push('  ops:')
    for (const q of ops) out.push(`    ${q}: ${c.byQualname.get(q)}`)
  }
  return out
}

export function traceInfoJson(file: string, c: TraceCount) {
  const h = c.header
  const meta: Record<string, unknown> = {}
  for (const k of Object.keys(h.levelMeta))
    meta[k] = typeof h.levelMeta[k] === 'bigint' ? String(h.levelMeta[k]) : readable(h.levelMeta[k])
  return {
    file,
    level: h.level,
    format_version: h.formatVersion,
    trace_schema_version: h.traceSchemaVersion,
    duration_s: c.maxTMono,
    t_mono_start: h.tMonoStart,
    t_wall_start: h.tWallStart,
    sm_config_digest: h.smConfigDigest,
    sm_config_json: h.smConfigJson,
    placeholder_header: h.isPlaceholder,
    level_meta: meta,
    total_records: c.totalRecords,
    ops: sortedCounts(c.byQualname),
    frames_skipped: c.framesSkipped,
    truncated: c.truncated,
    warnings: c.warnings.map((w) => w.message),
  }
}

/** Warnings on stderr after the report: at most 20 lines, then a count of the rest. */
export function writeLctWarnings(messages: string[], total: number): void {
  for (const m of messages.slice(0, MAX_WARNING_LINES)) process.stderr.write(`warning: ${m}\n`)
  if (total > MAX_WARNING_LINES)
    process.stderr.write(`warning: ${total - MAX_WARNING_LINES} more warnings not shown\n`)
}

// ------------------------------------------------------------------------------------------ lmt replay

/** the width of the result table and its rows */
const WIDTH = 64

export function progressLine(o: RecordOutcome, total: number): string {
  return `[${o.index}/${total}] ${o.status} ${o.qualname} (${pyFormatFixed(o.latencyMs, 3)}ms)`
}

export function verboseLine(o: RecordOutcome, total: number): string {
  return `  [${o.index}/${total}]  ${o.status.padEnd(4)}  ${pyFormatFixed(o.latencyMs, 3).padStart(8)}ms  ${o.qualname}`
}

const cpLen = (s: string) => [...s].length

function resultRow(label: string, value: string | number | JsonFloat | null): string {
  const text =
    value === null
      ? 'N/A'
      : value instanceof JsonFloat
        ? pyFormatFixed(value.value, 2)
        : typeof value === 'number'
          ? Number.isInteger(value)
            ? String(value)
            : pyFormatFixed(value, 2)
          : value
  return `${label}:` + ' '.repeat(Math.max(1, WIDTH - cpLen(label) - 1 - cpLen(text))) + text
}

function shortName(q: string): string {
  const parts = q.split('.')
  const last = parts[parts.length - 1]
  if (last === '__enter__' || last === '__exit__')
    return `${parts[parts.length - 2]}.${last === '__enter__' ? 'enter' : 'exit'}`
  return last
}

const BINARY_UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB']

/** A count of bytes in binary units, three significant digits: 68702699520 → "64.0 GiB". */
export function binaryBytes(n: number): string {
  if (n < 1024) return `${n} B`
  let v = n
  let unit = -1
  while (v >= 1024 && unit < BINARY_UNITS.length - 1) {
    v /= 1024
    unit++
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${BINARY_UNITS[unit]}`
}

/** A row counting bytes shows them in binary units too: `68702699520 (64.0 GiB)`. */
function withBinaryUnit(label: string, value: string | number | JsonFloat): string | number | JsonFloat {
  return typeof value === 'number' && /\bbytes\b/i.test(label) && value >= 1024
    ? `${value} (${binaryBytes(value)})`
    : value
}

/** The "Trace Replay Result" table (§7.6). */
export function resultTable(r: ReplayResult, pace: string): string[] {
  const out = [pyCenter(' Trace Replay Result ', WIDTH, '=')]
  const section = (name: string) => out.push(pyCenter(` ${name} `, WIDTH, '-'))
  section('Overall')
  out.push(
    resultRow('Trace level', r.headerLevel),
    resultRow('Records replayed', r.recordsReplayed),
    resultRow('Records skipped', r.recordsSkipped),
    resultRow('Records failed', r.recordsFailed),
  )
  out.push(resultRow('Replay duration (s)', new JsonFloat(pyRound(r.wallDurationS, 3))))
  if (r.headerDigest !== '' && r.replayConfigDigest !== '') {
    const rec = r.headerDigest.slice(0, 8)
    out.push(
      resultRow(
        'Config digest',
        r.headerDigest === r.replayConfigDigest
          ? `match (${rec})`
          : `MISMATCH (rec=${rec}, run=${r.replayConfigDigest.slice(0, 8)})`,
      ),
    )
  }
  section('Model')
  out.push(resultRow('Pace', pace), resultRow('Trace time covered (s)', new JsonFloat(r.traceTimeS)))
  for (const [label, value] of r.observations?.rows ?? [])
    out.push(resultRow(label, withBinaryUnit(label, value)))
  if (r.skippedByReason.decode_error)
    out.push(resultRow('Skipped: decode_error', r.skippedByReason.decode_error))
  if (r.skippedByReason.unknown_tag)
    out.push(resultRow('Skipped: unknown_tag', r.skippedByReason.unknown_tag))
  const noHandler = Object.values(r.skippedByReason.no_handler).reduce((a, b) => a + b, 0)
  if (noHandler) out.push(resultRow('Skipped: no_handler', noHandler))
  const ops = r.stats.summary()
  if (ops.length > 0) {
    // the model's observations first: the latencies are this process's own call cost, which varies from run to run
    section('Per-Op Latency (ms, model cost)')
    for (const [q, s] of ops) {
      const n = shortName(q)
      out.push(
        resultRow(`${n} count`, s.count),
        resultRow(`${n} mean`, new JsonFloat(pyRound(s.mean_ms, 3))),
        resultRow(`${n} p50`, new JsonFloat(pyRound(s.p50_ms, 3))),
        resultRow(`${n} p99`, new JsonFloat(pyRound(s.p99_ms, 3))),
      )
    }
  }
  out.push('='.repeat(WIDTH))
  return out
}

/** Whether the replay runs with another configuration than the trace recorded (both digests known and different). */
export function configMismatch(runDigest: string, recDigest: string): boolean {
  return runDigest !== '' && recDigest !== '' && runDigest !== recDigest
}

/**
 * The warning printed before a replay whose configuration differs from the recorded one ({@link configMismatch});
 * `level` names the level replayed.
 */
export function banner(
  level: string,
  runDigest: string,
  recDigest: string,
  pace: string,
  speed: number,
  color: boolean,
): string {
  const rule = '='.repeat(78)
  const lines = [
    rule,
    '  !! REPLAY ENVIRONMENT MISMATCH MAY CAUSE RETRIEVE MISSES !!',
    rule,
    `  * The trace was recorded with config digest ${recDigest.slice(0, 8)}; this replay of level`,
    `    '${level}' runs with ${runDigest.slice(0, 8)} (the replay-side flags).`,
    "  * Hits, misses and evictions reflect the replay's configuration, not the",
    "    recording server's; --config-from-header replays with the recorded one.",
    pace === 'virtual'
      ? '  * Pace: virtual - recorded timing is reproduced exactly in trace time.'
      : `  * Pace: realtime (speed ${speed}) - a slow host lags the recorded schedule;\n    L2 transfers take their modelled time.`,
    rule,
  ]
  const text = lines.join('\n')
  return color ? `\x1b[1;33m${text}\x1b[0m` : text
}
