// The report page of an LMCache `events` trace: LMCache's own `trace info` figures (its header block and events
// summary) beside the events level's replay — occupancy per tier and backend over time against the declared
// capacities, deletions (evictions among them) over time, and the stream's health. Every figure's cell carries its
// exact value (`data-value`) for a reader of the page.
import {eventsSummaryLines} from '../../formats/lct/events-summary.js'
import type {EventsReportDocument} from '../../replay/events/events-report.js'
import {linePoints, pct, timeAxis, unit, type Chart} from '../charts/vega-parts.js'
import {escapeHtml, type FigureRow, cell, rowsTable} from './escape-html.js'
import {chartFigure, standalonePage} from './html.js'

const GIB = 2 ** 30

/** a compartment of the replay (tier/backend/scope): its name and figures (the fields of COMPARTMENT_COLUMNS) */
interface Compartment {
  compartment: string
  capacity_bytes: number
  [field: string]: number | string
}

interface Replay {
  stream: Record<string, number> & {streams: unknown[]}
  compartments: Compartment[]
  over_time: {compartments: string[]; points: Array<{t_s: number; used_bytes: number[]; deletes: number}>}
}

const int = (n: number) => n.toLocaleString('en-US')
const gib = (n: number) =>
  `${(n / GIB).toLocaleString('en-US', {minimumFractionDigits: 2, maximumFractionDigits: 2})} GiB`

/** a row whose figure is a count */
const counted = (label: string, key: string, n: number): FigureRow => [label, key, n, int(n)]

/** LMCache's `trace info`: the header block and the events block, as tables and as the text it prints. */
function traceInfoSection(doc: EventsReportDocument): string {
  const t = doc.trace
  const e = doc.lmcache_trace_info
  const header: FigureRow[] = [
    ['level', 'level', t.level, t.level],
    ['format_version', 'format_version', t.format_version, String(t.format_version)],
    ['trace_schema_version', 'trace_schema_version', t.trace_schema_version, String(t.trace_schema_version)],
    ['duration (s)', 'duration_s', t.duration_s, t.duration_s.toFixed(3)],
    [
      'sm_config_digest',
      'sm_config_digest',
      t.sm_config_digest,
      t.sm_config_digest === '' ? '(none)' : t.sm_config_digest,
    ],
    ...Object.keys(t.level_meta)
      .sort()
      .map((k): [string, string, string, string] => {
        const v = t.level_meta[k]
        const text = typeof v === 'string' ? v : JSON.stringify(v)
        return [k, `level_meta.${k}`, text, text]
      }),
    counted('total_records', 'total_records', t.total_records),
    ...Object.entries(t.ops).map(([q, n]) => counted(`ops: ${q}`, `ops.${q}`, n)),
  ]
  const events: FigureRow[] = [
    counted('instances', 'events.instances', e.instances.length),
    ...e.instances.map((i): FigureRow => [
      `  ${i.instance_id}`,
      `events.instance.${i.instance_id}`,
      `incarnations=[${i.incarnations.join(', ')}] restarts=${i.restarts}`,
      `incarnations [${i.incarnations.join(', ')}], restarts ${i.restarts}`,
    ]),
    ...e.batches.map((b) => {
      const id = `${b.event_type}/${b.tier}/${b.backend || '-'}/${b.shared ? 'shared' : 'local'}`
      return counted(`batches ${id}`, `events.batches.${id}`, b.count)
    }),
    ...Object.entries(e.entries).map(([k, n]) => counted(`entries: ${k}`, `events.entries.${k}`, n)),
    ['store_bytes', 'events.store_bytes', e.store_bytes, `${int(e.store_bytes)} (${gib(e.store_bytes)})`],
    counted('entries_with_tokens', 'events.entries_with_tokens', e.entries_with_tokens),
    ...Object.entries(e.lifecycle).map(([k, n]) => counted(`lifecycle: ${k}`, `events.lifecycle.${k}`, n)),
  ]
  return `<section id="lmcache-trace-info"><h2>LMCache's trace info</h2>
<p>What <code>lmcache trace info</code> (and <code>lmt trace info</code>) reports for this file: the header and the summary of its cache-event batches.</p>
<div class="info-tables">${rowsTable('trace-info-header', 'Header and records', header)}${rowsTable('trace-info-events', 'Events', events)}</div>
<details><summary class="note">The events block as <code>lmt trace info</code> prints it</summary><pre id="trace-info-text">${escapeHtml(eventsSummaryLines(e).join('\n'))}</pre></details>
</section>`
}

