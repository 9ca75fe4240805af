// The text of LMCache's cache simulator, line for line with the same numbers (Python's formatting: thousands
// separators, `%` with ties to even), and the JSON of `--json`. Nothing here prints.
import {pyFormatFixed} from '../../util/pyfmt.js'
import {GIB, type LookupSimPoint, type LookupSimResult} from './lookup-sim.js'
import {Histogram, PERCENTILES} from './lookup-stats.js'

const SEP = '='.repeat(60)

/** Python `f"{n:,}"` of an integer. */
export function thousands(n: number): string {
  const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return n < 0 ? `-${s}` : s
}

/** Python `f"{x:.{d}%}"`. */
export function percent(x: number, d: number): string {
  return `${pyFormatFixed(x * 100, d)}%`
}

function block(title: string): string[] {
  return ['', SEP, title, SEP]
}

function percentileLines(h: Histogram, pad: number, format: (v: number) => string): string[] {
  return Object.entries(h.percentiles(PERCENTILES)).map(
    ([k, v]) => `  ${k.padEnd(4)}${' '.repeat(pad)}: ${format(v)}`,
  )
}

/** The parameter block LMCache prints before the replay (`capacityGib` as the user gave it). */
function lookupParameterLines(
  result: LookupSimResult,
  capacityGib: number,
  model: string | undefined,
): string[] {
  const point = result.points[0]
  return [
    'Simulation parameters:',
    `  Cache capacity     : ${pyFormatFixed(capacityGib, 2)} GiB (${thousands(point.capacity_bytes)} bytes)`,
    `  KV bytes/chunk     : ${thousands(result.kv_bytes_per_chunk)}`,
    `  Chunk size         : ${result.chunk_size ?? '?'} tokens`,
    ...(model ? [`  Model filter       : ${model}`] : []),
  ]
}

/** The seven statistics of one run, from the Aggregate block to the closing separator. */
function lookupStatisticsLines(result: LookupSimResult, point: LookupSimPoint): string[] {
  const s = point.stats
  const out = [
    SEP,
    'Aggregate',
    SEP,
    `  Requests processed  : ${thousands(point.total_requests)}`,
    `  Total tokens        : ${thousands(point.total_tokens)}`,
    `  Hit tokens          : ${thousands(point.total_hit_tokens)}`,
    `  Miss tokens         : ${thousands(point.total_miss_tokens)}`,
    `  Token hit rate      : ${percent(point.token_hit_rate, 2)}`,
    `  Cache capacity      : ${pyFormatFixed(point.capacity_bytes / GIB, 2)} GiB  (${thousands(point.capacity_chunks)} chunks × ${thousands(result.kv_bytes_per_chunk)} bytes/chunk)`,
    `  Cache occupancy     : ${thousands(point.cache_size_at_end_chunks)} / ${thousands(point.capacity_chunks)} chunks`,
  ]
  if (!s) return [...out, SEP]
  const n = s.rates.n
  if (n > 0) {
    out.push(
      ...block('Stat 1 — Per-request token hit rate distribution'),
      `  Requests with 0% hit rate   : ${thousands(s.zeroHit)} (${percent(s.zeroHit / n, 1)})`,
      `  Requests with 100% hit rate : ${thousands(s.fullHit)} (${percent(s.fullHit / n, 1)})`,
      `  Mean                        : ${percent(s.rateSum.value / n, 2)}`,
      ...percentileLines(s.rates, 24, (v) => percent(v, 2)),
    )
    out.push(
      ...block('Stat 2 — Hit prefix length per request (chunks)'),
      `  Mean               : ${pyFormatFixed(s.prefixes.sum / s.prefixes.n, 1)}`,
      ...percentileLines(s.prefixes, 15, (v) => pyFormatFixed(v, 0)),
    )
  }
  if (s.reusedKeys > 0) {
    const reuse = s.reuse()
    out.push(
      ...block('Stat 3 — Chunk reuse count distribution'),
      `  Unique chunks hit at least once : ${thousands(reuse.n)}`,
      `  Mean reuse count                : ${pyFormatFixed(reuse.sum / reuse.n, 1)}`,
      `  Max reuse count                 : ${thousands(reuse.max)}`,
      ...percentileLines(reuse, 28, (v) => pyFormatFixed(v, 0)),
    )
  }
  const rolling = s.rollingPoints()
  if (rolling.length > 0) {
    out.push(...block('Stat 4 — Rolling (cumulative) token hit rate over time'))
    for (const {after, rate} of rolling)
      out.push(`  After request ${thousands(after).padStart(6)} : ${percent(rate, 2)}`)
  }
  out.push(...block('Stat 5 — Evictions'), `  Total evictions    : ${thousands(point.evictions)}`)
  if (s.spans.n > 0)
    out.push(
      ...block('Stat 6 — Global span distribution (chunks between last store and hit)'),
      `  Total hit chunks   : ${thousands(s.spans.n)}`,
      `  Mean span          : ${pyFormatFixed(s.spans.sum / s.spans.n, 1)}`,
      `  Max span           : ${thousands(s.spans.max)}`,
      ...percentileLines(s.spans, 15, (v) => pyFormatFixed(v, 0)),
    )
  if (s.positions.n > 0)
    out.push(
      ...block('Stat 7 — Cache position at hit (0 = MRU, max = LRU)'),
      `  Mean position      : ${pyFormatFixed(s.positions.sum / s.positions.n, 1)}`,
      `  Max position       : ${thousands(s.positions.max)}`,
      ...percentileLines(s.positions, 15, (v) => pyFormatFixed(v, 0)),
    )
  out.push(SEP)
  return out
}

