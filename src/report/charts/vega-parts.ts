// The building blocks the report's Vega-Lite specs share: the unit chart, series and instance colours, the trace-time
// axis, lines with tooltip points, and histogram bars. Data marks are named (`points`, `bars`) so that a reader of the
// rendered page (the browser test) can count them against the data.
import type {Characterized, Profile} from '../characterize.js'

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
export const pct = {format: '.1%'}

/**
 * Prefix of the colour key of an instance. Vega looks an explicit scale domain's values up in a plain object, so an
 * instance named `constructor` or `toString` breaks the chart; a key that starts with '#' is never such a name. The
 * legend shows the instance id again.
 */
const KEY_PREFIX = '#'

export function unit(
  title: string,
  values: unknown[],
  rest: Record<string, unknown>,
): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: HEIGHT,
    data: {values},
    ...(values.some((v) => typeof v === 'object' && v !== null && 'instance' in v)
      ? {transform: [{calculate: `'${KEY_PREFIX}' + datum.instance`, as: 'instance_key'}]}
      : {}),
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
  lmcache_lru: ['#c0392b', [8, 3, 2, 3]],
  'Belady (next need)': ['#8e44ad', [1, 0]],
  'infinite capacity': ['#6b7078', [1, 0]],
}

/** colour and dash encodings of the series present */
export function seriesEncoding(present: readonly string[]): {
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
export function instanceColor(values: ReadonlyArray<unknown>): Record<string, unknown> {
  const present = [...new Set(values.map((v) => (v as {instance: string}).instance))]
  const ids = present.filter((x) => x !== 'all instances')
  const all = present.length > ids.length ? ['all instances'] : []
  return {
    field: 'instance_key',
    type: 'nominal',
    title: 'instance',
    scale: {domain: [...ids, ...all].map((id) => KEY_PREFIX + id), scheme: 'tableau10'},
    // instance ids can be long (model names): two columns keep the legend within the chart's width
    legend: {labelExpr: `slice(datum.label, ${KEY_PREFIX.length})`, columns: 2},
  }
}

/**
 * Tick labels with an SI suffix from 1000 up (hours of trace make long numbers) and plain below, so that zero reads
 * "0" and never "0k" (d3's `~s` scales a whole axis's labels by the largest tick's prefix).
 */
export const shortNumberLabel = "datum.value >= 1000 ? format(datum.value, '~s') : format(datum.value, '~g')"

/** trace time: few ticks, short labels */
export const timeAxis = {
  field: 't',
  type: 'quantitative',
  title: 'trace time (s)',
  axis: {tickCount: 8, labelExpr: shortNumberLabel},
}

/**
 * The tallest stack of a histogram's bars (the counts of all instances in one bin), raised by a twentieth so that
 * the nice y domain ends above it and the bar never touches the frame.
 */
export function barsDomainMax(values: ReadonlyArray<{from: number; count: number}>): number {
  const stacks = new Map<number, number>()
  for (const v of values) stacks.set(v.from, (stacks.get(v.from) ?? 0) + v.count)
  return Math.max(1, ...stacks.values()) * 1.05
}

/** a line per series with a tooltip point on every datum */
export function linePoints(
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

/** the dashed ceiling at `rate` with its label, and the dotted line at the chosen capacity (`x`: its field) */
export function ceilingAndChosen(label: string, rate: number, x: string, chosen: number): unknown[] {
  const refs = [{label, rate}]
  const y = {field: 'rate', type: 'quantitative'}
  return [
    {data: {values: refs}, mark: {type: 'rule', strokeDash: [6, 4], color: '#666'}, encoding: {y}},
    {
      data: {values: refs},
      mark: {type: 'text', align: 'left', dx: 4, dy: -6, color: '#444'},
      encoding: {y, x: {value: 0}, text: {field: 'label'}},
    },
    {
      data: {values: [{[x]: chosen}]},
      mark: {type: 'rule', strokeDash: [2, 3], color: '#999'},
      encoding: {x: {field: x, type: 'quantitative'}},
    },
  ]
}

/** a histogram's bars, stacked by instance when there are several */
export function bars(
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
      y: {
        field: 'count',
        type: 'quantitative',
        title: yTitle,
        stack: 'zero',
        scale: {
          domainMin: 0,
          domainMax: barsDomainMax(values as Array<{from: number; count: number}>),
          nice: true,
        },
      },
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

/** The profiles a chart shows: each instance, and all of them together when there are several. */
export function shown(doc: Characterized): Profile[] {
  const c = doc.characterization
  return c.instances.length > 1 ? [...c.instances, {...c.overall, instance_id: 'all instances'}] : c.instances
}

/** A time bin's width in words: whole seconds, or two significant digits below 1 s (a short trace's, not "0 s") */
export function binSeconds(s: number): number {
  return s < 1 ? Number(s.toPrecision(2)) : Math.round(s)
}
