// The trace's four histograms as a table of chart specs: input length, prefix sharing, reuse distance and reuse time,
// each stacked by instance when there are several.
import type {Profile} from '../characterize.js'
import type {Characterized} from '../document.js'
import type {Bin} from '../histogram.js'
import {bars, type Chart} from './vega-parts.js'

interface HistogramChart {
  id: string
  title: string
  caption: string
  chartTitle: string
  bins: (p: Profile) => Bin[]
  xTitle: string
  /** a log-scale x axis */
  log: boolean
  yTitle: string
}

const HISTOGRAMS: readonly HistogramChart[] = [
  {
    id: 'chart-input-length',
    title: 'Input length',
    caption: 'Requests by input length (tokens).',
    chartTitle: 'Input length distribution',
    bins: (p) => p.input_len.histogram,
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
    bins: (p) => p.sharing.histogram,
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
    bins: (p) => (p.reuse_distance.available ? p.reuse_distance.histogram : []),
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
    bins: (p) => p.reuse_time.histogram,
    xTitle: 'reuse time (s, log scale)',
    log: true,
    yTitle: 'blocks',
  },
]

function histogramValues(doc: Characterized, pick: (p: Profile) => Bin[]): Array<Bin & {instance: string}> {
  return doc.characterization.instances.flatMap((p) => pick(p).map((b) => ({...b, instance: p.instance_id})))
}

/** The histograms with data: reuse distance is left out when no instance has it. */
export function histogramCharts(doc: Characterized, several: boolean): Chart[] {
  return HISTOGRAMS.map((h) => ({h, values: histogramValues(doc, h.bins)}))
    .filter(({values}) => values.length > 0)
    .map(({h, values}) => ({
      id: h.id,
      title: h.title,
      caption: h.caption,
      spec: bars(h.chartTitle, values, h.xTitle, h.log, h.yTitle, several),
    }))
}
