import type {Config} from '@oclif/core'
import type {PluginConverterSource} from './converter-discovery.js'
import {runLmtHook} from './plugin-hooks.js'
import {lmtManifest} from './plugin-manifest.js'
import {manifestPath} from './plugin-paths.js'

/**
 * Converter contributions of installed lmt plugins (oclif plugins other than lmt itself), in `config.plugins` order:
 * the `"lmt": {"converters": "<dir>"}` field of their package.json, and classes returned by an `lmt:converters` hook.
 */
export async function pluginConverterSources(
  config: Config,
  warn: (message: string) => void,
): Promise<PluginConverterSource[]> {
  const sources = new Map<string, PluginConverterSource>()
  const entry = (name: string, root?: string): PluginConverterSource => {
    let s = sources.get(name)
    if (!s) sources.set(name, (s = {name, root, dirs: [], classes: []}))
    return s
  }
  for (const plugin of config.getPluginsList()) {
    if (plugin.name === config.name || plugin.type === 'core') continue
    const {converters} = await lmtManifest(plugin, warn)
    const dir = converters === undefined ? undefined : manifestPath(plugin, 'converters', converters, warn)
    if (dir !== undefined) entry(plugin.name, plugin.root).dirs.push(dir)
  }
  const hook = await runLmtHook(config, 'lmt:converters', warn)
  for (const failure of hook.failures)
    warn(`plugin ${failure.plugin.name}: lmt:converters hook failed: ${failure.error.message}`)
  for (const success of hook.successes) {
    const result = success.result as unknown
    if (result === undefined || result === null) continue
    const list = Array.isArray(result) ? result : [result]
    entry(success.plugin.name).classes.push(...list)
  }
  return [...sources.values()]
}
