import type {Config} from '@oclif/core'
import {abandonPluginCode, pluginLoadTimeoutMs, runPluginCode} from '../util/guards/plugin-code.js'

/**
 * `config.runHook(name)`: every plugin's hook within the load bound (oclif's timeout names the plugin), the whole run
 * guarded like any plugin code; a run that does not finish is a warning and contributes nothing.
 */
export async function runLmtHook(
  config: Config,
  name: string,
  warn: (message: string) => void,
): ReturnType<Config['runHook']> {
  const ms = pluginLoadTimeoutMs()
  let result: Awaited<ReturnType<Config['runHook']>>
  try {
    // the outer bound also covers importing the hook files, which oclif's timeout does not
    result = await runPluginCode(
      `the ${name} hooks`,
      () => config.runHook(name as never, {} as never, ms),
      warn,
      ms + 500,
    )
  } catch (err) {
    warn(`the ${name} hooks of installed plugins failed: ${(err as Error)?.message ?? String(err)}`)
    return {successes: [], failures: []}
  }
  // oclif gave up on a hook that is still pending: its timers may keep the process alive after the command
  if (result.failures.some((f) => /^Timed out after \d+ ms\.$/.test(f.error.message))) abandonPluginCode()
  return result
}
