// What crosses between lmt and its plugin thread: plain data only (structured clone), errors as their facts
// (util/workers/worker-errors.ts).

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

export interface ConverterDescription {
  className: string
  description: string
  aliases: string[]
  flags?: Record<string, PlainFlag>
  looksLike: boolean
  inputFiles: boolean
  parseOptions: boolean
}

export interface LevelDescription {
  name: string
  description: string
  flags: Record<string, PlainFlag>
  replayableSchemaVersions: number[]
  /** whether it has configDigest (its digest is computed with the configuration, on the plugin thread) */
  configDigest: boolean
}

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
