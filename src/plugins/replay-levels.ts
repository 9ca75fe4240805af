import type {Config} from '@oclif/core'
import {isReplayLevel, type ReplayLevel} from '../replay/level.js'
import {storageLevel} from '../replay/storage/storage-level.js'
import {importFile, scanModuleDir} from './module-loader.js'
import {runLmtHook} from './plugin-hooks.js'
import {pluginLoadTimeoutMs, runPluginCode} from './plugin-code.js'
import {lmtManifest} from './plugin-manifest.js'
import {filesInside, manifestPath} from './plugin-paths.js'

export interface LevelRegistration {
  level: ReplayLevel
  source: string
}

/** Base flags of `lmt replay`: a level flag may not reuse one of these names. */
export const BASE_REPLAY_FLAGS = new Set([
  'level',
  'pace',
  'speed',
  'verbose',
  'progress',
  'jsonl-out',
  'output-dir',
  'no-csv',
  'csv',
  'json',
  'quiet',
  'record',
  'allow-schema-1',
  'max-frame-bytes',
  'exact-latency',
  'list-levels',
  'help',
])

const programmatic: LevelRegistration[] = []

/** Registers a level from code (tests, embedding); it is added after discovered ones. */
export function registerReplayLevel(level: ReplayLevel, source = 'programmatic'): void {
  programmatic.push({level, source})
}

/** name → level; last writer wins with a warning. */
export class LevelRegistry {
  readonly levels = new Map<string, LevelRegistration>()

  constructor(readonly warn: (m: string) => void) {}

  add(level: ReplayLevel, source: string): void {
    const clash = Object.keys(level.flags ?? {}).find((f) => BASE_REPLAY_FLAGS.has(f))
    if (clash)
      return this.warn(
        `replay level "${level.name}" from ${source}: flag --${clash} collides with a base flag of lmt replay; level not registered`,
      )
    const prev = this.levels.get(level.name)
    if (prev && prev.level === level) return
    if (prev) this.warn(`replay level "${level.name}": ${source} overrides ${prev.source}`)
    this.levels.set(level.name, {level, source})
  }

  names(): string[] {
    return [...this.levels.keys()].sort()
  }
}

async function addModule(path: string, source: string, reg: LevelRegistry): Promise<void> {
  let ns: Record<string, unknown>
  try {
    ns =
      source === 'built-in'
        ? await importFile(path)
        : await runPluginCode(
            `replay level module ${path} (${source})`,
            () => importFile(path),
            reg.warn,
            pluginLoadTimeoutMs(),
          )
  } catch (err) {
    reg.warn(`cannot load replay level module ${path} (${source}): ${(err as Error)?.message ?? String(err)}`)
    return
  }
  for (const name of Object.keys(ns).sort()) {
    const v = ns[name]
    if (isReplayLevel(v)) reg.add(v as ReplayLevel, source)
    else if (
      v !== null &&
      typeof v === 'object' &&
      typeof (v as {name?: unknown}).name === 'string' &&
      source !== 'built-in'
    )
      reg.warn(
        `${name} in ${path} (${source}) is not a replay level (it needs a name, createTarget and buildDispatcher); ignored`,
      )
  }
}

/** The built-in level (core), then plugin levels (package.json "lmt": {"levels"} or the lmt:levels hook). */
export async function discoverLevels(
  config: Config | undefined,
  warn: (m: string) => void,
): Promise<LevelRegistry> {
  const reg = new LevelRegistry(warn)
  reg.add(storageLevel as ReplayLevel, 'built-in')
  if (config) {
    for (const plugin of config.getPluginsList()) {
      if (plugin.name === config.name || plugin.type === 'core') continue
      const rel = (await lmtManifest(plugin, warn)).levels
      if (rel === undefined) continue
      const path = manifestPath(plugin, 'levels', rel, warn)
      if (path === undefined) continue
      const st = await scanModuleDir(path, true)
      const files = st.missing ? [path] : filesInside(plugin, st.files, warn)
      for (const f of files) await addModule(f, `plugin:${plugin.name}`, reg)
    }
    // `lmt:levels` is the documented hook; `lmt:replay-levels` is accepted as an alias
    for (const hookName of ['lmt:levels', 'lmt:replay-levels']) {
      const hook = await runLmtHook(config, hookName, warn)
      for (const f of hook.failures)
        warn(`plugin ${f.plugin.name}: ${hookName} hook failed: ${f.error.message}`)
      for (const s of hook.successes) {
        const r = s.result as {levels?: unknown[]} | unknown[] | undefined
        const list = Array.isArray(r) ? r : (r?.levels ?? [])
        for (const l of list) {
          if (isReplayLevel(l)) reg.add(l, `plugin:${s.plugin.name}`)
          else
            warn(
              `plugin ${s.plugin.name}: ${hookName} returned something that is not a replay level; ignored`,
            )
        }
      }
    }
  }
  for (const p of programmatic) reg.add(p.level, p.source)
  return reg
}
