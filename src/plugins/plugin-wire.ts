// What crosses between lmt and its plugin thread: plain data only (structured clone), errors as their facts
// (util/workers/worker-errors.ts).
import type {ConverterClass} from '../convert/types.js'
import type {ReplayLevel} from '../replay/level.js'

/** What to do about a plugin that failed: the hint of the plugin thread's errors. */
export const NEXT_STEP =
  'report it to the plugin author; until it is fixed, leave the plugin out (lmt plugins uninstall, or drop the --converter-module/--converter-dir)'

/** Where a plugin object lives, so the plugin thread can find it again (also after a restart). */
export type Locator =
  | {module: string; exportName: string}
  | {hook: {plugin: string; file: string; identifier: string; event: string}; index: number}

export function locatorKey(locator: Locator): string {
  return JSON.stringify(locator)
}

/** A flag definition without its functions (they stay on the plugin thread), as oclif parses it on lmt's thread. */
export type PlainFlag = Record<string, unknown> & {type: string}

/** What lmt's thread is told of a converter class. */
export function describeConverter(cls: ConverterClass) {
  const aliases = (cls as {aliases?: unknown}).aliases
  return {
    className: cls.name,
    description: typeof cls.description === 'string' ? cls.description : '',
    aliases: Array.isArray(aliases) ? aliases.filter((a): a is string => typeof a === 'string') : [],
    flags: plainFlags(cls.flags),
    looksLike: typeof (cls as {looksLike?: unknown}).looksLike === 'function',
    inputFiles: typeof (cls as {inputFiles?: unknown}).inputFiles === 'function',
    parseOptions: typeof cls.parseOptions === 'function',
  }
}

/** What lmt's thread is told of a replay level. */
export function describeLevel(level: ReplayLevel) {
  const versions = level.replayableSchemaVersions as unknown
  return {
    name: level.name,
    description: typeof level.description === 'string' ? level.description : '',
    flags: plainFlags(level.flags ?? {}) ?? {},
    replayableSchemaVersions: Array.isArray(versions)
      ? versions.filter((v): v is number => typeof v === 'number')
      : [],
    // its digest is computed with the configuration, on the plugin thread
    configDigest: typeof level.configDigest === 'function',
  }
}

export type ConverterDescription = ReturnType<typeof describeConverter>
export type LevelDescription = ReturnType<typeof describeLevel>

/** One plugin object found on the plugin thread. */
export interface FoundItem {
  locator: Locator
  exportName?: string
  converter?: ConverterDescription
  level?: LevelDescription
}

/** What loading a module or running hooks reported, in order: warnings and the plugin objects found. */
export type FoundEvent = {warn: string} | {item: FoundItem} | {notAPlugin: true}

/** A flag definition as plain data: every field that survives a structured clone, no function. */
export function plainFlags(flags: unknown): Record<string, PlainFlag> | undefined {
  if (flags === undefined) return undefined
  const out: Record<string, PlainFlag> = {}
  for (const [name, def] of Object.entries(flags as Record<string, Record<string, unknown>>)) {
    const plain: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(def)) {
      if (typeof value === 'function') continue
      try {
        plain[key] = structuredClone(value)
      } catch {
        // a value that cannot cross stays with the plugin
      }
    }
    out[name] = plain as PlainFlag
  }
  return out
}
