import {existsSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {resolve as resolveSpecifier} from 'import-meta-resolve'
import type {ConverterClass} from '../convert/types.js'
import {ConverterRegistry} from './converter-registry.js'
import {formatNameOf} from './format-name.js'
import {importFile, listBuiltinModules, scanModuleDir} from './module-loader.js'
import {pluginLoadTimeoutMs, runPluginCode} from './plugin-code.js'
import {filesInside} from './plugin-paths.js'

/** Converters contributed by an installed lmt plugin (see the plugin guide). */
export interface PluginConverterSource {
  /** npm package name of the plugin */
  name: string
  /** the plugin's package folder: files of its directories that lead outside it are not loaded */
  root?: string
  /** directories to scan like `--converter-dir` */
  dirs: string[]
  /** classes returned by the plugin's `lmt:converters` hook */
  classes: unknown[]
}

export interface DiscoveryOptions {
  /** Built-in converters directory; defaults to the package's compiled `plugins/converters`. */
  builtinDir?: string
  dirs?: readonly string[]
  modules?: readonly string[]
  plugins?: readonly PluginConverterSource[]
  onWarning?: (message: string) => void
}

/** The compiled built-in converters directory of this installation. */
export function builtinConvertersDir(): string {
  const here = dirname(fileURLToPath(import.meta.url)) // <root>/dist/src/plugins or <root>/src/plugins
  return resolve(here, '..', '..', 'plugins', 'converters')
}

function hasMethod(cls: {prototype?: unknown}, name: string): boolean {
  let proto = cls.prototype as Record<string, unknown> | null | undefined
  while (proto && proto !== Object.prototype) {
    const d = Object.getOwnPropertyDescriptor(proto, name)
    if (d && typeof d.value === 'function') return true
    proto = Object.getPrototypeOf(proto)
  }
  return false
}

/** True when `value` is a class following the converter convention; warns when only the name matches. */
export function examineExport(
  value: unknown,
  path: string,
  registry: ConverterRegistry,
  source = '',
): value is ConverterClass {
  if (typeof value !== 'function' || !value.prototype) return false
  const name = (value as {name: string}).name
  if (formatNameOf(name) === undefined) return false
  if (hasMethod(value, 'convertToTraces') || hasMethod(value, 'convertToTraceJsonl')) return true
  registry.warn(
    `${name} in ${path}${source ? ` (${source})` : ''} has neither convertToTraces nor convertToTraceJsonl; ignored`,
  )
  return false
}

function registerModule(
  ns: Record<string, unknown>,
  path: string,
  source: string,
  registry: ConverterRegistry,
): void {
  const names = Object.keys(ns)
    .filter((n) => n !== 'default')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if ('default' in ns) names.push('default')
  for (const name of names) {
    const value = ns[name]
    if (examineExport(value, path, registry, source.startsWith('plugin:') ? source : ''))
      registry.register(value, source, path)
  }
}

async function loadModule(path: string, source: string, registry: ConverterRegistry): Promise<void> {
  let ns: Record<string, unknown>
  const from = source.startsWith('plugin:') ? ` (${source})` : ''
  try {
    // lmt's own modules load as they are; anything else is third-party code, bounded and guarded
    ns =
      source === 'built-in'
        ? await importFile(path)
        : await runPluginCode(
            `converter module ${path}${from}`,
            () => importFile(path),
            (m) => registry.warn(m),
            pluginLoadTimeoutMs(),
          )
  } catch (err) {
    registry.warn(`cannot load converter module ${path}${from}: ${(err as Error)?.message ?? String(err)}`)
    return
  }
  registerModule(ns, path, source, registry)
}

async function scanDir(
  dir: string,
  source: string,
  registry: ConverterRegistry,
  plugin?: {name: string; root: string},
): Promise<void> {
  const scanned = source === 'built-in' ? await listBuiltinModules(dir) : await scanModuleDir(dir)
  if (scanned.missing) {
    registry.warn(`converter directory not found: ${dir}`)
    return
  }
  if (scanned.skippedTs > 0)
    registry.warn(`${scanned.skippedTs} TypeScript file(s) in ${dir} skipped; install tsx to load them`)
  const warn = (m: string): void => registry.warn(m)
  const files = plugin ? filesInside(plugin, scanned.files, warn) : scanned.files
  for (const file of files) await loadModule(file, source, registry)
}

/** Resolves a `--converter-module` value: an existing file, else a package specifier resolved from the cwd. */
function resolveModuleSpec(spec: string): string {
  if (existsSync(spec)) return resolve(spec)
  const parent = pathToFileURL(join(process.cwd(), 'lmt-resolve.js')).href
  try {
    return fileURLToPath(resolveSpecifier(spec, parent))
  } catch (err) {
    // a value with a path separator or a module extension is most likely a file the user meant
    if (/[\\/]|\.(?:[cm]?js|ts)$/.test(spec)) throw new Error(`no such file: ${resolve(spec)}`)
    throw err
  }
}

/**
 * Discovers converters from the four sources in order — built-in, each `--converter-dir`, each
 * `--converter-module`, installed plugins — into a registry (last writer wins). Never throws for a broken module:
 * every load failure is a warning.
 */
export async function discoverConverters(options: DiscoveryOptions = {}): Promise<ConverterRegistry> {
  const registry = new ConverterRegistry(options.onWarning)
  await scanDir(options.builtinDir ?? builtinConvertersDir(), 'built-in', registry)
  for (const dir of options.dirs ?? []) await scanDir(resolve(dir), `dir:${dir}`, registry)
  for (const spec of options.modules ?? []) {
    let path: string
    try {
      path = resolveModuleSpec(spec)
    } catch (err) {
      registry.warn(`cannot load converter module ${spec}: ${(err as Error)?.message ?? String(err)}`)
      continue
    }
    await loadModule(path, `module:${spec}`, registry)
  }
  for (const plugin of options.plugins ?? []) {
    const confined = plugin.root === undefined ? undefined : {name: plugin.name, root: plugin.root}
    for (const dir of plugin.dirs) await scanDir(dir, `plugin:${plugin.name}`, registry, confined)
    for (const cls of plugin.classes) {
      if (examineExport(cls, plugin.name, registry)) registry.register(cls, `plugin:${plugin.name}`)
      else
        registry.warn(
          `plugin ${plugin.name}: lmt:converters returned something that is not a converter class; ignored`,
        )
    }
  }
  return registry
}
