import {lmtError} from '../../errors.js'

// While plugin code runs, `process.exit` throws a PLUGIN_EXIT error instead of ending lmt: a converter that exits
// mid-stream would otherwise leave its temporary files behind and end a failed conversion with the plugin's code.

/** Node's own `process.exit`, taken when lmt starts (for lmt's own exits, e.g. after Ctrl-C). */
export const exitProcess: (code?: number) => never = process.exit.bind(process)
const originalExit = process.exit

interface Guard {
  who: string
  /** The code of the first `process.exit` call the plugin made while guarded, if any. */
  exitCode: number | undefined
}

const active: Guard[] = []

function guardedExit(code?: number | string | null): never {
  const guard = active[active.length - 1]
  const asked = code === undefined || code === null ? 0 : Number(code)
  guard.exitCode ??= asked
  throw lmtError('PLUGIN_EXIT', guard.who, asked)
}

/** Throws PLUGIN_EXIT when the plugin code now running called `process.exit` and caught what it threw. */
export function checkPluginExit(): void {
  const guard = active[active.length - 1]
  if (guard?.exitCode !== undefined) throw lmtError('PLUGIN_EXIT', guard.who, guard.exitCode)
}

/**
 * Runs `fn` (plugin code, named `who` in messages) with `process.exit` intercepted. A plugin's `process.exit(n)`
 * throws PLUGIN_EXIT into its own code; if the plugin catches that and carries on, PLUGIN_EXIT is thrown when `fn`
 * returns. A replaced `process.exit` is put back.
 */
export async function withExitGuard<T>(who: string, fn: () => Promise<T>): Promise<T> {
  const guard: Guard = {who, exitCode: undefined}
  active.push(guard)
  process.exit = guardedExit as typeof process.exit
  try {
    const result = await fn()
    if (guard.exitCode !== undefined) throw lmtError('PLUGIN_EXIT', who, guard.exitCode)
    return result
  } finally {
    active.splice(active.indexOf(guard), 1)
    process.exit = active.length > 0 ? (guardedExit as typeof process.exit) : originalExit
  }
}
