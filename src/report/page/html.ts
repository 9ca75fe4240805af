// The report as one self-contained HTML page: the document's numbers as tables, its charts rendered in the browser by
// vega-embed, with vega, vega-lite and vega-embed inlined (the page opens offline, from a file).
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {capacityChart, overTimeChart} from '../charts/answer-charts.js'
import {traceCharts} from '../charts/trace-charts.js'
import type {Chart} from '../charts/vega-parts.js'
import {pageScript, pageStyle} from './page-assets.js'
import type {Characterized, Profile} from '../characterize.js'
import type {ReportDocument} from '../report.js'
import {TARGETS} from '../capacity-table.js'
import {escapeHtml} from './escape-html.js'
import {lmcacheLookupHtml} from './lmcache-html.js'

const require = createRequire(import.meta.url)

/** the UMD builds, in load order (vega-lite and vega-embed find their dependencies as globals), beside each main */
const LIBRARIES: Array<[string, string]> = [
  ['vega', 'vega.min.js'],
  ['vega-lite', 'vega-lite.min.js'],
  ['vega-embed', 'vega-embed.min.js'],
]

function libraryScripts(): string {
  return LIBRARIES.map(([name, file]) => {
    const code = readFileSync(join(dirname(require.resolve(name)), file), 'utf8')
    // a literal "</script" inside the code would end the element early
    return `<script>${code.replace(/<\/(script)/gi, '<\\/$1')}</script>`
  }).join('\n')
}

/** JSON that can sit inside a <script> element */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

export const int = (n: number | null | undefined) =>
  n === null || n === undefined ? '–' : Math.round(n).toLocaleString('en-US')
export const pct = (r: number | null | undefined, digits = 1) =>
  r === null || r === undefined ? '–' : `${(r * 100).toFixed(digits)} %`
const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined ? '–' : v.toLocaleString('en-US', {maximumFractionDigits: digits})
const gb = (v: number | null) =>
  v === null
    ? ''
    : ` · ${v.toLocaleString('en-US', {maximumFractionDigits: v < 10 ? 2 : 1, minimumFractionDigits: v < 10 ? 2 : 1})} GiB`

function answerTable(doc: ReportDocument): string {
  const head = TARGETS.map(
    (t) =>
      `<th scope="col">${Math.round(t * 100)} %<br><span class="sub">${pct(t * doc.answer.infinite.token_hit_rate)}</span></th>`,
  ).join('')
  const rows = doc.answer.capacity_table.map((row) => {
    const cells = row.needs.map((n) => {
      const mark = n.how === 'at_most' ? '≤ ' : n.how === 'interpolated' ? '≈ ' : ''
      // blocks and GiB each on one line, so that a narrow window wraps a cell between them
      const text =
        n.blocks === null
          ? 'not reached'
          : `<span class="nowrap">${mark}${int(n.blocks)}</span>${n.gb === null ? '' : ` <span class="nowrap">${gb(n.gb).slice(1)}</span>`}`
      const title = n.bracket
        ? ` title="between the grid points ${int(n.bracket[0])} and ${int(n.bracket[1])} blocks"`
        : ''
      return `<td data-target="${n.target}" data-blocks="${n.blocks ?? ''}" data-how="${n.how}"${title}>${text}</td>`
    })
    const label = row.policy === 'belady' ? 'Belady (next need, reference)' : row.policy
    return `<tr data-policy="${escapeHtml(row.policy)}"><th scope="row">${escapeHtml(label)}</th>${cells.join('')}</tr>`
  })
  const aliases = doc.answer.curves.filter((c) => c.same_as !== null)
  return `<table id="answer-table" class="numbers">
<caption>Capacity (blocks${doc.answer.bytes_per_block === null ? '' : ' · GiB, 2<sup>30</sup> bytes'}) each policy needs to reach a share of the infinite-capacity token hit rate (${pct(doc.answer.infinite.token_hit_rate)})</caption>
<thead><tr><th scope="col">policy</th>${head}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
<p class="note">≈ interpolated between grid points (log-linear, rounded up; hover for the bracket) · ≤ already reached at the smallest capacity of the grid.${aliases.map((c) => ` <b>${c.policy}</b>: ${escapeHtml(c.note ?? '')}.`).join('')}</p>`
}

