// @oclif/core as the build bundles it (scripts/bundle-oclif.mjs): one CommonJS script compiled with the V8 code
// cache the build made for it, instead of ~160 CommonJS files resolved, read and compiled on every run (~80 ms of
// a CLI start-up). The bundle is run as the module node resolves '@oclif/core' to: it takes that module's place in
// require's cache, so that every importer (lmt's commands, oclif's plugins, CommonJS or ESM) gets this one copy,
// as it would get the one package. Without the bundle (sources run by vitest or tsx) the package is imported.
import {existsSync, readFileSync} from 'node:fs'
import {createRequire, Module} from 'node:module'
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Script} from 'node:vm'

export type OclifCore = typeof import('@oclif/core')

/** the bundle beside this module */
export const OCLIF_BUNDLE = fileURLToPath(new URL('./oclif-core.bundle.cjs', import.meta.url))

/** the bundle's code cache */
export const OCLIF_BUNDLE_CACHE = OCLIF_BUNDLE.replace(/\.cjs$/, '.cache')

/** the file node resolves '@oclif/core' to (its lib/index.js): the bundle runs as that module */
export const OCLIF_ENTRY = createRequire(import.meta.url).resolve('@oclif/core')

export interface LoadedOclifBundle {
  core: OclifCore
  /** the compiled script (whether V8 took the cache: `cachedDataRejected`; the build makes its caches from it) */
  script: Script
}

/**
 * Runs the bundle as '@oclif/core' (compiled with `cachedData` when given) and installs it in require's cache. Its
 * `require`, `__dirname` and `__filename` are those of the package's entry, so what it resolves at run time
 * (oclif's own package.json, typescript) resolves as from the package.
 */
export function loadOclifBundle(cachedData?: Buffer): LoadedOclifBundle {
  const source = readFileSync(OCLIF_BUNDLE, 'utf8')
  // the wrapper is part of the source the cache is made for: build and run use this one
  const params = 'exports, require, module, __filename, __dirname, __importModule'
  const script = new Script(`(function (${params}) {${source}\n})`, {filename: OCLIF_BUNDLE, cachedData})
  const require = createRequire(OCLIF_ENTRY)
  // an importer that linked '@oclif/core' before now holds require's entry for it, not yet run: that entry is used
  const module = (require.cache[OCLIF_ENTRY] as Module | undefined) ?? new Module(OCLIF_ENTRY)
  if (module.loaded) return {core: module.exports as OclifCore, script}
  module.filename = OCLIF_ENTRY
  require.cache[OCLIF_ENTRY] = module
  const run = script.runInThisContext() as (...args: unknown[]) => void
  try {
    run(module.exports, require, module, OCLIF_ENTRY, dirname(OCLIF_ENTRY), importModule)
  } catch (error) {
    delete require.cache[OCLIF_ENTRY]
    throw error
  }
  module.loaded = true
  return {core: module.exports as OclifCore, script}
}

/** import() for the bundle: the build makes its import() calls of a file URL calls of this one */
async function importModule(url: string): Promise<unknown> {
  return import(url)
}

/** @oclif/core for a CLI process: the bundle with its cache when the build made them, the package otherwise. */
export async function loadOclifCore(): Promise<OclifCore> {
  if (!existsSync(OCLIF_BUNDLE)) return import('@oclif/core')
  const cache = OCLIF_BUNDLE_CACHE
  return loadOclifBundle(existsSync(cache) ? readFileSync(cache) : undefined).core
}
