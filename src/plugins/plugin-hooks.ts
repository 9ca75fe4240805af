import type {Config} from '@oclif/core'
import {pluginLoadTimeoutMs} from './plugin-thread.js'

/**
 * `config.runHook(name)` on lmt's thread, every plugin's hook within the load bound (oclif's timeout names the
 * plugin): only where there is no plugin thread (lmt run from sources, in its unit tests).
 */
export async function runLmtHook(config: Config, name: string): ReturnType<Config['runHook']> {
  return config.runHook(name as never, {} as never, pluginLoadTimeoutMs())
}
