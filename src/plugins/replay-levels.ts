import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Config} from '@oclif/core'
import {reservedReplayFlagNames} from '../cli/replay-flags.js'
import {isReplayLevel} from '../replay/level.js'
import {installedContributions, loadInstalled, loadPluginDir, type PluginKind} from './discovery.js'
import {LevelRegistry, programmaticLevels} from './level-registry.js'

export {LevelRegistry, registerReplayLevel, type LevelRegistration} from './level-registry.js'

/** Flag names a replay level may not declare: those of `lmt replay` itself, taken from its flag definitions. */
export const BASE_REPLAY_FLAGS: ReadonlySet<string> = reservedReplayFlagNames()

export function builtinLevelsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  return resolve(here, '..', '..', 'plugins', 'levels')
}

/** The replay-level kind of plugin, registering into `registry`. */
export function levelKind(registry: LevelRegistry): PluginKind {
  return {
    what: 'replay level',
    noun: 'replay level',
    manifestField: 'levels',
    manifestMayBeFile: true,
    hook: 'lmt:levels',
    deprecatedHooks: ['lmt:replay-levels'],
    hookListField: 'levels',
    warn: (m) => registry.warn(m),
    examine(value, exportName, where, source) {
      if (isReplayLevel(value)) {
        registry.add(value, source)
        return true
      }
      // an exported object with a name looks like a level that lacks something
      const named =
        value !== null && typeof value === 'object' && typeof (value as {name?: unknown}).name === 'string'
      if (exportName !== undefined && named && source !== 'built-in')
        registry.warn(
          `${exportName} in ${where} (${source}) is not a replay level (it needs a name, createTarget and buildDispatcher); ignored`,
        )
      return false
    },
  }
}

/** Built-in levels, then plugin levels (package.json "lmt": {"levels"} or the lmt:levels hook), then programmatic ones. */
export async function discoverLevels(
  config: Config | undefined,
  warn: (m: string) => void,
  builtinDir = builtinLevelsDir(),
): Promise<LevelRegistry> {
  const reg = new LevelRegistry(warn, BASE_REPLAY_FLAGS)
  const kind = levelKind(reg)
  await loadPluginDir(kind, builtinDir, 'built-in')
  if (config) await loadInstalled(kind, await installedContributions(config, kind))
  for (const p of programmaticLevels()) reg.add(p.level, p.source)
  return reg
}
