// The trace's charts: load over time (requests, input tokens), its histograms, the working set over time and key
// popularity, per instance (and all instances together when there are several).
import type {Characterized} from '../document.js'
import {histogramCharts} from './histogram-charts.js'
import {
  binSeconds,
  type Chart,
  instanceColor,
  linePoints,
  shortNumberLabel,
  shown,
  timeAxis,
  unit,
} from './vega-parts.js'

/** what the over-time charts share: each shown profile's time bins, an instance colour, the bin width */
function timeSeriesContext(doc: Characterized, several: boolean) {
  const profiles = shown(doc)
  return {
    profiles,
    time: profiles.flatMap((p) => p.over_time.map((t) => ({...t, instance: p.instance_id}))),
    inst: several
      ? instanceColor(profiles.map((p) => ({instance: p.instance_id})))
      : {field: 'instance', type: 'nominal', title: 'instance', legend: null},
    bin: binSeconds(doc.characterization.bin_seconds),
  }
}
type TimeSeriesContext = ReturnType<typeof timeSeriesContext>

/** one measure of the time bins, a line per instance */
function timeSeries(ctx: TimeSeriesContext, field: string, title: string): Record<string, unknown> {
  return unit(title, ctx.time, {
    layer: linePoints(
      timeAxis,
      {field, type: 'quantitative', title: `${title.toLowerCase()} per ${ctx.bin} s`},
      ctx.inst,
      [
        {field: 'instance'},
        {field: 't', title: 'bin start (s)', format: ',.0f'},
        {field, title, format: ','},
      ],
    ),
  })
}

function workingSetChart(ctx: TimeSeriesContext, several: boolean): Chart {
  const values = ctx.profiles.flatMap((p) =>
    p.over_time.flatMap((t) => [
      {t: t.t, instance: p.instance_id, kind: 'distinct blocks so far', blocks: t.cumulative_blocks},
      {
        t: t.t,
        instance: p.instance_id,
        kind: `distinct blocks in the ${ctx.bin} s bin`,
        blocks: t.window_blocks,
      },
    ]),
  )
  const kind = {field: 'kind', type: 'nominal', title: 'measure'}
  const tooltip = [
    {field: 'instance'},
    {field: 'kind', title: 'measure'},
    {field: 't', title: 'bin start (s)', format: ',.0f'},
    {field: 'blocks', title: 'blocks', format: ','},
  ]
  // several instances: a colour per instance, a dash per measure
  const dash = several
    ? {
        ...kind,
        scale: {
          range: [
            [1, 0],
            [4, 3],
          ],
        },
      }
    : undefined
  const y = {field: 'blocks', type: 'quantitative', title: 'distinct blocks'}
  return {
    id: 'chart-working-set',
    title: 'Working set over time',
    caption: 'Distinct blocks referenced so far (what an infinite cache holds) and within each time bin.',
    spec: unit('Working set (distinct blocks)', values, {
      layer: linePoints(timeAxis, y, several ? ctx.inst : kind, tooltip, dash),
    }),
  }
}

function popularityChart(doc: Characterized, several: boolean): Chart {
  const values = doc.characterization.instances.flatMap((p) =>
    p.popularity.points.map((q) => ({...q, instance: p.instance_id})),
  )
  const logAxis = (field: string, title: string) => ({
    field,
    type: 'quantitative',
    title,
    scale: {type: 'log'},
    axis: {labelExpr: shortNumberLabel, values: [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]},
  })
  return {
    id: 'chart-popularity',
    title: 'Key popularity',
    caption:
      'Blocks ranked by how many requests reference them (rank 1 = most requested), log-log: a steep head means a few hot prefixes (system prompts) carry much of the reuse.',
    spec: unit('Block popularity (rank / frequency)', values, {
      name: 'points',
      mark: {type: 'point', filled: true, size: 24, tooltip: true},
      encoding: {
        x: logAxis('rank', 'rank (log scale)'),
        y: logAxis('references', 'requests referencing the block (log scale)'),
        ...(several ? {color: instanceColor(values)} : {}),
        tooltip: [{field: 'instance'}, {field: 'rank', format: ','}, {field: 'references', format: ','}],
      },
    }),
  }
}

export function traceCharts(doc: Characterized): Chart[] {
  const several = doc.characterization.instances.length > 1
  const ctx = timeSeriesContext(doc, several)
  return [
    {
      id: 'chart-requests',
      title: 'Requests over time',
      caption: 'Requests (gets) per time bin.',
      spec: timeSeries(ctx, 'requests', 'Requests'),
    },
    {
      id: 'chart-tokens',
      title: 'Input tokens over time',
      caption: 'Input tokens of the requests per time bin: the load the cache sees.',
      spec: timeSeries(ctx, 'input_tokens', 'Input tokens'),
    },
    ...histogramCharts(doc, several),
    workingSetChart(ctx, several),
    popularityChart(doc, several),
  ]
}
