// The SVG renderer for plots, loaded on first use: the bundled build of vega-render.ts when the build made one
// (dist/; one CommonJS file loads ~0.2 s faster than vega's ~40 packages), the module itself otherwise (sources run
// by vitest or tsx). Both render the same SVG (a test pins it).
import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'

export type Renderer = typeof import('./vega-render.js')

/** the bundle beside this module */
export const BUNDLE = fileURLToPath(new URL('./vega-render.bundle.cjs', import.meta.url))

let renderer: Promise<Renderer> | undefined

async function load(): Promise<Renderer> {
  if (!existsSync(BUNDLE)) return import('./vega-render.js')
  return createRequire(import.meta.url)(BUNDLE) as Renderer
}

/** Renders a Vega-Lite spec to SVG. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  renderer ??= load()
  return (await renderer).renderSvg(spec)
}