function headline(doc: ReportDocument): string {
  const a = doc.answer
  const lru = a.capacity_table.find((r) => r.policy === 'lru')?.needs.find((n) => n.target === 0.9)
  const chosen = a.chosen_capacity
  const at = a.over_time
    .filter((s) => s.series !== 'infinite capacity')
    .map((s) => `<b>${escapeHtml(s.series)}</b> ${pct(s.token_hit_rate)}`)
    .join(', ')
  return `<p class="headline">An infinite cache would serve <b>${pct(a.infinite.token_hit_rate)}</b> of the input tokens from cache
(working set ${int(a.wss_blocks)} blocks${gb(a.bytes_per_block === null ? null : (a.wss_blocks * a.bytes_per_block) / 2 ** 30)}).
LRU reaches 90 % of that with <b>${lru?.blocks === null || lru === undefined ? 'no capacity of the grid' : `${int(lru.blocks)} blocks${gb(lru.gb)}`}</b>.</p>
<p>At ${int(chosen.blocks)} blocks${gb(chosen.gb)} (${chosen.source === 'flag' ? 'the capacity asked for' : "LRU's 90 % point"}), replayed exactly: ${at}.</p>`
}

function profileRow(p: Profile): string {
  const cells = [
    escapeHtml(p.instance_id === '*' ? 'all instances' : p.instance_id),
    int(p.requests),
    int(p.input_tokens),
    `${int(p.input_len.p50)} / ${int(p.input_len.p90)} / ${int(p.input_len.p99)}`,
    int(p.distinct_blocks),
    int(p.distinct_first_blocks),
    pct(p.sharing.seen_block_share),
    p.reuse_distance.available
      ? `${int(p.reuse_distance.stats.p50)} / ${int(p.reuse_distance.stats.p90)}`
      : 'n/a',
    `${num(p.reuse_time.stats.p50, 1)} / ${num(p.reuse_time.stats.p90, 1)}`,
    pct(p.popularity.top_1pct_share),
  ]
  return `<tr>${cells.map((c, i) => (i === 0 ? `<th scope="row">${c}</th>` : `<td>${c}</td>`)).join('')}</tr>`
}

function profileTable(doc: Characterized): string {
  const c = doc.characterization
  const rows = [...c.instances, ...(c.instances.length > 1 ? [c.overall] : [])].map(profileRow)
  const head = [
    'instance',
    'requests',
    'input tokens',
    'input length p50 / p90 / p99',
    'distinct blocks',
    'distinct first blocks',
    'blocks already seen',
    'reuse distance p50 / p90 (blocks)',
    'reuse time p50 / p90 (s)',
    'requests to the top 1 % blocks',
  ]
  return `<table id="trace-table" class="numbers"><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`
}

function meta(doc: ReportDocument): string {
  const t = doc.trace
  const sizes = [...new Set(doc.config.instances.map((i) => i.block_size))].join(', ')
  return `${escapeHtml(t.name)} · ${int(t.rows)} rows · ${int(doc.characterization.overall.requests)} requests · ${int(t.instances)} instance${t.instances === 1 ? '' : 's'} · ${num(t.duration_seconds, 0)} s of trace · block size ${sizes} tokens · group ${escapeHtml(doc.answer.group)}`
}

/** Every chart of the page, the answer first, then the trace's. */
export function reportCharts(doc: ReportDocument): Chart[] {
  return [capacityChart(doc), overTimeChart(doc), ...traceCharts(doc)]
}

