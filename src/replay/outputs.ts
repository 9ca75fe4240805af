// The files of `lmt replay` (docs/storage-replay.md §7.3, §7.4): trace_replay_ops.csv, trace_replay_summary.json and
// the --jsonl-out lines, with the checks of their paths before a replay and, after it, the replacement of the whole
// set (these two files, the --record file and the log) at once, under the output folders' lock: two replays writing
// the same outputs leave one run's set, never a mix. What the console shows (table, banner, progress and verbose
// lines) is rendered in src/cli/trace-report.ts.
import {rmSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {JsonFloat} from '../formats/json/json-float.js'
import {writeTempBeside} from '../util/atomic-write.js'
import {
  ensureDirectory,
  outputError,
  refuseNonRegularOutput,
  refuseOutputIsInput,
} from '../util/output-path.js'
import {pyFormatFixed} from '../util/pyfmt.js'
import {replaceAsSet, type Replacement} from '../util/replace-set.js'
import {pyJsonDumps, type PyJsonValue} from '../formats/json/py-json.js'
import type {RecordOutcome, ReplayResult} from './driver.js'

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

/** Which files a replay writes besides the per-record log. */
export interface ReplayFiles {
  /** the trace replayed: no output may be it */
  input?: string
  /** the folder of the CSV and the summary file; none: neither is written */
  outputDir?: string
  /** trace_replay_ops.csv (with an output folder, not with --no-csv) */
  csv: boolean
  /** trace_replay_summary.json (with an output folder and --json) */
  summary: boolean
  record?: string
  jsonlOut?: string
}

const OPS_CSV = 'trace_replay_ops.csv'
const SUMMARY_JSON = 'trace_replay_summary.json'

/**
 * Every output path before the work: no device or FIFO is written over, no output is the trace replayed, and the
 * folders exist (or the error).
 */
export function checkReplayOutputs(f: ReplayFiles): void {
  const dir = f.outputDir
  const files = [
    ...(f.csv && dir !== undefined ? [join(dir, OPS_CSV)] : []),
    ...(f.summary && dir !== undefined ? [join(dir, SUMMARY_JSON)] : []),
    ...(f.record ? [f.record] : []),
    ...(f.jsonlOut ? [f.jsonlOut] : []),
  ]
  for (const path of files) refuseNonRegularOutput(path, 'REPLAY_OUTPUT_FAILED')
  for (const path of files) refuseOutputIsInput(path, [f.input])
  if (dir !== undefined) ensureDirectory(dir, 'REPLAY_OUTPUT_FAILED')
  for (const path of files) ensureDirectory(dirname(path), 'REPLAY_OUTPUT_FAILED')
}

/**
 * Writes the CSV and (given the summary document) the summary beside their paths, then replaces them and the
 * finished files in `done` (the --record file, the log) all together, or none (REPLAY_OUTPUT_FAILED; the
 * temporaries are gone either way); returns the paths of the CSV and the summary.
 */
export function commitReplayOutputs(
  f: ReplayFiles,
  result: ReplayResult,
  summary: string | undefined,
  done: readonly Replacement[],
): string[] {
  const dir = f.outputDir
  const files: Array<[string, string]> = []
  if (dir !== undefined && f.csv) files.push([join(dir, OPS_CSV), opsCsv(result)])
  if (dir !== undefined && f.summary && summary !== undefined) files.push([join(dir, SUMMARY_JSON), summary])
  const set = [...done]
  const removeAll = () => {
    for (const r of set) rmSync(r.tmp, {force: true})
  }
  try {
    for (const [path, data] of files) set.push({tmp: writeTempBeside(path, data), path})
  } catch (err) {
    removeAll()
    throw outputError('REPLAY_OUTPUT_FAILED', `cannot write outputs in ${dir}`, err)
  }
  try {
    for (const r of set) refuseOutputIsInput(r.path, [f.input]) // a link made meanwhile
    replaceAsSet(set)
  } catch (err) {
    removeAll()
    const paths = set.map((r) => r.path).join(', ')
    throw outputError('REPLAY_OUTPUT_FAILED', `cannot replace the outputs ${paths}`, err)
  }
  return files.map(([path]) => path)
}