/** the compartments table's columns after the first: heading, field, and how its value reads */
const COMPARTMENT_COLUMNS: Array<[string, string, (v: number) => string]> = [
  ['declared capacity', 'capacity_bytes', (v) => (v > 0 ? gib(v) : 'undeclared')],
  ['peak occupancy', 'used_bytes_peak', gib],
  ['peak at (s)', 'used_bytes_peak_at_s', (v) => v.toFixed(1)],
  ['final occupancy', 'used_bytes_final', gib],
  ['objects at the end', 'objects_final', int],
  ['stores', 'stores', int],
  ['deletes', 'deletes', int],
  ['deleted bytes', 'deleted_bytes', gib],
  ['deletes of unknown objects', 'deletes_of_unknown_objects', int],
  ['accesses', 'accesses', int],
  ['accesses of absent objects', 'accesses_of_absent_objects', int],
  ['batches over capacity', 'batches_over_capacity', int],
]

function compartmentsTable(r: Replay): string {
  const head = ['tier/backend/scope', ...COMPARTMENT_COLUMNS.map(([h]) => h)]
  const rows = r.compartments.map(
    (c) =>
      `<tr data-compartment="${escapeHtml(c.compartment)}"><th scope="row">${escapeHtml(c.compartment)}</th>${COMPARTMENT_COLUMNS.map(
        ([, f, text]) => cell(`${c.compartment}.${f}`, c[f], text(c[f] as number)),
      ).join('')}</tr>`,
  )
  return `<table id="compartments-table" class="numbers wide"><caption>Per tier, backend and scope (local or shared), replayed from the store, delete and access batches; capacities from the config batches</caption>
<thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`
}

/** the stream's health: each figure's label and field (a count) */
const STREAM_ROWS: Array<[string, string]> = [
  ['Event batches', 'batches'],
  ['Streams (instance, incarnation)', 'streams'],
  ['Streams cut (no stop mark)', 'cut_streams'],
  ['Batches lost (seq gaps)', 'lost_batches'],
  ['Seq gaps', 'seq_gaps'],
  ['Seq going backwards', 'seq_backwards'],
  ['Batches after a stop mark', 'batches_after_stop'],
  ['Dropped events (LMCache)', 'dropped_events'],
  ['Restarts', 'restarts'],
]

function streamTable(r: Replay): string {
  const s = r.stream
  const rows = STREAM_ROWS.map(([label, f]) =>
    counted(label, `stream.${f}`, f === 'streams' ? s.streams.length : s[f]),
  )
  return rowsTable('stream-table', "The stream's health", rows)
}

/** the compartments' colours (one per compartment, in the replay's order) */
function compartmentColor(ids: readonly string[]): Record<string, unknown> {
  return {
    field: 'compartment',
    type: 'nominal',
    title: 'tier/backend/scope',
    scale: {domain: [...ids], scheme: 'tableau10'},
  }
}

/**
 * Occupancy over time per compartment: in GiB, or (`share`) as a share of the capacity each compartment declares
 * (those that declare none are left out).
 */
