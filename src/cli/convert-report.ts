import type {ConvertSummary, InputSummary, TraceCounts} from '../convert/summary.js'

function kv(record: Record<string, number>): string {
  const entries = Object.entries(record)
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ')
}

function traces(t: TraceCounts): string {
  return `${t.total}` + (Object.keys(t.byType).length ? ` (${kv(t.byType)})` : '')
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
 * The closing summary. Each input's line was printed as it finished (renderInputLine), so its counts are not
 * repeated: the totals (with the reasons) stand for them; then per instance. `elapsedMs`: the time of the whole
 * command.
 */
export function renderSummary(s: ConvertSummary, elapsedMs: number): string[] {
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
  return [
    'summary:',
    `  total: lines read ${totalOf('linesRead')}, blank ${totalOf('blankLines')}, converted ${totalOf('converted')}`,
    `    skipped: ${kv(merge('skipped'))}; dropped: ${kv(merge('dropped'))}; notes: ${kv(merge('notes'))}`,
    `  traces: ${traces(s.traces)}, ${s.ordering}; warnings: ${s.warnings}`,
    ...s.instances.map(
      (i) => `  instance ${i.instanceId}: block size ${i.blockSize ?? 'n/a'}, traces ${i.traces}`,
    ),
    `  wrote ${s.output} in ${(elapsedMs / 1000).toFixed(2)} s`,
  ]
}
