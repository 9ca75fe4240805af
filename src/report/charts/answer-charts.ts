// The answer's two charts: token hit rate against capacity (every policy, Belady, the infinite ceiling) and over trace
// time at the chosen capacity.
import {inclusionNote} from '../../simulate/index.js'
import type {ReportDocument} from '../report.js'
import {
  binSeconds,
  ceilingAndChosen,
  type Chart,
  linePoints,
  pct,
  seriesEncoding,
  timeAxis,
  unit,
} from './vega-parts.js'

/** the curves' points as chart data, one series per policy (Belady under its reference name) */
function capacityValues(a: ReportDocument['answer']) {
  const curves = [...a.curves.filter((c) => c.same_as === null), a.belady]
  return curves.flatMap((c) =>
    c.points.map((p) => ({
      series: c.policy === 'belady' ? 'Belady (next need)' : c.policy,
      capacity_blocks: p.capacity_blocks,
      capacity_gb: a.bytes_per_block === null ? null : (p.capacity_blocks * a.bytes_per_block) / 2 ** 30,
      token_hit_rate: p.token_hit_rate,
      method: p.method,
    })),
  )
}

/** The inclusion note of the policy curves: "not monotone" when one of them falls somewhere. */
function curvesNote(a: ReportDocument['answer']): string {
  const notes = a.curves
    .filter((c) => c.same_as === null)
    .map((c) => inclusionNote(c.points.map((p) => ({capacity: p.capacity_blocks, rate: p.token_hit_rate}))))
  return notes.find((n) => n.startsWith('Not monotone')) ?? notes[0] ?? ''
}

/** Curves drawn on top of each other (the same rate at every point), named, since only the top one shows. */
function coincident(a: ReportDocument['answer']): string {
  const drawn = a.curves.filter((c) => c.same_as === null)
  const same: string[] = []
  drawn.forEach((c, i) => {
    const twin = drawn
      .slice(0, i)
      .find((d) => d.points.every((p, k) => p.token_hit_rate === c.points[k]?.token_hit_rate))
    if (twin) same.push(`${c.policy} equals ${twin.policy} at every capacity (one line shows both)`)
  })
  return same.length > 0 ? ` ${same.join('; ')}.` : ''
}

/** LMCache's simulator at the same capacities (a lookup-hash log's page) */
function lmcacheValues(doc: ReportDocument) {
  return (doc.lmcache?.lookup.points ?? []).map((p) => ({
    series: 'lmcache_lru',
    capacity_blocks: p.capacity_blocks,
    capacity_gb: p.capacity_gb,
    token_hit_rate: p.token_hit_rate,
    method: "LMCache's simulator",
  }))
}

export function capacityChart(doc: ReportDocument): Chart {
  const a = doc.answer
  const values = [...capacityValues(a), ...lmcacheValues(doc)]
  const blocks = values.map((v) => v.capacity_blocks)
  // the axis spans the grid, not the decades around it (a nice log scale would add up to a decade on each side)
  const x = {
    field: 'capacity_blocks',
    type: 'quantitative',
    scale: {type: 'log', nice: false, domain: [Math.min(...blocks), Math.max(...blocks)]},
    title: 'capacity (blocks, log scale)',
  }
  const y = {field: 'token_hit_rate', type: 'quantitative', title: 'token hit rate', axis: pct}
  const {color, strokeDash} = seriesEncoding(values.map((v) => v.series))
  const tooltip = [
    {field: 'series', title: 'policy'},
    {field: 'capacity_blocks', title: 'blocks', format: ','},
    ...(a.bytes_per_block === null ? [] : [{field: 'capacity_gb', title: 'GiB', format: '.2f'}]),
    {field: 'token_hit_rate', title: 'token hit rate', format: '.2%'},
    {field: 'method', title: 'from'},
  ]
  return {
    id: 'chart-capacity',
    title: 'Hit rate against capacity',
    caption: `Each policy replayed at every capacity of the grid (log-spaced up to the working set), with the Belady next-need reference (an offline optimum for comparison) and the infinite-capacity ceiling (dashed).${doc.lmcache ? " lmcache_lru is LMCache's own cache simulator on the same log (see its section)." : ''} The dotted vertical line is the capacity of the chart below.${coincident(a)} ${curvesNote(a)}.`,
    spec: unit('Token hit rate against cache capacity', values, {
      layer: [
        ...linePoints(x, y, color, tooltip, strokeDash),
        ...ceilingAndChosen(
          `infinite capacity ${(a.infinite.token_hit_rate * 100).toFixed(1)} %`,
          a.infinite.token_hit_rate,
          'capacity_blocks',
          a.chosen_capacity.blocks,
        ),
      ],
    }),
  }
}

export function overTimeChart(doc: ReportDocument): Chart {
  const a = doc.answer
  const blocks = a.chosen_capacity.blocks.toLocaleString('en-US')
  const values = a.over_time.flatMap((s) => s.points.filter((p) => p.token_hit_rate !== null))
  const series = seriesEncoding(a.over_time.map((x) => x.series))
  const y = {
    field: 'token_hit_rate',
    type: 'quantitative',
    title: `token hit rate per ${binSeconds(doc.characterization.bin_seconds)} s bin`,
    axis: pct,
  }
  const tooltip = [
    {field: 'series', title: 'policy'},
    {field: 't', title: 'bin start (s)', format: ',.0f'},
    {field: 'token_hit_rate', title: 'token hit rate', format: '.2%'},
  ]
  return {
    id: 'chart-over-time',
    title: 'Hit rate over time',
    caption: `Token hit rate of the requests in each time bin, each policy at ${blocks} blocks and with an infinite cache. A policy far below the infinite line in a bin is short of capacity there; the infinite line itself is the prefix sharing the trace offers.`,
    spec: unit(`Token hit rate over trace time at ${blocks} blocks`, values, {
      layer: linePoints(timeAxis, y, series.color, tooltip, series.strokeDash),
    }),
  }
}
