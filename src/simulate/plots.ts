import {join} from 'node:path'
import type {PendingFiles} from './pending-files.js'
import type {Replayer} from './replayer.js'

async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  // imported lazily: only runs that write a plot pay for vega's start-up
  const vega = await import('vega')
  const {compile} = await import('vega-lite')
  const view = new vega.View(vega.parse(compile(spec as never).spec), {renderer: 'none'})
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

async function writePlot(
  files: PendingFiles,
  dir: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<string[]> {
  const svg = await renderSvg(spec)
  files.writeAtomic(join(dir, `${name}.vl.json`), JSON.stringify(spec, null, 2) + '\n')
  files.writeAtomic(join(dir, `${name}.svg`), svg)
  return [`${name}.svg`, `${name}.vl.json`]
}

/** `hit_rate_over_time.svg`: cumulative token hit rate per instance over trace time (simulate.md §5.6). */
export async function plotHitRateOverTime(
  files: PendingFiles,
  dir: string,
  r: Replayer,
  traceName: string,
  capacity: string,
  firstTs: bigint,
): Promise<string[]> {
  const values: Array<{t: number; rate: number; instance: string}> = []
  for (const i of r.ordered) {
    for (const p of i.plotPoints())
      values.push({t: Number(p.ts - firstTs) / 1e9, rate: p.accHitRate, instance: i.cfg.instance_id})
  }
  const policies = [...new Set(r.ordered.map((i) => i.cfg.eviction_policy_type))].join('+')
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${traceName} — ${policies}, cache size ${capacity}`,
    width: 640,
    height: 320,
    data: {values},
    mark: {type: 'line', interpolate: 'step-after'},
    encoding: {
      x: {field: 't', type: 'quantitative', title: 'trace time (s, from timestamp_ns)'},
      y: {field: 'rate', type: 'quantitative', title: 'cumulative token hit rate', scale: {domain: [0, 1]}},
      color: {field: 'instance', type: 'nominal', title: 'instance'},
    },
  }
  return writePlot(files, dir, 'hit_rate_over_time', spec)
}

/** `sweep_hit_rate.svg`: token hit rate against capacity, with the infinite-capacity ceiling (§6.7). */
export async function plotSweep(
  files: PendingFiles,
  dir: string,
  sweep: Record<string, unknown>,
  traceName: string,
): Promise<string[]> {
  const series = (sweep.series as string[])[0]
  const curve = [
    ...(sweep.curve as Array<{capacity: number; rate: number}>).map((p) => ({...p, series})),
    ...((sweep.beladyCurve as Array<{capacity: number; rate: number}> | undefined) ?? []).map((p) => ({
      ...p,
      series: 'Belady (next need)',
    })),
  ]
  const unit = sweep.unit === 'gb' ? 'GB' : 'blocks'
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${traceName} — group ${sweep.group_name as string}, capacity in ${unit}`,
    width: 640,
    height: 320,
    layer: [
      {
        data: {values: curve},
        mark: {type: 'line', point: true},
        encoding: {
          x: {field: 'capacity', type: 'quantitative', scale: {type: 'log'}, title: `capacity (${unit})`},
          y: {field: 'rate', type: 'quantitative', scale: {domain: [0, 1]}, title: 'group token hit rate'},
          color: {field: 'series', type: 'nominal', title: 'series'},
        },
      },
      {
        data: {values: [{rate: sweep.infinite_token_hit_rate, label: 'infinite capacity'}]},
        layer: [
          {
            mark: {type: 'rule', strokeDash: [6, 4], color: 'gray'},
            encoding: {y: {field: 'rate', type: 'quantitative'}},
          },
          {
            mark: {type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray'},
            encoding: {y: {field: 'rate', type: 'quantitative'}, x: {value: 0}, text: {field: 'label'}},
          },
        ],
      },
    ],
  }
  return writePlot(files, dir, 'sweep_hit_rate', spec)
}
