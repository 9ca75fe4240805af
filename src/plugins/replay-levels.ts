import type {Config} from '@oclif/core'
import type {ReplayLevel} from '../replay/level.js'
import {storageLevel} from '../replay/storage/storage-level.js'
import {eventsLevel} from '../replay/events/events-level.js'
import {levelStandIn} from './stand-ins.js'
import {installedContributions, loadInstalled, type PluginKind} from './discovery.js'
import {isLevel, LevelRegistry, programmaticLevels} from './level-registry.js'

/** The replay-level kind of plugin, registering into `registry`. */
export function levelKind(registry: LevelRegistry): PluginKind {
  return {
    what: 'replay level',
    noun: 'replay level',
    manifestField: 'levels',
    manifestMayBeFile: true,
    hook: 'lmt:levels',
    warn: registry.warn,
    standIn: (item, source) => (item.level ? levelStandIn(item.level, item.locator, source) : undefined),
    examine(value, exportName, where, source) {
      // levels reach here from installed plugins only (lmt's own are added directly)
      if (!isLevel(value, exportName, `${where} (${source})`, registry.warn)) return false
      registry.add(value, source)
      return true
    },
  }
}

/**
 * The core levels (storage, events), then plugin levels (package.json "lmt": {"levels"} or the lmt:levels hook), then
 * programmatic ones. `reservedFlags`: the flag names a level may not declare (those of `lmt replay` itself, which
 * the command passes in from its flag definitions).
 */
export async function discoverLevels(
  config: Config | undefined,
  warn: (m: string) => void,
  reservedFlags: ReadonlySet<string>,
): Promise<LevelRegistry> {
  const reg = new LevelRegistry(warn, reservedFlags)
  const kind = levelKind(reg)
  reg.add(storageLevel as ReplayLevel, 'built-in')
  reg.add(eventsLevel as ReplayLevel, 'built-in')
  if (config) await loadInstalled(kind, await installedContributions(config, kind))
  for (const p of programmaticLevels()) reg.add(p.level, p.source)
  return reg
}
