// The one discovery of lmt's plugins, for every kind (converters, replay levels): lmt's own modules, folders and
// modules named on the command line, and installed oclif plugins (their package.json "lmt" manifest and their
// hooks). A plugin is found by convention and validated on load; whatever is broken is a warning naming it, never
// an error: a broken plugin cannot stop lmt.
import {resolve} from 'node:path'
import type {Config} from '@oclif/core'
import {lmtError} from '../errors.js'
import {importFile, scanModuleDir} from './module-loader.js'
import {pluginLoadTimeoutMs, pluginThread, pluginThreadAvailable} from './plugin-thread.js'
import type {FoundEvent, FoundItem} from './plugin-wire.js'
import {filesInside, isLmtModule, lmtManifest, type LmtManifest, manifestPath} from './plugin-package.js'

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
  /** the hook through which a plugin may contribute: `lmt:<manifestField>` */
  hook: string
  /**
   * Takes one export of a module (`exportName`, in `where`), a hook's item (`exportName` undefined) or a
   * programmatic registration: registers it when it is a plugin of this kind and true; false when it is not one (a
   * warning says so when it looks like a broken one).
   */
  examine(value: unknown, exportName: string | undefined, where: string, source: string): boolean
  warn(message: string): void
  /**
   * For a kind whose third-party code runs on the plugin thread: what stands in on lmt's thread for an object found
   * there (see plugin-thread.ts). A kind without it loads every module on lmt's thread.
   */
  standIn?(item: FoundItem, source: string): unknown
}

/** The most items lmt takes from one hook (a longer list is a warning and contributes nothing). */
export const MAX_HOOK_ITEMS = 10_000

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

/** A module as messages name it: its path and its plugin (one named on the command line: its path alone). */
export function moduleName(path: string, source: string): string {
  return source.startsWith('plugin:') ? `${path} (${source})` : path
}

/** Exports in a fixed order: named ones in code-unit order, then `default`. */
export function exportNames(ns: Record<string, unknown>): string[] {
  const names = Object.keys(ns)
    .filter((n) => n !== 'default')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if ('default' in ns) names.push('default')
  return names
}

/** Why a module did not load, in words for the user. */
function loadFailure(err: unknown): string {
  const message = (err as Error)?.message ?? String(err)
  // a CommonJS require('lmt'): Node 20 resolves it without the hooks that serve import 'lmt'
  const commonJs = /^Cannot find module 'lmt(\/[a-z]+)?'/.test(message)
    ? ` (a CommonJS module cannot require lmt: write an ES module, .mjs or .ts, that imports it)`
    : ''
  return `${commonJs ? message.split('\n')[0] : message}${commonJs}`
}

/**
 * Loads one module and examines each export: lmt's own modules here, third-party ones on the plugin thread (a kind
 * with stand-ins) or here guarded and bounded in time. A module that fails to load is a warning, or, when `named`
 * (the user named it on the command line), its reason is returned.
 */
export async function loadPluginModule(
  kind: PluginKind,
  path: string,
  source: string,
  named = false,
): Promise<string | undefined> {
  const who = `${kind.what} module ${moduleName(path, source)}`
  let ns: Record<string, unknown>
  try {
    if (kind.standIn && pluginThreadAvailable && !isLmtModule(path)) {
      const events = await pluginThread().call<FoundEvent[]>('load', {what: kind.what, path, source}, who, {
        timeoutMs: pluginLoadTimeoutMs(),
      })
      // what the plugin thread found, in order: its warnings, and stand-ins examined
      for (const e of events) {
        if ('warn' in e) kind.warn(e.warn)
        else if ('item' in e) kind.examine(kind.standIn?.(e.item, source), e.item.exportName, path, source)
      }
      return undefined
    }
    // lmt's own modules (and, from sources, where there is no plugin thread, every module) load on lmt's thread
    ns = await importFile(path)
  } catch (err) {
    if (named) return loadFailure(err)
    kind.warn(`cannot load ${who}: ${loadFailure(err)}`)
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

/** The result of hook `lmt:<kind>` as a list: an array, `{<kind>: [...]}`, one item, or nothing. */
export function hookItems(result: unknown, hook: string): unknown[] {
  if (result === undefined || result === null) return []
  if (Array.isArray(result)) return result
  const list = (result as Record<string, unknown>)[hook.slice('lmt:'.length)]
  if (typeof result === 'object' && Array.isArray(list)) return list
  return [result]
}

/**
 * What installed plugins contribute to `kind`, one entry per plugin: first the folders their manifests name (in
 * `config.plugins` order), then what their hooks return.
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
  if (kind.standIn && pluginThreadAvailable) {
    await hookContributionsOnThread(config, kind, entry)
    return [...byPlugin.values()]
  }
  // only where there is no plugin thread (lmt run from sources, in its unit tests): on lmt's thread, every plugin's
  // hook within the load bound (oclif's timeout names the plugin)
  const hook = await config.runHook(kind.hook as never, {} as never, pluginLoadTimeoutMs())
  for (const f of hook.failures) warn(`plugin ${f.plugin.name}: ${kind.hook} hook failed: ${f.error.message}`)
  for (const s of hook.successes) {
    const items = hookItems(s.result, kind.hook)
    if (items.length > MAX_HOOK_ITEMS) {
      warn(lmtError('PLUGIN_HOOK_TOO_MANY', s.plugin.name, kind.hook, items.length, MAX_HOOK_ITEMS).message)
      continue
    }
    const list = entry(s.plugin.name).items
    for (const item of items) list.push(item)
  }
  return [...byPlugin.values()]
}

/**
 * The hooks of `kind` of each installed plugin, run on the plugin thread within the load bound: what they return
 * becomes stand-ins (or `undefined` for an item that is not a plugin); one that fails, or does not finish, is a warning.
 */
async function hookContributionsOnThread(
  config: Config,
  kind: PluginKind,
  entry: (name: string) => InstalledContribution,
): Promise<void> {
  for (const plugin of installedPlugins(config)) {
    const hooks = (plugin.hooks?.[kind.hook] ?? []).map((h) => ({
      file: resolve(plugin.root, h.target),
      identifier: h.identifier ?? 'default',
    }))
    if (hooks.length === 0) continue
    const source = `plugin:${plugin.name}`
    let found: {events: FoundEvent[]; failures: string[]}
    try {
      found = await pluginThread().call(
        'hooks',
        {what: kind.what, event: kind.hook, plugin: plugin.name, hooks},
        `the ${kind.hook} hooks of plugin ${plugin.name}`,
        {timeoutMs: pluginLoadTimeoutMs() + 500},
      )
    } catch (err) {
      kind.warn(`plugin ${plugin.name}: ${kind.hook} hook failed: ${(err as Error)?.message ?? String(err)}`)
      continue
    }
    for (const f of found.failures) kind.warn(`plugin ${plugin.name}: ${kind.hook} hook failed: ${f}`)
    const items = entry(plugin.name).items
    for (const e of found.events) {
      if ('warn' in e) kind.warn(e.warn)
      else items.push('item' in e ? kind.standIn?.(e.item, source) : undefined)
    }
  }
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
