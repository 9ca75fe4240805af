// The page of a tiered configuration's report: the hit rate against the swept tier's capacity (the total solid, one
// dashed line per tier), the share each tier serves at the chosen capacity, what the page leaves out and why, and
// the untiered page's trace section.
import {chartFigure, int, notices, pct, standalonePage, traceSectionHtml} from './html.js'
import {traceCharts} from '../charts/trace-charts.js'
import {ceilingAndChosen, linePoints} from '../charts/vega-parts.js'
import {escapeHtml} from './escape-html.js'
import {tierSharesText, type TieredReportDocument} from '../tiered-report.js'

const gib = (v: number) => `${v.toPrecision(4).replace(/\.?0+$/, '')} GiB`

const TOTAL = 'all tiers'

function curveChart(doc: TieredReportDocument) {
  const a = doc.answer
  const values = a.points.flatMap((p) => [
    {series: TOTAL, capacity_gb: p.capacity_gb, token_hit_rate: p.token_hit_rate, hit_tokens: p.hit_tokens},
    ...p.tiers.map((t) => ({
      series: t.tier,
      capacity_gb: p.capacity_gb,
      token_hit_rate: t.token_hit_rate,
      hit_tokens: t.hit_tokens,
    })),
  ])
  const caps = a.points.map((p) => p.capacity_gb)
  const x = {
    field: 'capacity_gb',
    type: 'quantitative',
    scale: {type: 'log', nice: false, domain: [Math.min(...caps), Math.max(...caps)]},
    title: `capacity of ${a.swept_tier} (GiB, log scale)`,
  }
  const y = {field: 'token_hit_rate', type: 'quantitative', title: 'token hit rate', axis: {format: '.1%'}}
  const domain = [TOTAL, ...a.tiers]
  const color = {field: 'series', type: 'nominal', title: null, scale: {domain}}
  const strokeDash = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: {domain, range: [[1, 0], ...a.tiers.map(() => [6, 4])]},
  }
  const tooltip = [
    {field: 'series', title: 'tier'},
    {field: 'capacity_gb', title: 'GiB', format: '.4~g'},
    {field: 'token_hit_rate', title: 'token hit rate', format: '.2%'},
    {field: 'hit_tokens', title: 'hit tokens', format: ','},
  ]
  const ceiling = `every tier unlimited ${pct(a.infinite.token_hit_rate)}${a.infinite.is_ceiling ? '' : ' (not a ceiling: blocks can expire)'}`
  return {
    id: 'chart-tiers',
    title: 'Token hit rate against capacity, per tier',
    caption: `The group's token hit rate (solid) and the share each tier serves (dashed) as the capacity of ${a.swept_tier} varies, the other tiers as configured; every point replayed. The dotted line marks the chosen capacity.`,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: 500,
      height: 250,
      layer: [
        {data: {values}, layer: linePoints(x, y, color, tooltip, strokeDash)},
        ...ceilingAndChosen(ceiling, a.infinite.token_hit_rate, 'capacity_gb', a.chosen.capacity_gb),
      ],
    },
  }
}

function pointsTable(doc: TieredReportDocument): string {
  const a = doc.answer
  const head = ['capacity', 'all tiers', ...a.tiers]
    .map((h) => `<th scope="col">${escapeHtml(h)}</th>`)
    .join('')
  const rows = a.points.map((p) => {
    const chosen = p.capacity_gb === a.chosen.capacity_gb ? ' <span class="sub">chosen</span>' : ''
    const cells = [p.token_hit_rate, ...p.tiers.map((t) => t.token_hit_rate)].map((r) => `<td>${pct(r)}</td>`)
    return `<tr><th scope="row">${gib(p.capacity_gb)}${chosen}</th>${cells.join('')}</tr>`
  })
  return `<table id="tiers-table" class="numbers">
<caption>Token hit rate at each capacity of ${escapeHtml(a.swept_tier)}: the group's, and the share each tier serves (they add up to it)</caption>
<thead><tr>${head}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`
}

function headline(doc: TieredReportDocument): string {
  const a = doc.answer
  const c = a.chosen
  const why =
    c.source === 'flag'
      ? 'the capacity asked for'
      : c.source === 'ceiling_90'
        ? 'the smallest capacity of the grid that reaches 90 % of every tier unlimited'
        : 'the largest capacity of the grid'
  const others = a.tiers
    .map((t, i) => ({t, c: a.capacities_gb[i]}))
    .filter((x) => x.c !== null)
    .map((x) => `${escapeHtml(x.t)} ${(x.c as number) < 0 ? 'unlimited' : gib(x.c as number)}`)
  return `<p class="headline">With ${escapeHtml(a.swept_tier)} at <b>${gib(c.capacity_gb)}</b> (${why}), the group serves a
<b>${c.token_hit_rate.toFixed(3)}</b> token hit rate: <b>${escapeHtml(tierSharesText(c))}</b>.</p>
<p>Every tier unlimited: ${pct(a.infinite.token_hit_rate)}${a.infinite.is_ceiling ? '' : ' (blocks can expire, so this bounds no point)'}. ${others.length > 0 ? `The other tiers as configured: ${others.join(', ')}.` : ''}</p>`
}

function leftOut(doc: TieredReportDocument): string {
  return `<p class="note">Left out for tiers: ${doc.answer.left_out.map((l) => `<b>${escapeHtml(l.section)}</b> (${escapeHtml(l.reason)})`).join('; ')}.</p>`
}

/** The whole page. */
export function renderTieredReportHtml(doc: TieredReportDocument): string {
  const a = doc.answer
  const chart = curveChart(doc)
  const trace = traceCharts(doc)
  const t = doc.trace as Record<string, unknown>
  return standalonePage({
    name: String(t.name),
    version: doc.lmt_version,
    heading: 'KV-cache capacity report: storage tiers',
    meta: `${escapeHtml(String(t.name))} · ${int(Number(t.rows))} rows · group ${escapeHtml(a.group)} · tiers ${a.tiers.map(escapeHtml).join(', ')} · ${int(a.input_tokens)} input tokens`,
    body: `<section id="answer"><h2>The answer</h2>
${headline(doc)}
<div class="charts">${chartFigure(chart)}</div>
${pointsTable(doc)}
<p class="note">${a.points.length} capacities of ${escapeHtml(a.swept_tier)}, log-spaced up to the working set, each replayed with every tier as <code>lmt simulate CONFIG --sweep</code> plays it (the same numbers: its sweep.csv and summary.json). Token hit rate = hit tokens / input tokens of the group's requests; a hit counts for the tier that served it.</p>
${leftOut(doc)}
</section>
${traceSectionHtml(doc, trace)}
${notices(doc)}`,
    charts: [chart, ...trace],
  })
}
