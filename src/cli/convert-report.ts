import type {ConvertSummary, InputSummary, TraceCounts} from '../convert/summary.js'

function kv(record: Record<string, number>): string {
  const entries = Object.entries(record)
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ')
}

function traces(t: TraceCounts): string {
  const types = Object.entries(t.byType)
  return `${t.total}` + (types.length ? ` (${types.map(([k, n]) => `${k} ${n}`).join(', ')})` : '')
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0)
}

/** One informational line per finished input. */
export function renderInputLine(s: InputSummary): string {
  const lines =
    s.linesRead === null
      ? 'lines: n/a (converter reads the file itself)'
      : `lines ${s.linesRead} (blank ${s.blankLines}, converted ${s.converted}, skipped ${sum(s.skipped)}, dropped ${sum(s.dropped)})`
  return `  input ${s.path}: ${lines}; traces ${traces(s.traces)}`
}

/**
 * The closing summary: per input and in total, then per instance. `inputsShown`: each input's line was printed as it
 * finished (renderInputLine), so its counts are not repeated: the totals (with the reasons) stand for them. `elapsedMs`:
 * the time of the whole command, from process start (default: the conversion's own).
 */
export function renderSummary(
  s: ConvertSummary,
  opts: {inputsShown?: boolean; elapsedMs?: number} = {},
): string[] {
  const out: string[] = ['summary:']
  const totalOf = (key: 'linesRead' | 'blankLines' | 'converted'): string => {
    const values = s.inputs.map((i) => i[key])
    return values.some((v) => v === null)
      ? 'n/a'
      : String(values.reduce((a, b) => (a as number) + (b as number), 0))
  }
  const merge = (key: 'skipped' | 'dropped' | 'notes'): Record<string, number> => {
    const out: Record<string, number> = {}
    for (const i of s.inputs) for (const [k, n] of Object.entries(i[key])) out[k] = (out[k] ?? 0) + n
    return out
  }
  const rows: Array<[string, InputSummary | undefined]> = opts.inputsShown
    ? []
    : s.inputs.map((i) => [i.path, i])
  for (const [name, i] of rows) {
    if (!i) continue
    out.push(
      `  ${name}: lines read ${i.linesRead ?? 'n/a'}, blank ${i.blankLines ?? 'n/a'}, converted ${i.converted ?? 'n/a'}`,
    )
    out.push(
      `    skipped: ${kv(i.skipped)}; dropped: ${kv(i.dropped)}; notes: ${kv(i.notes)}; traces: ${traces(i.traces)}`,
    )
  }
  if (s.inputs.length > 1 || opts.inputsShown) {
    out.push(
      `  total: lines read ${totalOf('linesRead')}, blank ${totalOf('blankLines')}, converted ${totalOf('converted')}`,
    )
    out.push(
      `    skipped: ${kv(merge('skipped'))}; dropped: ${kv(merge('dropped'))}; notes: ${kv(merge('notes'))}`,
    )
  }
  out.push(`  traces: ${traces(s.traces)}, ${s.ordering}; warnings: ${s.warnings}`)
  for (const inst of s.instances)
    out.push(`  instance ${inst.instanceId}: block size ${inst.blockSize ?? 'n/a'}, traces ${inst.traces}`)
  out.push(`  wrote ${s.output} in ${((opts.elapsedMs ?? s.elapsedMs) / 1000).toFixed(2)} s`)
  return out
}
