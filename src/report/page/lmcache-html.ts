// The report page's LMCache section for a lookup-hash log: LMCache's cache simulator (lmcache_lru) beside lmt's
// policies at every capacity of the grid, and its seven statistics at the capacity replayed over time, written as
// LMCache prints them. Every figure's cell carries its exact value (`data-value`) for a reader of the page.
import {type LmcacheLookupSection, percent, thousands} from '../../simulate/index.js'
import {pyFormatFixed} from '../../util/pyfmt.js'
import type {ReportDocument} from '../report.js'
import {escapeHtml, type FigureRow, rowsTable} from './escape-html.js'

type Json = Record<string, unknown>

const GIB = 2 ** 30

function gbText(blocks: number, bytesPerBlock: number | null): string {
  return bytesPerBlock === null
    ? ''
    : ` <span class="sub">${pyFormatFixed((blocks * bytesPerBlock) / GIB, 2)} GiB</span>`
}

/** lmt's policies and lmcache_lru at each capacity of the grid */
function comparisonTable(doc: ReportDocument, s: LmcacheLookupSection): string {
  const curves = doc.answer.curves
  const head = ['capacity (blocks)', 'lmcache_lru', ...curves.map((c) => c.policy), 'lmcache_lru evictions']
  const rows = s.points.map((p) => {
    const lmt = curves.map((c) => {
      const at = c.points.find((q) => q.capacity_blocks === p.capacity_blocks)
      return at === undefined
        ? '<td>–</td>'
        : `<td data-policy="${escapeHtml(c.policy)}" data-value="${at.token_hit_rate}">${percent(at.token_hit_rate, 2)}</td>`
    })
    return `<tr data-blocks="${p.capacity_blocks}"><th scope="row">${thousands(p.capacity_blocks)}${gbText(p.capacity_blocks, doc.answer.bytes_per_block)}</th><td data-policy="lmcache_lru" data-value="${p.token_hit_rate}"><b>${percent(p.token_hit_rate, 2)}</b></td>${lmt.join('')}<td data-key="evictions" data-value="${p.evictions}">${thousands(p.evictions)}</td></tr>`
  })
  return `<table id="lmcache-capacity-table" class="numbers wide">
<caption>Token hit rate at each capacity of the grid: LMCache's simulator (one chunk per block) and lmt's policies</caption>
<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`
}

const fixed = (d: number) => (v: number) => pyFormatFixed(v, d)
const pct2 = (v: number) => percent(v, 2)

/** The row of field `f` of a statistic `o` (keyed `<prefix>.f`, or `f` without a prefix), its text by `format`. */
function figure(o: Json, prefix: string, f: string, label: string, format: (v: number) => string): FigureRow {
  const v = o[f] as number
  return [label, prefix === '' ? f : `${prefix}.${f}`, v, format(v)]
}

function percentileRows(prefix: string, o: Json, format: (v: number) => string): FigureRow[] {
  return ['p25', 'p50', 'p75', 'p90', 'p99']
    .filter((k) => typeof o[k] === 'number')
    .map((k) => figure(o, prefix, k, k, format))
}

