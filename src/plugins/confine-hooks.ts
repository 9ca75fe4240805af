import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import type {Config} from '@oclif/core'
import {isInside} from './plugin-paths.js'

// An installed plugin's `"oclif": {"hooks": {...}}` names files oclif imports on the hook's event (`init` runs on
// every command). A path that leads outside the plugin's package, by `..`, an absolute path or a symbolic link, would
// make lmt run code the plugin does not ship: such a hook is removed before any hook runs, with a warning, as the
// paths of the `"lmt"` manifest field are refused (plugin-paths.ts).

/** oclif finds a hook's module with or without its extension */
const MODULE_SUFFIXES = ['', '.js', '.mjs', '.cjs', '/index.js', '/index.mjs', '/index.cjs']

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
