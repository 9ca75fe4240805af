// Renders a Vega-Lite spec to SVG on Node. The build bundles this module with vega and vega-lite into one file
// (vega-render.bundle.cjs, scripts/bundle-vega.mjs), which loads faster than vega's ~40 packages and
// takes less memory; see docs/performance-notes.md.
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
