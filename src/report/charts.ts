// The report's charts as Vega-Lite specs. Each chart's data marks are named (`points`, `bars`) so that a reader of
// the rendered page (the browser test) can count them against the data.
import type {Bin} from './histogram.js'
import type {Profile} from './characterize.js'
import type {ReportDocument} from './report.js'

export interface Chart {
  id: string
  title: string
  /** what the chart shows and how to read it */
  caption: string
  spec: Record<string, unknown>
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json'
const WIDTH = 500
const HEIGHT = 250
const pct = {format: '.1%'}

function unit(title: string, values: unknown[], rest: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: HEIGHT,
    data: {values},
    // legends below the plot: a chart keeps its width in a column of the page
    config: {legend: {orient: 'bottom', direction: 'horizontal', columns: 4}, axis: {labelOverlap: 'greedy'}},
    ...rest,
  }
}

/** one colour and dash per series in every chart (identical curves, e.g. lru and leaf_aware_lru, stay visible) */
const SERIES: Record<string, [string, number[]]> = {
  lru: ['#2d6cdf', [1, 0]],
  leaf_aware_lru: ['#e8840c', [6, 3]],
  random_lru: ['#2a9d55', [2, 2]],
  'Belady (next need)': ['#8e44ad', [1, 0]],
  'infinite capacity': ['#6b7078', [1, 0]],
}

/** colour and dash encodings of the series present */
function seriesEncoding(present: readonly string[]): {
  color: Record<string, unknown>
  strokeDash: Record<string, unknown>
} {
  const domain = Object.keys(SERIES).filter((k) => present.includes(k))
  const enc = (range: unknown[]) => ({
    field: 'series',
    type: 'nominal',
    title: 'policy',
    scale: {domain, range},
  })
  return {color: enc(domain.map((k) => SERIES[k][0])), strokeDash: enc(domain.map((k) => SERIES[k][1]))}
}

/** instances in one colour each across the charts ("all instances" last) */
function instanceColor(values: ReadonlyArray<unknown>): Record<string, unknown> {
  const present = [...new Set(values.map((v) => (v as {instance: string}).instance))]
  const ids = present.filter((x) => x !== 'all instances')
  const all = present.length > ids.length ? ['all instances'] : []
  return {
    field: 'instance',
    type: 'nominal',
    title: 'instance',
    scale: {domain: [...ids, ...all], scheme: 'tableau10'},
  }
}

/** trace time: few ticks, short labels (hours of trace make long numbers) */
const timeAxis = {
  field: 't',
  type: 'quantitative',
  title: 'trace time (s)',
  axis: {tickCount: 8, format: '~s'},
}

/** a line per series with a tooltip point on every datum */
function linePoints(
  x: Record<string, unknown>,
  y: Record<string, unknown>,
  color: Record<string, unknown>,
  tooltip: unknown[],
  strokeDash?: Record<string, unknown>,
) {
  const dash = strokeDash ? {strokeDash} : {}
  return [
    {mark: {type: 'line', strokeWidth: 1.5}, encoding: {x, y, color, ...dash}},
    {
      name: 'points',
      mark: {type: 'point', filled: true, size: 28, tooltip: true},
      encoding: {x, y, color, tooltip},
    },
  ]
}

/** The profiles a chart shows: each instance, and all of them together when there are several. */
function shown(doc: ReportDocument): Profile[] {
  const c = doc.characterization
  return c.instances.length > 1 ? [...c.instances, {...c.overall, instance_id: 'all instances'}] : c.instances
}

