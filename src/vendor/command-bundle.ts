// A command's modules as the build bundles them (scripts/bundle-simulate.mjs): one CommonJS script compiled with
// the V8 code cache the build made for it, so that a run neither compiles its ~250 KB of JavaScript nor the
// functions it calls (a cache V8 rejects, made under other flags or another node, only costs that compile). The
// build writes the command's module (dist/src/commands/<id>.js) as a stub that imports the modules the bundle
// leaves outside and calls this. In the script those are `require('lmt:<path under dist/src>')`, its import() of
// one is `__lmtImport`, and a module's own URL is `__lmtModuleUrl(<its path>)`.
import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import {Script} from 'node:vm'

const scripts = new Map<string, Script>()

/** The compiled script of a bundle loaded in this process (the build makes its cache from it). */
export function loadedBundleScript(path: string): Script | undefined {
  return scripts.get(path)
}

/** The code cache of the bundle at `path`. */
export function bundleCachePath(path: string): string {
  return path.replace(/\.cjs$/, '.cache')
}

/**
 * Runs the bundle at `url` (once per process), its outside modules taken from `outside` (by `lmt:` name); returns
 * its exports.
 */
export function loadCommandBundle(url: URL, outside: Record<string, unknown>): Record<string, unknown> {
  const path = fileURLToPath(url)
  const cachePath = bundleCachePath(path)
  const source = readFileSync(path, 'utf8')
  // the wrapper is part of the source the cache is made for: build and run use this one
  const params = 'exports, require, module, __lmtImport, __lmtModuleUrl'
  const script = new Script(`(function (${params}) {${source}\n})`, {
    filename: path,
    cachedData: existsSync(cachePath) ? readFileSync(cachePath) : undefined,
  })
  scripts.set(path, script)
  const src = new URL('../', url) // dist/src/: the bundle sits one folder below it
  const lmtUrl = (name: string): string => new URL(name.slice('lmt:'.length), src).href
  const nodeRequire = createRequire(url)
  const require = (id: string): unknown => {
    if (!id.startsWith('lmt:')) return nodeRequire(id)
    if (!(id in outside)) throw new Error(`${path}: ${id} is not among its outside modules`)
    return outside[id]
  }
  const module = {exports: {} as Record<string, unknown>}
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run(
    module.exports,
    require,
    module,
    async (id: string) => import(lmtUrl(id)),
    (name: string) => lmtUrl(`lmt:${name}`),
  )
  return module.exports
}
