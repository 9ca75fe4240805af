// The bundled renderer (vega-render.bundle.cjs, made by scripts/bundle-vega.mjs) compiled as a script, so that V8
// can take the code the build compiled for it (a code cache) instead of parsing and compiling ~1 MB of JavaScript
// on each run. A cache V8 rejects (another V8, other flags) is only slower: the code is then compiled as usual.
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {Script} from 'node:vm'

export type Renderer = typeof import('./vega-render.js')

export interface LoadedBundle {
  renderer: Renderer
  /** the compiled script (whether V8 took the cache: `cachedDataRejected`; the build makes its cache from it) */
  script: Script
}

/** Runs the CommonJS bundle at `path`, compiled with `cachedData` when given. */
export function loadBundle(path: string, cachedData?: Buffer): LoadedBundle {
  const source = readFileSync(path, 'utf8')
  // the wrapper is part of the source the cache is made for: build and run use this one
  const script = new Script(`(function (module, exports, require) {${source}\n})`, {
    filename: path,
    cachedData,
  })
  const module = {exports: {}}
  const run = script.runInThisContext() as (m: object, e: object, r: NodeJS.Require) => void
  run(module, module.exports, createRequire(path))
  return {renderer: module.exports as Renderer, script}
}
