// The SVG renderer for plots, loaded on first use: the bundled build of vega-render.ts when the build made one
// (dist/), with its code cache, the module itself otherwise (sources run by vitest or tsx). Both render the same
// SVG (a test pins it).
import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {loadBundle, type Renderer} from './vega-bundle.js'

/** the bundle and its code cache beside this module */
export const BUNDLE = fileURLToPath(new URL('./vega-render.bundle.cjs', import.meta.url))
export const BUNDLE_CACHE = fileURLToPath(new URL('./vega-render.bundle.cache', import.meta.url))

let renderer: Promise<Renderer> | undefined

async function load(): Promise<Renderer> {
  if (!existsSync(BUNDLE)) return import('./vega-render.js')
  return loadBundle(BUNDLE, existsSync(BUNDLE_CACHE) ? readFileSync(BUNDLE_CACHE) : undefined).renderer
}

/** Renders a Vega-Lite spec to SVG. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  renderer ??= load()
  return (await renderer).renderSvg(spec)
}
