// Outputs of `lmt replay` (docs/storage-replay.md §7): CSV, JSON summary, JSONL lines, the terminal table, the banner.
import {JsonFloat} from '../jsonl/json-float.js'
import {pyCenter, pyFormatFixed, pyRound} from '../util/pyfmt.js'
import {pyJsonDumps, type PyJsonValue} from '../jsonl/py-json.js'
import type {RecordOutcome, ReplayResult} from './driver.js'

const WIDTH = 64

function csvField(s: string): string {
  return /[,"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** `trace_replay_ops.csv`: CRLF lines, %.6f latencies, sorted by qualname. */
export function opsCsv(r: ReplayResult): string {
  const lines = ['qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms']
  for (const [q, s] of r.stats.summary())
    lines.push(
      [
        csvField(q),
        s.count,
        s.errors,
        ...[s.mean_ms, s.p50_ms, s.p90_ms, s.p99_ms, s.min_ms, s.max_ms].map((x) => pyFormatFixed(x, 6)),
      ].join(','),
    )
  return lines.join('\r\n') + '\r\n'
}

/** Turns observation values into Python-JSON values (plain numbers that are not integers stay floats). */
function pyValue(v: unknown): PyJsonValue {
  if (
    v instanceof JsonFloat ||
    v === null ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    typeof v === 'bigint'
  )
    return v as PyJsonValue
  if (typeof v === 'number') return Number.isInteger(v) ? v : new JsonFloat(v)
  if (Array.isArray(v)) return v.map(pyValue)
  if (typeof v === 'object')
    return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, pyValue(x)]))
  return String(v)
}

export function modelJson(
  r: ReplayResult,
  pace: string,
  speed: number,
  histogram: boolean,
): Record<string, PyJsonValue> {
  return {
    pace,
    speed: new JsonFloat(speed),
    trace_time_s: new JsonFloat(r.traceTimeS),
    nonfinite_t_mono: r.nonfiniteTMono,
    skipped: pyValue(r.skippedByReason),
    ...(pyValue(r.observations?.json ?? {}) as Record<string, PyJsonValue>),
    latency_percentiles: histogram ? 'histogram' : 'exact',
  }
}

/** `trace_replay_summary.json` (sorted keys, indent 2, ensure_ascii). */
export function summaryJson(r: ReplayResult, model: Record<string, PyJsonValue>): string {
  const ops: Record<string, PyJsonValue> = {}
  for (const [q, s] of r.stats.summary())
    ops[q] = {
      count: s.count,
      errors: s.errors,
      max_ms: new JsonFloat(s.max_ms),
      mean_ms: new JsonFloat(s.mean_ms),
      min_ms: new JsonFloat(s.min_ms),
      p50_ms: new JsonFloat(s.p50_ms),
      p90_ms: new JsonFloat(s.p90_ms),
      p99_ms: new JsonFloat(s.p99_ms),
    }
  return (
    pyJsonDumps(
      {duration_s: new JsonFloat(r.wallDurationS), latency_source: 'lmt-model-cost', model, ops},
      {sortKeys: true, indent: 2, ensureAscii: true},
    ) + '\n'
  )
}

export function jsonlLine(o: RecordOutcome): string {
  const doc: Record<string, PyJsonValue> = {
    qualname: o.qualname,
    latency_ms: new JsonFloat(o.latencyMs),
    failed: o.status === 'FAIL',
  }
  if (o.status === 'SKIP') doc.skipped = true
  return pyJsonDumps(doc) + '\n'
}

export function progressLine(o: RecordOutcome, total: number): string {
  return `[${o.index}/${total}] ${o.status} ${o.qualname} (${pyFormatFixed(o.latencyMs, 3)}ms)`
}

export function verboseLine(o: RecordOutcome, total: number): string {
  return `  [${o.index}/${total}]  ${o.status.padEnd(4)}  ${pyFormatFixed(o.latencyMs, 3).padStart(8)}ms  ${o.qualname}`
}

const cpLen = (s: string) => [...s].length

function row(label: string, value: string | number | JsonFloat | null): string {
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

/** The "Trace Replay Result" table (§7.6). */
export function resultTable(r: ReplayResult, pace: string): string[] {
  const out = [pyCenter(' Trace Replay Result ', WIDTH, '=')]
  const section = (name: string) => out.push(pyCenter(` ${name} `, WIDTH, '-'))
  section('Overall')
  out.push(
    row('Trace level', r.headerLevel),
    row('Records replayed', r.recordsReplayed),
    row('Records skipped', r.recordsSkipped),
    row('Records failed', r.recordsFailed),
  )
  out.push(row('Replay duration (s)', new JsonFloat(pyRound(r.wallDurationS, 3))))
  if (r.headerDigest !== '' && r.replayConfigDigest !== '') {
    const rec = r.headerDigest.slice(0, 8)
    out.push(
      row(
        'Config digest',
        r.headerDigest === r.replayConfigDigest
          ? `match (${rec})`
          : `MISMATCH (rec=${rec}, run=${r.replayConfigDigest.slice(0, 8)})`,
      ),
    )
  }
  const ops = r.stats.summary()
  if (ops.length > 0) {
    section('Per-Op Latency (ms, model cost)')
    for (const [q, s] of ops) {
      const n = shortName(q)
      out.push(
        row(`${n} count`, s.count),
        row(`${n} mean`, new JsonFloat(pyRound(s.mean_ms, 3))),
        row(`${n} p50`, new JsonFloat(pyRound(s.p50_ms, 3))),
        row(`${n} p99`, new JsonFloat(pyRound(s.p99_ms, 3))),
      )
    }
  }
  section('Model')
  out.push(row('Pace', pace), row('Trace time covered (s)', new JsonFloat(r.traceTimeS)))
  for (const [label, value] of r.observations?.rows ?? []) out.push(row(label, value))
  if (r.skippedByReason.decode_error) out.push(row('Skipped: decode_error', r.skippedByReason.decode_error))
  if (r.skippedByReason.unknown_tag) out.push(row('Skipped: unknown_tag', r.skippedByReason.unknown_tag))
  const noHandler = Object.values(r.skippedByReason.no_handler).reduce((a, b) => a + b, 0)
  if (noHandler) out.push(row('Skipped: no_handler', noHandler))
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
