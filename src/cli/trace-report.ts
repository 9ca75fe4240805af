import {readable} from '../lct/readable.js'
import type {RawValue} from '../lct/msgpack.js'
import type {TraceCount} from '../lct/types.js'
import {pyFloatRepr, pyFormatFixed} from '../util/pyfmt.js'

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

export interface TraceInfoJson {
  file: string
  level: string
  format_version: number
  trace_schema_version: number
  duration_s: number
  t_mono_start: number
  t_wall_start: number
  sm_config_digest: string
  sm_config_json: string
  placeholder_header: boolean
  level_meta: Record<string, unknown>
  total_records: number
  ops: Record<string, number>
  frames_skipped: number
  truncated: boolean
  warnings: string[]
}

export function traceInfoJson(file: string, c: TraceCount): TraceInfoJson {
  const h = c.header
  const meta: Record<string, unknown> = {}
  for (const k of Object.keys(h.levelMeta))
    meta[k] = typeof h.levelMeta[k] === 'bigint' ? String(h.levelMeta[k]) : readable(h.levelMeta[k])
  const ops: Record<string, number> = {}
  for (const q of [...c.byQualname.keys()].sort(byCodePoint)) ops[q] = c.byQualname.get(q) as number
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
    ops,
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
