import {existsSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import type {Config} from '@oclif/core'
import type {ConverterClass, ConverterRegistration, Logger} from '../convert/types.js'
import {type LmtError, lmtError} from '../errors.js'
import {ConverterRegistry, formatNameOf} from './converter-registry.js'
import {
  installedContributions,
  loadInstalled,
  loadPluginDir,
  loadPluginModule,
  moduleName,
  type PluginKind,
} from './discovery.js'
import {converterStandIn} from './stand-ins.js'

export interface DiscoveryOptions {
  /** Built-in converters directory; defaults to the package's compiled `plugins/converters`. */
  builtinDir?: string
  dirs?: readonly string[]
  modules?: readonly string[]
  /** oclif's configuration, whose installed plugins contribute converters (their manifests' folders, their hooks) */
  config?: Config
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

/** Why a class named like a converter is not a usable one, or undefined when it is. */
function converterDefect(cls: {prototype?: unknown}): string | undefined {
  if (!hasMethod(cls, 'convertToTraces') && !hasMethod(cls, 'convertToTraceJsonl'))
    return 'has neither convertToTraces nor convertToTraceJsonl'
  const {flags, parseOptions} = cls as {flags?: unknown; parseOptions?: unknown}
  const isFlag = (def: unknown): boolean =>
    def !== null &&
    typeof def === 'object' &&
    ['option', 'boolean'].includes((def as {type?: unknown}).type as string)
  if (
    flags !== undefined &&
    (flags === null ||
      typeof flags !== 'object' ||
      Array.isArray(flags) ||
      !Object.values(flags).every(isFlag))
  )
    return 'has a static flags that is not an object of flag definitions (Flags of lmt/flags)'
  if (parseOptions !== undefined && typeof parseOptions !== 'function')
    return 'has a static parseOptions that is not a function'
  return undefined
}

/** True when `value` is a class following the converter convention; warns when only the name matches. */
export function isConverterClass(
  value: unknown,
  where: string,
  warn: (m: string) => void,
): value is ConverterClass {
  if (typeof value !== 'function' || !value.prototype) return false
  const name = (value as {name: string}).name
  if (formatNameOf(name) === undefined) return false
  const defect = converterDefect(value)
  if (defect === undefined) return true
  warn(`${name} in ${where} ${defect}; ignored`)
  return false
}

/** The converter kind of plugin, registering into `registry`. */
export function converterKind(registry: ConverterRegistry): PluginKind {
  return {
    what: 'converter',
    noun: 'converter class',
    manifestField: 'converters',
    manifestMayBeFile: false,
    hook: 'lmt:converters',
    warn: registry.warn,
    standIn: (item, source) =>
      item.converter ? converterStandIn(item.converter, item.locator, source) : undefined,
    examine(value, exportName, where, source) {
      // a module's export is named by its file (and its plugin); a hook's item by its plugin
      const at = exportName === undefined ? where : moduleName(where, source)
      if (!isConverterClass(value, at, registry.warn)) return false
      registry.register(value, source, exportName === undefined ? undefined : where)
      return true
    },
  }
}

/** Resolves a `--converter-module` value: an existing file, else a package specifier resolved from the cwd. */
async function resolveModuleSpec(spec: string): Promise<string> {
  if (existsSync(spec)) return resolve(spec)
  const parent = pathToFileURL(join(process.cwd(), 'lmt-resolve.js')).href
  // loaded only for a package specifier: commands that never see one do not pay for it at start-up
  const {resolve: resolveSpecifier} = await import('import-meta-resolve')
  try {
    return fileURLToPath(resolveSpecifier(spec, parent))
  } catch (err) {
    // a value with a path separator or a module extension is most likely a file the user meant
    if (/[\\/]|\.(?:[cm]?js|ts)$/.test(spec)) throw new Error(`no such file: ${resolve(spec)}`)
    throw err
  }
}

function moduleLoadFailed(module: string, reason: string): LmtError {
  return lmtError('PLUGIN_MODULE_LOAD_FAILED', 'converter', module, reason, {
    suggestions: [
      'a --converter-module is a file (or a package) exporting a ...Converter class as an ES module (.mjs, .js of a "type": "module" package, .ts, .mts)',
    ],
  })
}

/**
 * Discovers converters from the four sources in order — built-in, each `--converter-dir`, each
 * `--converter-module`, installed plugins (`"lmt": {"converters": "<dir>"}` of their package.json, and classes
 * returned by an `lmt:converters` hook) — into a registry (last writer wins). A module of a folder or a plugin that
 * fails to load is a warning; a `--converter-module`, which the user named, is a PLUGIN_MODULE_LOAD_FAILED.
 */
export async function discoverConverters(options: DiscoveryOptions = {}): Promise<ConverterRegistry> {
  const registry = new ConverterRegistry(options.onWarning)
  const kind = converterKind(registry)
  // what the plugins contribute is found first (their manifests' warnings come first), and loaded last
  const installed = options.config ? await installedContributions(options.config, kind) : []
  await loadPluginDir(kind, options.builtinDir ?? builtinConvertersDir(), 'built-in')
  for (const dir of options.dirs ?? []) await loadPluginDir(kind, resolve(dir), `dir:${dir}`)
  for (const spec of options.modules ?? []) {
    let path: string
    try {
      path = await resolveModuleSpec(spec)
    } catch (err) {
      throw moduleLoadFailed(spec, (err as Error)?.message ?? String(err))
    }
    const failure = await loadPluginModule(kind, path, `module:${spec}`, true)
    if (failure !== undefined) throw moduleLoadFailed(path, failure)
  }
  await loadInstalled(kind, installed)
  return registry
}

/** Discovery, then the converter of -f (an unknown format is a usage error listing the known ones). */
export async function findConverter(
  flags: {format: string; 'converter-dir'?: string[]; 'converter-module'?: string[]},
  config: Config,
  logger: Logger,
): Promise<{registration: ConverterRegistration; registry: ConverterRegistry}> {
  const registry = await discoverConverters({
    config,
    dirs: flags['converter-dir'],
    modules: flags['converter-module'],
    onWarning: (m) => logger.warn(m),
  })
  const registration = registry.resolve(flags.format)
  if (!registration)
    throw lmtError('CONVERT_UNKNOWN_FORMAT', flags.format, registry.knownNames(), {
      suggestions: ['run "lmt converters" to see every format and where it comes from'],
    })
  return {registration, registry}
}