/** LMCache's sweep table: the header, the rule and one line per point. */
function lookupSweepLines(result: LookupSimResult, model: string | undefined): string[] {
  const pts = result.points
  const lo = pts.length > 0 ? pts[0].capacity_bytes / GIB : 0
  const hi = pts.length > 0 ? pts[pts.length - 1].capacity_bytes / GIB : 0
  return [
    `Sweeping ${pts.length} capacity values (${pyFormatFixed(lo, 2)} – ${pyFormatFixed(hi, 2)} GiB), chunk_size = ${result.chunk_size ?? '?'} tokens, model = ${model ?? 'all models'}`,
    '',
    '    Capacity (GiB)    Hit rate',
    '-'.repeat(32),
    ...pts.map(
      (p) =>
        `${pyFormatFixed(p.capacity_bytes / GIB, 3).padStart(18)}  ${percent(p.token_hit_rate, 2).padStart(9)}`,
    ),
  ]
}

/** A histogram's mean, max (unless `max` is false) and percentiles, as `--json` gives a statistic. */
function histogramJson(h: Histogram, max = true): Record<string, number> {
  return {mean: h.sum / h.n, ...(max ? {max: h.max} : {}), ...h.percentiles(PERCENTILES)}
}

/** A point as `--json` gives it (the statistics as numbers, percentiles included). */
export function lookupPointJson(p: LookupSimPoint): Record<string, unknown> {
  const {stats, ...rest} = p
  if (!stats) return rest
  const n = stats.rates.n
  const reuse = stats.reusedKeys > 0 ? stats.reuse() : undefined
  const rolling: Record<string, number> = {}
  for (const {after, rate} of stats.rollingPoints()) rolling[String(after)] = rate
  return {
    ...rest,
    stat1_per_request_token_hit_rate:
      n > 0
        ? {
            zero_hit_requests: stats.zeroHit,
            full_hit_requests: stats.fullHit,
            mean: stats.rateSum.value / n,
            ...stats.rates.percentiles(PERCENTILES),
          }
        : null,
    // the prefixes are counted once per lookup, as the rates are
    stat2_hit_prefix_chunks: n > 0 ? histogramJson(stats.prefixes, false) : null,
    stat3_chunk_reuse: reuse ? {unique_chunks_hit: reuse.n, ...histogramJson(reuse)} : null,
    stat4_rolling_hit_rate: rolling,
    stat5_evictions: p.evictions,
    stat6_global_span: stats.spans.n > 0 ? {hit_chunks: stats.spans.n, ...histogramJson(stats.spans)} : null,
    stat7_cache_position: stats.positions.n > 0 ? histogramJson(stats.positions) : null,
  }
}

/** Why lmt's own policies answer differently on the same log (printed after LMCache's figures). */
const DIFFERENCE_NOTE = [
  "note: lmcache_lru is LMCache's cache simulator: one chunk cache shared by every model, and every chunk of",
  '  a lookup refreshed or inserted in order, cached chunks after the first miss included (evicting as it goes).',
  "  lmt's own policies (--policy lru, leaf_aware_lru, …) keep one prefix cache per model, where a chunk is cached",
  '  only with its whole prefix; run the same command with --policy lru to compare.',
]

/** The console text of `--policy lmcache_lru`: a single run at `capacityGib` (as given), else the sweep's table. */
export function lookupLines(
  result: LookupSimResult,
  capacityGib: number | undefined,
  model: string | undefined,
): string[] {
  const head = [
    `lmt simulate: lmcache_lru over ${thousands(result.events)} lookup(s) from ${result.files.length} file(s)` +
      (result.skipped_lines > 0 ? `, ${result.skipped_lines} bad line(s) skipped` : ''),
  ]
  if (result.events === 0) return [...head, 'No events to process.']
  head.push(
    `KV bytes per chunk: ${thousands(result.kv_bytes_per_chunk)} (${result.kv_bytes_source === 'layout' ? "the first lookup's dtypes and shapes" : '--bytes-per-token × chunk size'})`,
    '',
  )
  if (capacityGib === undefined) return [...head, ...lookupSweepLines(result, model), '', ...DIFFERENCE_NOTE]
  return [
    ...head,
    ...lookupParameterLines(result, capacityGib, model),
    '',
    ...lookupStatisticsLines(result, result.points[0]),
    '',
    ...DIFFERENCE_NOTE,
  ]
}

/** `--json` of `--policy lmcache_lru`: `head` (what was asked), the run's figures, and its point or points. */
export function lookupJson(
  result: LookupSimResult,
  sweep: boolean,
  head: Record<string, unknown>,
  model: string | undefined,
): Record<string, unknown> {
  const doc = {
    ...head,
    files: result.files,
    model_filter: model ?? null,
    events: result.events,
    skipped_lines: result.skipped_lines,
    in_order: result.in_order,
    kv_bytes_per_chunk: result.kv_bytes_per_chunk,
    kv_bytes_source: result.kv_bytes_source,
    chunk_size: result.chunk_size ?? null,
  }
  if (sweep) return {...doc, points: result.points.map(lookupPointJson)}
  return {...doc, ...(result.points[0] ? lookupPointJson(result.points[0]) : {})}
}
