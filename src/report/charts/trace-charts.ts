// The trace's charts: load over time (requests, input tokens), its histograms (input length, prefix sharing, reuse
// distance and reuse time, each stacked by instance when there are several), the working set over time and key
// popularity, per instance (and all instances together when there are several).
import type {Characterized, Profile} from '../characterize.js'
import type {Bin} from '../histogram.js'
import {
  bars,
  binSeconds,
  type Chart,
  instanceColor,
  linePoints,
  shortNumberLabel,
  shown,
  timeAxis,
  unit,
} from './vega-parts.js'

/** The histograms of the trace: each chart's text, the profile's bins it shows, and whether its x axis is log-scale. */
const HISTOGRAMS = [
  {
    id: 'chart-input-length',
    title: 'Input length',
    caption: 'Requests by input length (tokens).',
    chartTitle: 'Input length distribution',
    bins: (p: Profile): Bin[] => p.input_len.histogram,
    xTitle: 'input length (tokens)',
    log: false,
    yTitle: 'requests',
  },
  {
    id: 'chart-sharing',
    title: 'Prefix sharing',
    caption:
      'Requests by the share of their blocks already seen earlier in the trace: at the right, requests whose prefix was almost entirely seen before (a large enough cache serves them); at the left, new content.',
    chartTitle: "Share of a request's blocks already seen",
    bins: (p: Profile): Bin[] => p.sharing.histogram,
    xTitle: 'share of blocks already seen',
    log: false,
    yTitle: 'requests',
  },
  {
    id: 'chart-reuse-distance',
    title: 'Reuse distance',
    caption:
      'Re-referenced request blocks by LRU stack distance: distinct blocks referenced since the block was last used. An LRU cache of C blocks can hit only blocks whose distance is at most C; first references are not shown.',
    chartTitle: 'Reuse distance (distinct blocks)',
    // an instance the stack pass could not read has no distances (the page's note says why), not a zero bar
    bins: (p: Profile): Bin[] => (p.reuse_distance.available ? p.reuse_distance.histogram : []),
    xTitle: 'reuse distance (distinct blocks, log scale)',
    log: true,
    yTitle: 'blocks',
  },
  {
    id: 'chart-reuse-time',
    title: 'Reuse time',
    caption:
      'Re-referenced request blocks by the time since their last use: how long a block must stay cached to be hit again (the first bar also holds every reuse within a millisecond).',
    chartTitle: 'Reuse time (seconds)',
    bins: (p: Profile): Bin[] => p.reuse_time.histogram,
    xTitle: 'reuse time (s, log scale)',
    log: true,
    yTitle: 'blocks',
  },
]

function histogramValues(doc: Characterized, pick: (p: Profile) => Bin[]): Array<Bin & {instance: string}> {
  return doc.characterization.instances.flatMap((p) => pick(p).map((b) => ({...b, instance: p.instance_id})))
}

/** The histograms with data: reuse distance is left out when no instance has it. */
function histogramCharts(doc: Characterized, several: boolean): Chart[] {
  return HISTOGRAMS.map((h) => ({h, values: histogramValues(doc, h.bins)}))
    .filter(({values}) => values.length > 0)
    .map(({h, values}) => ({
      id: h.id,
      title: h.title,
      caption: h.caption,
      spec: bars(h.chartTitle, values, h.xTitle, h.log, h.yTitle, several),
    }))
}

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