function answerCharts(doc: ReportDocument): Chart[] {
  const a = doc.answer
  const curves = [...a.curves.filter((c) => c.same_as === null), a.belady]
  const values = curves.flatMap((c) =>
    c.points.map((p) => ({
      series: c.policy === 'belady' ? 'Belady (next need)' : c.policy,
      capacity_blocks: p.capacity_blocks,
      capacity_gb: a.bytes_per_block === null ? null : (p.capacity_blocks * a.bytes_per_block) / 2 ** 30,
      token_hit_rate: p.token_hit_rate,
      method: p.method,
    })),
  )
  const x = {
    field: 'capacity_blocks',
    type: 'quantitative',
    scale: {type: 'log'},
    title: 'capacity (blocks, log scale)',
  }
  const y = {field: 'token_hit_rate', type: 'quantitative', title: 'token hit rate', axis: pct}
  const {color, strokeDash} = seriesEncoding(values.map((v) => v.series))
  const tooltip = [
    {field: 'series', title: 'policy'},
    {field: 'capacity_blocks', title: 'blocks', format: ','},
    ...(a.bytes_per_block === null ? [] : [{field: 'capacity_gb', title: 'GB', format: '.2f'}]),
    {field: 'token_hit_rate', title: 'token hit rate', format: '.2%'},
    {field: 'method', title: 'from'},
  ]
  const refs = [
    {
      label: `infinite capacity ${(a.infinite.token_hit_rate * 100).toFixed(1)} %`,
      rate: a.infinite.token_hit_rate,
    },
  ]
  const capacity = unit('Token hit rate against cache capacity', values, {
    layer: [
      ...linePoints(x, y, color, tooltip, strokeDash),
      {
        data: {values: refs},
        mark: {type: 'rule', strokeDash: [6, 4], color: '#666'},
        encoding: {y: {field: 'rate', type: 'quantitative'}},
      },
      {
        data: {values: refs},
        mark: {type: 'text', align: 'left', dx: 4, dy: -6, color: '#444'},
        encoding: {y: {field: 'rate', type: 'quantitative'}, x: {value: 0}, text: {field: 'label'}},
      },
      {
        data: {values: [{capacity_blocks: a.chosen_capacity.blocks}]},
        mark: {type: 'rule', strokeDash: [2, 3], color: '#999'},
        encoding: {x: {field: 'capacity_blocks', type: 'quantitative'}},
      },
    ],
  })
  const overTime = a.over_time.flatMap((s) => s.points.filter((p) => p.token_hit_rate !== null))
  const timeSeries = seriesEncoding(a.over_time.map((x) => x.series))
  const timeChart = unit(
    `Token hit rate over trace time at ${a.chosen_capacity.blocks.toLocaleString('en-US')} blocks`,
    overTime,
    {
      layer: linePoints(
        timeAxis,
        {
          field: 'token_hit_rate',
          type: 'quantitative',
          title: `token hit rate per ${Math.round(doc.characterization.bin_seconds)} s bin`,
          axis: pct,
        },
        timeSeries.color,
        [
          {field: 'series', title: 'policy'},
          {field: 't', title: 'bin start (s)', format: ',.0f'},
          {field: 'token_hit_rate', title: 'token hit rate', format: '.2%'},
        ],
        timeSeries.strokeDash,
      ),
    },
  )
  return [
    {
      id: 'chart-capacity',
      title: 'Hit rate against capacity',
      caption:
        'Each policy replayed at every capacity of the grid (log-spaced up to the working set), with the Belady next-need reference (an offline optimum for comparison) and the infinite-capacity ceiling (dashed). The dotted vertical line is the capacity of the chart below.',
      spec: capacity,
    },
    {
      id: 'chart-over-time',
      title: 'Hit rate over time',
      caption: `Token hit rate of the requests in each time bin, each policy at ${a.chosen_capacity.blocks.toLocaleString('en-US')} blocks and with an infinite cache. A policy far below the infinite line in a bin is short of capacity there; the infinite line itself is the prefix sharing the trace offers.`,
      spec: timeChart,
    },
  ]
}

function bars(
  title: string,
  values: unknown[],
  xTitle: string,
  log: boolean,
  yTitle: string,
  several: boolean,
): Record<string, unknown> {
  return unit(title, values, {
    name: 'bars',
    mark: {type: 'bar', tooltip: true},
    encoding: {
      x: {
        field: 'from',
        type: 'quantitative',
        title: xTitle,
        bin: {binned: true},
        ...(log ? {scale: {type: 'log'}} : {}),
      },
      x2: {field: 'to'},
      y: {field: 'count', type: 'quantitative', title: yTitle, stack: 'zero'},
      ...(several ? {color: instanceColor(values)} : {}),
      tooltip: [
        ...(several ? [{field: 'instance'}] : []),
        {field: 'from', title: 'from', format: ',.4~g'},
        {field: 'to', title: 'to', format: ',.4~g'},
        {field: 'count', title: yTitle, format: ','},
      ],
    },
  })
}

function histogramValues(doc: ReportDocument, pick: (p: Profile) => Bin[]): Array<Bin & {instance: string}> {
  return doc.characterization.instances.flatMap((p) => pick(p).map((b) => ({...b, instance: p.instance_id})))
}

