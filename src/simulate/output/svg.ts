// Renders a Vega-Lite spec to SVG on Node. plots.ts imports this module only when it draws a plot, so the runs
// without one never load vega's ~40 packages.
import {parse, View} from 'vega'
import {compile} from 'vega-lite'

export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const view = new View(parse(compile(spec as never).spec), {renderer: 'none'})
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}