/** The seven statistics as rows under their block titles, values formatted as LMCache prints them. */
function statBlocks(c: Json): Array<[string, FigureRow[]]> {
  const n = (k: string) => c[k] as number
  const blocks: Array<[string, FigureRow[]]> = [
    [
      'Aggregate',
      [
        figure(c, '', 'total_requests', 'Requests processed', thousands),
        figure(c, '', 'total_tokens', 'Total tokens', thousands),
        figure(c, '', 'total_hit_tokens', 'Hit tokens', thousands),
        figure(c, '', 'total_miss_tokens', 'Miss tokens', thousands),
        figure(c, '', 'token_hit_rate', 'Token hit rate', pct2),
        figure(c, '', 'cache_size_at_end_chunks', 'Cache occupancy (chunks)', (v) => {
          return `${thousands(v)} / ${thousands(n('capacity_chunks'))}`
        }),
      ],
    ],
  ]
  const s1 = c.stat1_per_request_token_hit_rate as Json | null
  if (s1) {
    const share = (v: number) => `${thousands(v)} (${percent(v / n('total_requests'), 1)})`
    blocks.push([
      'Stat 1 — Per-request token hit rate',
      [
        figure(s1, 'stat1', 'zero_hit_requests', 'Requests with 0% hit rate', share),
        figure(s1, 'stat1', 'full_hit_requests', 'Requests with 100% hit rate', share),
        figure(s1, 'stat1', 'mean', 'Mean', pct2),
        ...percentileRows('stat1', s1, pct2),
      ],
    ])
  }
  const s2 = c.stat2_hit_prefix_chunks as Json | null
  if (s2)
    blocks.push([
      'Stat 2 — Hit prefix length per request (chunks)',
      [figure(s2, 'stat2', 'mean', 'Mean', fixed(1)), ...percentileRows('stat2', s2, fixed(0))],
    ])
  const s3 = c.stat3_chunk_reuse as Json | null
  if (s3)
    blocks.push([
      'Stat 3 — Chunk reuse count',
      [
        figure(s3, 'stat3', 'unique_chunks_hit', 'Unique chunks hit at least once', thousands),
        figure(s3, 'stat3', 'mean', 'Mean reuse count', fixed(1)),
        figure(s3, 'stat3', 'max', 'Max reuse count', thousands),
        ...percentileRows('stat3', s3, fixed(0)),
      ],
    ])
  const s4 = (c.stat4_rolling_hit_rate ?? {}) as Record<string, number>
  if (Object.keys(s4).length > 0)
    blocks.push([
      'Stat 4 — Rolling (cumulative) token hit rate',
      Object.keys(s4).map((after) =>
        figure(s4, 'stat4', after, `After request ${thousands(Number(after))}`, pct2),
      ),
    ])
  blocks.push([
    'Stat 5 — Evictions',
    [['Total evictions', 'stat5_evictions', n('evictions'), thousands(n('evictions'))]],
  ])
  const s6 = c.stat6_global_span as Json | null
  if (s6)
    blocks.push([
      'Stat 6 — Global span (chunks between last store and hit)',
      [
        figure(s6, 'stat6', 'hit_chunks', 'Total hit chunks', thousands),
        figure(s6, 'stat6', 'mean', 'Mean span', fixed(1)),
        figure(s6, 'stat6', 'max', 'Max span', thousands),
        ...percentileRows('stat6', s6, fixed(0)),
      ],
    ])
  const s7 = c.stat7_cache_position as Json | null
  if (s7)
    blocks.push([
      'Stat 7 — Cache position at hit (0 = most recent)',
      [
        figure(s7, 'stat7', 'mean', 'Mean position', fixed(1)),
        figure(s7, 'stat7', 'max', 'Max position', thousands),
        ...percentileRows('stat7', s7, fixed(0)),
      ],
    ])
  return blocks
}

/** One small table per statistic, side by side (a grid that wraps). */
function statsTables(doc: ReportDocument, s: LmcacheLookupSection): string {
  const c = s.chosen
  if (typeof c.total_requests !== 'number') return ''
  const tables = statBlocks(c).map(([title, rows]) => rowsTable(undefined, escapeHtml(title), rows))
  return `<h3>LMCache's seven statistics at ${thousands(c.capacity_chunks)} chunks${gbText(c.capacity_chunks, doc.answer.bytes_per_block)}</h3>
<p class="note">At the capacity of the hit-rate-over-time chart, as <code>lmt simulate --policy lmcache_lru</code> and LMCache's <code>cache-simulator simulate</code> print them (percentiles nearest rank).</p>
<div id="lmcache-stats" class="stat-tables">${tables.join('\n')}</div>`
}

/** The section, or nothing when the page is not about a lookup-hash log. */
export function lmcacheLookupHtml(doc: ReportDocument): string {
  const s = doc.lmcache?.lookup
  if (!s) return ''
  const bytes =
    s.kv_bytes_per_chunk === null ? 'unknown' : `${thousands(s.kv_bytes_per_chunk)} bytes per chunk`
  return `<section id="lmcache"><h2>LMCache's cache simulator</h2>
<p><code>lmcache_lru</code> answers what <code>lmcache tool cache-simulator</code> answers on this log (${thousands(s.events)} lookups, chunks of ${s.chunk_size ?? '?'} tokens, ${bytes}): one chunk LRU shared by every model, every chunk of a lookup refreshed or inserted in order after the hit prefix is counted (cached chunks after the first miss included). lmt's policies keep one prefix cache per model, where a chunk is cached only with its whole prefix; where the columns differ, that is why.</p>
${comparisonTable(doc, s)}
${statsTables(doc, s)}
</section>`
}