function occupancyChart(r: Replay, share: boolean): Chart {
  const ids = r.over_time.compartments
  const declared = new Map(
    r.compartments.filter((c) => c.capacity_bytes > 0).map((c) => [c.compartment, c.capacity_bytes]),
  )
  const field = share ? 'share' : 'used_gib'
  const values = r.over_time.points.flatMap((p) =>
    ids.flatMap((id, i) => {
      const per = share ? declared.get(id) : GIB
      return per === undefined ? [] : [{t: p.t_s, compartment: id, [field]: (p.used_bytes[i] ?? 0) / per}]
    }),
  )
  const y = share
    ? {field, type: 'quantitative', title: 'share of the declared capacity', axis: pct}
    : {field, type: 'quantitative', title: 'occupancy (GiB)'}
  const tooltip = [
    {field: 'compartment', title: 'tier/backend/scope'},
    {field: 't', title: 'trace time (s)', format: ',.1f'},
    share ? {field, title: 'of capacity', format: '.1%'} : {field, title: 'GiB', format: ',.3f'},
  ]
  const layer = linePoints(timeAxis, y, compartmentColor(ids), tooltip)
  if (share)
    return {
      id: 'chart-pressure',
      title: 'Occupancy against capacity',
      caption:
        'The same occupancy as a share of the capacity each config batch declares (compartments that declare none are left out). Near 100 % the backend must evict to store more.',
      spec: unit('Occupancy as a share of the declared capacity', values, {layer}),
    }
  return {
    id: 'chart-occupancy',
    title: 'Occupancy over time',
    caption:
      "Bytes each tier, backend and scope holds after each flush of LMCache's cache events (a store adds the object's size, a delete removes it). Objects stored before the trace began are not counted.",
    spec: unit('Occupancy per tier and backend', values, {layer}),
  }
}

function deletesChart(r: Replay): Chart {
  const values = r.over_time.points.map((p) => ({t: p.t_s, series: 'deletes', deletes: p.deletes}))
  const y = {field: 'deletes', type: 'quantitative', title: 'deleted objects (cumulative)'}
  const color = {
    field: 'series',
    type: 'nominal',
    title: '',
    scale: {domain: ['deletes'], range: ['#c0392b']},
    legend: null,
  }
  const tooltip = [
    {field: 't', title: 'trace time (s)', format: ',.1f'},
    {field: 'deletes', title: 'deletes so far', format: ','},
  ]
  return {
    id: 'chart-deletes',
    title: 'Deletions over time',
    caption:
      'Objects deleted so far, every tier and backend: LMCache reports its evictions and its deletions on request alike as delete batches, so the curve is an upper bound of the evictions. A steep rise is a cache under pressure.',
    spec: unit('Deleted objects over trace time', values, {layer: linePoints(timeAxis, y, color, tooltip)}),
  }
}

/** The whole page of an events trace. */
export function renderEventsReportHtml(doc: EventsReportDocument): string {
  const r = doc.replay as unknown as Replay
  // a trace without store, delete or access batches has nothing to draw: a sentence says so instead of empty charts
  const charts =
    r.compartments.length > 0 ? [occupancyChart(r, false), occupancyChart(r, true), deletesChart(r)] : []
  const t = doc.trace
  const e = doc.lmcache_trace_info
  const meta = `${escapeHtml(t.name)} · LMCache events trace · ${int(t.total_records)} records · ${t.duration_s.toFixed(1)} s of trace · ${e.instances.length} instance${e.instances.length === 1 ? '' : 's'} · ${r.compartments.length} compartment${r.compartments.length === 1 ? '' : 's'}`
  const warnings = doc.warnings.length
    ? `<section><h2>Notices</h2><ul class="notices">${doc.warnings.map((w) => `<li class="warning">${escapeHtml(w)}</li>`).join('')}</ul></section>`
    : ''
  return standalonePage({
    name: t.name,
    version: doc.lmt_version,
    heading: 'KV-cache report: LMCache cache events',
    meta,
    body: `${traceInfoSection(doc)}
<section id="occupancy"><h2>Occupancy and evictions (the events replay)</h2>
<p>lmt's <code>events</code> replay level plays the batches in order into each tier, backend and scope: what it held, against what it declared, and how the stream of batches arrived. The same numbers: <code>lmt replay ${escapeHtml(t.name)} --json</code>.</p>
${charts.length > 0 ? `<div class="charts">${charts.map(chartFigure).join('')}</div>\n${compartmentsTable(r)}` : '<p class="note" id="no-compartments">This trace holds no store, delete or access batches: no tier or backend to chart.</p>'}
${streamTable(r)}
</section>
${warnings}`,
    charts,
  })
}
