// The SVG renderer for plots, loaded on first use: the bundled build of vega-render.ts when the build made one
// (dist/), the module itself otherwise (sources run by vitest or tsx). Both render the same SVG (a test pins it).
type Renderer = typeof import('./vega-render.js')

/** the bundle's name beside this module (a variable, so that TypeScript does not look for it) */
const BUNDLE = './vega-render.bundle.js'

let renderer: Promise<Renderer> | undefined

async function load(): Promise<Renderer> {
  try {
    return (await import(BUNDLE)) as Renderer
  } catch (err) {
    if ((err as {code?: string})?.code !== 'ERR_MODULE_NOT_FOUND') throw err
    return import('./vega-render.js')
  }
}

/** Renders a Vega-Lite spec to SVG. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  renderer ??= load()
  return (await renderer).renderSvg(spec)
}