/** The notices' section (none: nothing), on every report page. */
export function notices(doc: Pick<ReportDocument, 'notices'>): string {
  if (doc.notices.length === 0) return ''
  return `<section><h2>Notices</h2><ul class="notices">${doc.notices.map((n) => `<li class="${n.level}">${escapeHtml(n.message)} <code>${escapeHtml(n.code)}</code></li>`).join('')}</ul></section>`
}

/** The parts of a report page: everything else (style, libraries, chart script, footer) is the same on every page. */
export interface PageParts {
  /** the trace's name, in the page's title */
  name: string
  /** lmt's version, in the footer */
  version: string
  heading: string
  /** HTML of the line under the heading */
  meta: string
  /** HTML of the sections */
  body: string
  charts: Chart[]
}

/** A self-contained page: the parts with the style, vega's libraries and the script that draws the charts. */
export function standalonePage(p: PageParts): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`lmt report — ${p.name}`)}</title>
<link rel="icon" href="data:,">
<style>${pageStyle}</style>
</head><body data-rendered="false">
<header><h1>${escapeHtml(p.heading)}</h1><p class="meta">${p.meta}</p></header>
<main>
${p.body}
</main>
<footer>lmt ${escapeHtml(p.version)} · lmt report · the same numbers: <code>lmt report … --json</code></footer>
${libraryScripts()}
<script type="application/json" id="lmt-charts">${scriptJson(p.charts.map((c) => ({id: c.id, spec: c.spec})))}</script>
<script>${pageScript}</script>
</body></html>
`
}

export function chartFigure(c: Chart): string {
  return `<figure class="chart"><figcaption><b>${escapeHtml(c.title)}.</b> ${escapeHtml(c.caption)}</figcaption><div id="${c.id}" class="vega" data-rendered="false"></div></figure>`
}

/** The trace's section: its table per instance and its charts (traceCharts), on the untiered and the tiered page. */
export function traceSectionHtml(doc: Characterized, charts: readonly Chart[]): string {
  const unmeasured = doc.characterization.instances
    .filter((p) => !p.reuse_distance.available)
    .map((p) => `<b>${escapeHtml(p.instance_id)}</b>: ${escapeHtml(p.reuse_distance.reason ?? '')}`)
  const why =
    unmeasured.length === 0
      ? ''
      : `<p class="note">Reuse distance is measured by simulate's one-pass stack method, which reads a trace of gets each followed by its write; it stopped at ${unmeasured.join('; ')}.</p>`
  return `<section id="trace"><h2>The trace</h2>
${profileTable(doc)}${why}
<div class="charts">${charts.map(chartFigure).join('')}</div>
</section>`
}

/** The whole page. */
export function renderReportHtml(doc: ReportDocument): string {
  const charts = reportCharts(doc)
  const [capacity, overTime, ...trace] = charts
  const s = doc.answer.stack
  return standalonePage({
    name: doc.trace.name,
    version: doc.lmt_version,
    heading: 'KV-cache capacity report',
    meta: meta(doc),
    body: `<section id="answer"><h2>The answer</h2>
${headline(doc)}
${answerTable(doc)}
<div class="charts">${chartFigure(capacity)}${chartFigure(overTime)}</div>
<p class="note">Grid: ${doc.answer.grid.length} capacities from ${int(doc.answer.grid[0])} to ${int(doc.answer.grid[doc.answer.grid.length - 1])} blocks. LRU: ${s.eligible && s.certified_points > 0 ? `${s.certified_points} points from the one-pass stack method (certified exact), the others replayed` : s.eligible ? 'every point replayed (the one-pass stack method proved none exact)' : `every point replayed (stack method not used: ${escapeHtml(s.reason ?? '')})`}. Token hit rate = hit tokens / input tokens of the group's requests, as lmt simulate reports it.</p>
</section>
${lmcacheLookupHtml(doc)}
${traceSectionHtml(doc, trace)}
${notices(doc)}`,
    charts,
  })
}
