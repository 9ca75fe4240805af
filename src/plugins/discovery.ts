// The one discovery of lmt's plugins, for every kind (converters, replay levels): lmt's own modules, folders and
// modules named on the command line, and installed oclif plugins (their package.json "lmt" manifest and their
// hooks). A plugin is found by convention and validated on load; whatever is broken is a warning naming it, never
// an error: a broken plugin cannot stop lmt.
import type {Config} from '@oclif/core'
import {importFile, scanModuleDir} from './module-loader.js'
import {pluginLoadTimeoutMs, runPluginCode} from '../util/guards/plugin-code.js'
import {runLmtHook} from './plugin-hooks.js'
import {lmtManifest, type LmtManifest} from './plugin-manifest.js'
import {filesInside, manifestPath} from './plugin-paths.js'

/** How one plugin kind is found and checked. */
export interface PluginKind {
  /** how warnings name a module of this kind: `converter`, `replay level` */
  what: string
  /** how warnings name one plugin of this kind: `converter class`, `replay level` */
  noun: string
  /** the field of the "lmt" manifest naming this kind's folder (or module) */
  manifestField: keyof LmtManifest
  /** whether the manifest field may name one module file instead of a folder */
  manifestMayBeFile: boolean
  /** the hook through which a plugin may contribute */
  hook: string
  /** a hook may also return `{[hookListField]: [...]}` */
  hookListField: string
  /**
   * Takes one export of a module (`exportName`, in `where`), a hook's item (`exportName` undefined) or a
   * programmatic registration: registers it when it is a plugin of this kind and true; false when it is not one (a
   * warning says so when it looks like a broken one).
   */
  examine(value: unknown, exportName: string | undefined, where: string, source: string): boolean
  warn(message: string): void
}

/** What an installed lmt plugin contributes to one kind. */
export interface InstalledContribution {
  /** npm package name of the plugin */
  name: string
  /** the plugin's package folder: files of its folders that lead outside it are not loaded */
  root?: string
  /** folders (or module files) named by its manifest */
  paths: string[]
  /** what its hook returned */
  items: unknown[]
}

/** `  (plugin:x)` for a plugin's module: a folder or module named on the command line is named by its path. */
function sourceNote(source: string): string {
  return source.startsWith('plugin:') ? ` (${source})` : ''
}

/** Exports in a fixed order: named ones in code-unit order, then `default`. */
function exportNames(ns: Record<string, unknown>): string[] {
  const names = Object.keys(ns)
    .filter((n) => n !== 'default')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if ('default' in ns) names.push('default')
  return names
}

/**
 * Loads one module (third-party code bounded in time and guarded) and examines each export. A module that fails to
 * load is a warning, or, when `named` (the user named it on the command line), its reason is returned.
 */
export async function loadPluginModule(
  kind: PluginKind,
  path: string,
  source: string,
  named = false,
): Promise<string | undefined> {
  const note = sourceNote(source)
  let ns: Record<string, unknown>
  try {
    // lmt's own modules load as they are; anything else is third-party code, bounded and guarded
    ns =
      source === 'built-in'
        ? await importFile(path)
        : await runPluginCode(
            `${kind.what} module ${path}${note}`,
            () => importFile(path),
            (m) => kind.warn(m),
            pluginLoadTimeoutMs(),
          )
  } catch (err) {
    const message = (err as Error)?.message ?? String(err)
    // a CommonJS require('lmt'): Node 20 resolves it without the hooks that serve import 'lmt'
    const commonJs = /^Cannot find module 'lmt(\/[a-z]+)?'/.test(message)
      ? ` (a CommonJS module cannot require lmt: write an ES module, .mjs or .ts, that imports it)`
      : ''
    const reason = `${commonJs ? message.split('\n')[0] : message}${commonJs}`
    if (named) return reason
    kind.warn(`cannot load ${kind.what} module ${path}${note}: ${reason}`)
    return undefined
  }
  for (const name of exportNames(ns)) kind.examine(ns[name], name, path, source)
  return undefined
}

/** Loads every module of a folder. */
export async function loadPluginDir(
  kind: PluginKind,
  dir: string,
  source: string,
  plugin?: {name: string; root: string; mayBeFile: boolean},
): Promise<void> {
  const scanned = await scanModuleDir(dir)
  let files = scanned.files
  if (scanned.missing) {
    if (!plugin?.mayBeFile) return kind.warn(`${kind.what} directory not found: ${dir}`)
    files = [dir] // the manifest names one module
  } else {
    if (plugin) files = filesInside(plugin, files, (m) => kind.warn(m))
  }
  for (const file of files) await loadPluginModule(kind, file, source)
}

/** The oclif plugins installed beside lmt (not lmt itself, not oclif's own), in `config.plugins` order. */
export function installedPlugins(config: Config): ReturnType<Config['getPluginsList']> {
  return config.getPluginsList().filter((p) => p.name !== config.name && p.type !== 'core')
}

/** A hook's result as a list: an array, `{<listField>: [...]}`, one item, or nothing. */
function hookItems(result: unknown, listField: string): unknown[] {
  if (result === undefined || result === null) return []
  if (Array.isArray(result)) return result
  const list = (result as Record<string, unknown>)[listField]
  if (typeof result === 'object' && Array.isArray(list)) return list
  return [result]
}

/**
 * What installed plugins contribute to `kind`, one entry per plugin: first the folders their manifests name (in
 * `config.plugins` order), then what their hooks return (the documented hook, then each deprecated name).
 */
export async function installedContributions(
  config: Config,
  kind: PluginKind,
): Promise<InstalledContribution[]> {
  const byPlugin = new Map<string, InstalledContribution>()
  const entry = (name: string, root?: string): InstalledContribution => {
    let c = byPlugin.get(name)
    if (!c) byPlugin.set(name, (c = {name, root, paths: [], items: []}))
    return c
  }
  const warn = (m: string): void => kind.warn(m)
  for (const plugin of installedPlugins(config)) {
    const rel = (await lmtManifest(plugin, warn))[kind.manifestField]
    const path = rel === undefined ? undefined : manifestPath(plugin, kind.manifestField, rel, warn)
    if (path !== undefined) entry(plugin.name, plugin.root).paths.push(path)
  }
  const hook = await runLmtHook(config, kind.hook, warn)
  for (const f of hook.failures) warn(`plugin ${f.plugin.name}: ${kind.hook} hook failed: ${f.error.message}`)
  for (const s of hook.successes) entry(s.plugin.name).items.push(...hookItems(s.result, kind.hookListField))
  return [...byPlugin.values()]
}

/** Loads what installed plugins contribute (see {@link installedContributions}) into `kind`'s registry. */
export async function loadInstalled(
  kind: PluginKind,
  contributions: readonly InstalledContribution[],
): Promise<void> {
  for (const c of contributions) {
    const source = `plugin:${c.name}`
    for (const path of c.paths)
      await loadPluginDir(
        kind,
        path,
        source,
        c.root === undefined ? undefined : {name: c.name, root: c.root, mayBeFile: kind.manifestMayBeFile},
      )
    for (const item of c.items) {
      if (!kind.examine(item, undefined, c.name, source))
        kind.warn(`plugin ${c.name}: ${kind.hook} returned something that is not a ${kind.noun}; ignored`)
    }
  }
}
