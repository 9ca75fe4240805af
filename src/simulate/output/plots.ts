import {inclusionNote} from './inclusion-note.js'
import {join} from 'node:path'
import type {PendingFiles} from '../../util/pending-files.js'
import type {Player} from '../engine/player.js'

async function writePlot(
  files: PendingFiles,
  dir: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<string[]> {
  const {renderSvg} = await import('./svg.js')
  const svg = await renderSvg(spec)
  files.writeAtomic(join(dir, `${name}.vl.json`), JSON.stringify(spec, null, 2) + '\n')
  files.writeAtomic(join(dir, `${name}.svg`), svg)
  return [`${name}.svg`, `${name}.vl.json`]
}

/** A rate axis from 0 to a round value just above the data (hit rates are at most 1). */
export function rateDomain(rates: readonly number[]): [number, number] {
  const max = Math.max(0, ...rates.filter((r) => Number.isFinite(r)))
  if (max <= 0) return [0, 0.1] // no hits: a flat line on a small axis, not a collapsed one
  // the next multiple of half the data's decade: 0.28 → 0.3, 0.37 → 0.4, 0.059 → 0.06, 0.97 → 1
  const half = 10 ** Math.floor(Math.log10(max)) / 2
  const top = Number((Math.ceil(Number((max / half).toPrecision(12))) * half).toPrecision(12))
  return [0, Math.min(1, top)]
}

/** The data range of an axis (widened beyond a single value, so that it is never empty). */
export function dataDomain(values: readonly number[], log = false): [number, number] {
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  if (lo < hi) return [lo, hi]
  return log ? [lo / 2, hi * 2] : [lo, hi + 1]
}

/** "block size 512", or the sizes of the instances when they differ. */
export function blockSizeLabel(instances: ReadonlyArray<{id: string; blockSize: number}>): string {
  const sizes = [...new Set(instances.map((i) => i.blockSize))].sort((a, b) => a - b)
  if (sizes.length === 1) return `block size ${sizes[0]}`
  if (instances.length <= 4)
    return `block sizes ${instances.map((i) => `${i.blockSize} (${i.id})`).join(', ')}`
  return `block sizes ${sizes[0]}–${sizes[sizes.length - 1]}`
}

/** The color channel of a plot: none for a single series (no legend to read). */
function colorOf(field: string, title: string, series: number): Record<string, unknown> {
  return series > 1 ? {color: {field, type: 'nominal', title}} : {}
}

/**
 * `hit_rate_over_time.svg`: cumulative token hit rate per instance over trace time (docs/simulate.md §5.6). Nothing is
 * written (an empty list) when no get was replayed.
 */
export async function plotHitRateOverTime(
  files: PendingFiles,
  dir: string,
  r: Player,
  traceName: string,
  capacity: string,
  firstTs: bigint,
): Promise<string[]> {
  const values: Array<{t: number; rate: number; instance: string}> = []
  const plotted: Player['ordered'] = []
  for (const i of r.ordered) {
    const points = i.plotPoints()
    if (points.length > 0) plotted.push(i)
    for (const p of points)
      values.push({t: Number(p.ts - firstTs) / 1e9, rate: p.accHitRate, instance: i.cfg.instance_id})
  }
  if (values.length === 0) return []
  const policies = [...new Set(plotted.map((i) => i.cfg.eviction_policy_type))].join('+')
  const sizes = blockSizeLabel(plotted.map((i) => ({id: i.cfg.instance_id, blockSize: i.cfg.block_size})))
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${traceName} — ${policies}, cache size ${capacity}, ${sizes}`,
    width: 640,
    height: 320,
    data: {values},
    // points mark a short series (a line through one point draws nothing)
    mark: {type: 'line', interpolate: 'step-after', point: values.length <= 2 * plotted.length + 20},
    encoding: {
      x: {
        field: 't',
        type: 'quantitative',
        title: 'trace time (s, from timestamp_ns)',
        scale: {domain: dataDomain(values.map((v) => v.t)), nice: false, zero: false},
      },
      y: {
        field: 'rate',
        type: 'quantitative',
        title: 'cumulative token hit rate',
        scale: {domain: rateDomain(values.map((v) => v.rate))},
      },
      ...colorOf('instance', 'instance', plotted.length),
    },
  }
  return writePlot(files, dir, 'hit_rate_over_time', spec)
}

/** `text` in lines of at most `width` characters, broken between words (a longer word keeps a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  for (const word of text.split(' ')) {
    const last = lines.length - 1
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`
    else lines.push(word)
  }
  return lines
}

