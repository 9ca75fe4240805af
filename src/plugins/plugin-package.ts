// What an installed plugin's package may name (its "lmt" manifest, the paths in it, its oclif hooks), and whose
// modules are lmt's own.
import {existsSync} from 'node:fs'
import {isAbsolute, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Config} from '@oclif/core'
import {realOrResolved} from '../util/output-path.js'

// The "lmt" field of an installed plugin's package.json, checked against schemas/plugin-manifest.schema.json: what
// fits is used, every field that does not is a warning naming the plugin (a broken manifest never stops lmt).

export interface LmtManifest {
  /** a directory of converter modules, relative to the plugin's root */
  converters?: string
  /** a directory of replay-level modules or one module */
  levels?: string
}

/** The valid fields of `plugin`'s manifest ({} when it has none). */
export async function lmtManifest(
  plugin: {name: string; pjson: unknown},
  warn: (message: string) => void,
): Promise<LmtManifest> {
  const raw = (plugin.pjson as {lmt?: unknown}).lmt
  if (raw === undefined) return {}
  // ajv is loaded only when a plugin has a manifest: otherwise it would lengthen every convert's and replay's
  // start-up
  const {validatorFor} = await import('../schemas.js')
  const validate = validatorFor('plugin-manifest.schema.json')
  if (validate(raw)) {
    const m = raw as LmtManifest
    return {converters: m.converters, levels: m.levels}
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    warn(`plugin ${plugin.name}: "lmt" in package.json must be an object; ignored`)
    return {}
  }
  const bad = new Set<string>()
  for (const e of validate.errors ?? []) {
    const field =
      e.keyword === 'additionalProperties'
        ? String((e.params as {additionalProperty: string}).additionalProperty)
        : e.instancePath.slice(1)
    if (bad.has(field)) continue
    bad.add(field)
    warn(
      e.keyword === 'additionalProperties'
        ? `plugin ${plugin.name}: "lmt.${field}" in package.json is not a known field (converters, levels); ignored`
        : `plugin ${plugin.name}: "lmt.${field}" in package.json must be a non-empty path; ignored`,
    )
  }
  const m = raw as Record<string, unknown>
  const ok = (k: string): string | undefined =>
    !bad.has(k) && typeof m[k] === 'string' ? (m[k] as string) : undefined
  return {converters: ok('converters'), levels: ok('levels')}
}

// The paths of a plugin's "lmt" manifest are relative to its package; lmt imports what they point at, so a path
// (or a symbolic link on it) that leads outside the package could make lmt run code the plugin does not ship.

/** Whether `path` (symbolic links resolved) lies in `root` (itself resolved) or is it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(realOrResolved(root), realOrResolved(path))
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))
}

/**
 * `rel` (a manifest field) resolved against the plugin's root; undefined, with a warning naming the plugin, when it
 * leads outside the package.
 */
export function manifestPath(
  plugin: {name: string; root: string},
  field: string,
  rel: string,
  warn: (message: string) => void,
): string | undefined {
  const path = resolve(plugin.root, rel)
  if (isInside(plugin.root, path)) return path
  const real = existsSync(path) ? ` (${realOrResolved(path)})` : ''
  warn(
    `plugin ${plugin.name}: "lmt.${field}" in package.json points outside the plugin's package${real}; ignored`,
  )
  return undefined
}

/** The files of `files` inside the plugin's root; each one outside (through a symbolic link) is a warning. */
export function filesInside(
  plugin: {name: string; root: string},
  files: readonly string[],
  warn: (message: string) => void,
): string[] {
  return files.filter((file) => {
    if (isInside(plugin.root, file)) return true
    warn(
      `plugin ${plugin.name}: ${file} leads outside the plugin's package (${realOrResolved(file)}); not loaded`,
    )
    return false
  })
}

// The one rule of whose code runs on lmt's own thread: a module inside lmt's own tree (its compiled build; from
// sources, its checkout) is lmt's and trusted, as the built-in converters and levels are. Any other module is
// third-party code and runs on the plugin thread (plugin-thread.ts), wherever it was found and however it was named.

/** lmt's own trees: `<package>/dist/` in a build; from sources, `src/` and `plugins/` of the checkout. */
const OWN_TREES = import.meta.url.endsWith('.ts')
  ? ['../../src/', '../../plugins/'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
  : [fileURLToPath(new URL('../../', import.meta.url))]

/** Whether the module at `path` (links resolved) is lmt's own. */
export function isLmtModule(path: string): boolean {
  return OWN_TREES.some((tree) => isInside(tree, path))
}

// An installed plugin's `"oclif": {"hooks": {...}}` names files oclif imports on the hook's event (`init` runs on
// every command). A path that leads outside the plugin's package, by `..`, an absolute path or a symbolic link, would
// make lmt run code the plugin does not ship: such a hook is removed before any hook runs, with a warning, as the
// paths of the `"lmt"` manifest field are refused (above).

/** oclif finds a hook's module with or without its extension */
export const MODULE_SUFFIXES = ['', '.js', '.mjs', '.cjs', '/index.js', '/index.mjs', '/index.cjs']

/** Whether every file `target` may name, relative to the plugin's root, lies inside the root. */
function targetInside(root: string, target: string): boolean {
  const path = resolve(root, target)
  if (!isInside(root, path)) return false
  return MODULE_SUFFIXES.every((suffix) => !existsSync(path + suffix) || isInside(root, path + suffix))
}

/**
 * Removes, from every plugin installed or linked beside lmt, the hooks whose module lies outside the plugin's
 * package; returns one warning per hook removed (lmt's own plugins and oclif's are left as they are).
 */
export function confineHooks(config: Config): string[] {
  const warnings: string[] = []
  for (const plugin of config.getPluginsList()) {
    if (plugin.name === config.name || plugin.type === 'core') continue
    for (const [event, hooks] of Object.entries(plugin.hooks ?? {})) {
      plugin.hooks[event] = hooks.filter((hook) => {
        if (typeof hook.target === 'string' && targetInside(plugin.root, hook.target)) return true
        warnings.push(
          `plugin ${plugin.name}: hook "${event}" (${String(hook.target)}) in package.json points outside the plugin's package; not run [LMT_PLUGIN_OUTSIDE_PACKAGE]`,
        )
        return false
      })
    }
  }
  return warnings
}