function traceCharts(doc: ReportDocument): Chart[] {
  const profiles = shown(doc)
  const several = doc.characterization.instances.length > 1
  const time = profiles.flatMap((p) => p.over_time.map((t) => ({...t, instance: p.instance_id})))
  const tx = timeAxis
  const kind = {field: 'kind', type: 'nominal', title: 'measure'}
  const inst = several
    ? instanceColor(profiles.map((p) => ({instance: p.instance_id})))
    : {field: 'instance', type: 'nominal', title: 'instance', legend: null}
  const bin = Math.round(doc.characterization.bin_seconds)
  const series = (field: string, title: string) =>
    unit(title, time, {
      layer: linePoints(
        tx,
        {field, type: 'quantitative', title: `${title.toLowerCase()} per ${bin} s`},
        inst,
        [
          {field: 'instance'},
          {field: 't', title: 'bin start (s)', format: ',.0f'},
          {field, title, format: ','},
        ],
      ),
    })
  const ws = profiles.flatMap((p) =>
    p.over_time.flatMap((t) => [
      {t: t.t, instance: p.instance_id, kind: 'distinct blocks so far', blocks: t.cumulative_blocks},
      {t: t.t, instance: p.instance_id, kind: `distinct blocks in the ${bin} s bin`, blocks: t.window_blocks},
    ]),
  )
  const pop = doc.characterization.instances.flatMap((p) =>
    p.popularity.points.map((q) => ({...q, instance: p.instance_id})),
  )
  const logAxis = (field: string, title: string) => ({
    field,
    type: 'quantitative',
    title,
    scale: {type: 'log'},
    axis: {format: '~s', values: [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]},
  })
  return [
    {
      id: 'chart-requests',
      title: 'Requests over time',
      caption: 'Requests (gets) per time bin.',
      spec: series('requests', 'Requests'),
    },
    {
      id: 'chart-tokens',
      title: 'Input tokens over time',
      caption: 'Input tokens of the requests per time bin: the load the cache sees.',
      spec: series('input_tokens', 'Input tokens'),
    },
    {
      id: 'chart-input-length',
      title: 'Input length',
      caption: 'Requests by input length (tokens).',
      spec: bars(
        'Input length distribution',
        histogramValues(doc, (p) => p.input_len.histogram),
        'input length (tokens)',
        false,
        'requests',
        several,
      ),
    },
    {
      id: 'chart-sharing',
      title: 'Prefix sharing',
      caption:
        'Requests by the share of their blocks already seen earlier in the trace: at the right, requests whose prefix was almost entirely seen before (a large enough cache serves them); at the left, new content.',
      spec: bars(
        "Share of a request's blocks already seen",
        histogramValues(doc, (p) => p.sharing.histogram),
        'share of blocks already seen',
        false,
        'requests',
        several,
      ),
    },
    {
      id: 'chart-reuse-distance',
      title: 'Reuse distance',
      caption:
        'Re-referenced request blocks by LRU stack distance: distinct blocks referenced since the block was last used. An LRU cache of C blocks can hit only blocks whose distance is at most C; first references are not shown.',
      spec: bars(
        'Reuse distance (distinct blocks)',
        histogramValues(doc, (p) => p.reuse_distance.histogram),
        'reuse distance (distinct blocks, log scale)',
        true,
        'blocks',
        several,
      ),
    },
    {
      id: 'chart-reuse-time',
      title: 'Reuse time',
      caption:
        'Re-referenced request blocks by the time since their last use: how long a block must stay cached to be hit again (the first bar also holds every reuse within a millisecond).',
      spec: bars(
        'Reuse time (seconds)',
        histogramValues(doc, (p) => p.reuse_time.histogram),
        'reuse time (s, log scale)',
        true,
        'blocks',
        several,
      ),
    },
    {
      id: 'chart-working-set',
      title: 'Working set over time',
      caption: 'Distinct blocks referenced so far (what an infinite cache holds) and within each time bin.',
      spec: unit('Working set (distinct blocks)', ws, {
        // several instances: a colour per instance, a dash per measure
        layer: linePoints(
          tx,
          {field: 'blocks', type: 'quantitative', title: 'distinct blocks'},
          several ? inst : kind,
          [
            {field: 'instance'},
            {field: 'kind', title: 'measure'},
            {field: 't', title: 'bin start (s)', format: ',.0f'},
            {field: 'blocks', title: 'blocks', format: ','},
          ],
          several
            ? {
                ...kind,
                scale: {
                  range: [
                    [1, 0],
                    [4, 3],
                  ],
                },
              }
            : undefined,
        ),
      }),
    },
    {
      id: 'chart-popularity',
      title: 'Key popularity',
      caption:
        'Blocks ranked by how many requests reference them (rank 1 = most requested), log-log: a steep head means a few hot prefixes (system prompts) carry much of the reuse.',
      spec: unit('Block popularity (rank / frequency)', pop, {
        name: 'points',
        mark: {type: 'point', filled: true, size: 24, tooltip: true},
        encoding: {
          x: logAxis('rank', 'rank (log scale)'),
          y: logAxis('references', 'requests referencing the block (log scale)'),
          ...(several ? {color: instanceColor(pop)} : {}),
          tooltip: [{field: 'instance'}, {field: 'rank', format: ','}, {field: 'references', format: ','}],
        },
      }),
    },
  ]
}

/** Every chart of the page, the answer first. */
export function reportCharts(doc: ReportDocument): Chart[] {
  return [...answerCharts(doc), ...traceCharts(doc)]
}