/**
 * `sweep_hit_rate.svg`: token hit rate against capacity, with the infinite-capacity ceiling (§6.7). Nothing is
 * written (an empty list) when the sweep has no point.
 */
export async function plotSweep(
  files: PendingFiles,
  dir: string,
  sweep: Record<string, unknown>,
  traceName: string,
  blockSizes: string,
): Promise<string[]> {
  // a tiered group's sweep: the group's rate, then the share each tier serves (docs/simulate.md §10.8)
  const tierCurves =
    (sweep.tierCurves as
      Array<{name: string; points: Array<{capacity: number; rate: number}>}> | undefined) ?? []
  const tiers = sweep.tiers as {swept_tier: string} | undefined
  const series = `${(sweep.series as string[])[0]}${tierCurves.length > 0 ? ', all tiers' : ''}`
  const belady = (sweep.beladyCurve as Array<{capacity: number; rate: number}> | undefined) ?? []
  const curve = [
    ...(sweep.curve as Array<{capacity: number; rate: number}>).map((p) => ({...p, series})),
    ...belady.map((p) => ({...p, series: 'Belady (next need)'})),
    ...tierCurves.flatMap((t) => t.points.map((p) => ({...p, series: `served by ${t.name}`}))),
  ]
  const positive = curve.filter((p) => p.capacity > 0)
  if (positive.length === 0) return []
  const unit = sweep.unit === 'gib' ? 'GiB' : 'blocks'
  const infinite = sweep.infinite_token_hit_rate as number
  const y = {domain: rateDomain([...curve.map((p) => p.rate), infinite])}
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${traceName} — group ${sweep.group_name as string}, ${tiers ? `capacity of tier ${tiers.swept_tier}` : 'capacity'} in ${unit}, ${blockSizes}`,
      // lines no wider than the plot, from its left edge: a centred line wider than the plot widens the picture
      // on both sides, leaving an empty band left of the y axis
      subtitle: wrapWords(inclusionNote(sweep.curve as Array<{capacity: number; rate: number}>), 95),
      anchor: 'start',
    },
    width: 640,
    height: 320,
    layer: [
      {
        data: {values: positive},
        mark: {type: 'line', point: true},
        encoding: {
          x: {
            field: 'capacity',
            type: 'quantitative',
            scale: {
              type: 'log',
              domain: dataDomain(
                positive.map((p) => p.capacity),
                true,
              ),
              nice: false,
            },
            title: tiers ? `capacity of tier ${tiers.swept_tier} (${unit})` : `capacity (${unit})`,
          },
          y: {field: 'rate', type: 'quantitative', scale: y, title: 'group token hit rate'},
          ...colorOf('series', 'series', 1 + (belady.length > 0 ? 1 : 0) + tierCurves.length),
          ...(tierCurves.length > 0
            ? {
                strokeDash: {
                  field: 'series',
                  type: 'nominal',
                  scale: {
                    domain: [series, ...tierCurves.map((t) => `served by ${t.name}`)],
                    range: [[1, 0], ...tierCurves.map(() => [5, 3])],
                  },
                  legend: null,
                },
              }
            : {}),
        },
      },
      {
        data: {values: [{rate: infinite, label: 'infinite capacity'}]},
        layer: [
          {
            mark: {type: 'rule', strokeDash: [6, 4], color: 'gray'},
            encoding: {y: {field: 'rate', type: 'quantitative', scale: y}},
          },
          {
            mark: {type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray'},
            encoding: {
              y: {field: 'rate', type: 'quantitative', scale: y},
              x: {value: 0},
              text: {field: 'label'},
            },
          },
        ],
      },
    ],
  }
  return writePlot(files, dir, 'sweep_hit_rate', spec)
}
