import {withExitGuard} from './exit-guard.js'
import {restorePrototypes, snapshotPrototypes} from './prototype-guard.js'

/** How long a plugin may take to load (import and hooks), in seconds, unless LMT_PLUGIN_LOAD_TIMEOUT says more. */
export const DEFAULT_LOAD_TIMEOUT_S = 3

/** The load bound in milliseconds: LMT_PLUGIN_LOAD_TIMEOUT (seconds, > 0) or {@link DEFAULT_LOAD_TIMEOUT_S}. */
export function pluginLoadTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.LMT_PLUGIN_LOAD_TIMEOUT)
  return (Number.isFinite(s) && s > 0 ? s : DEFAULT_LOAD_TIMEOUT_S) * 1000
}

let abandoned = false

/**
 * True once plugin code was given up on while still pending: its timers may keep the process alive after the
 * command is done, so the CLI ends the process itself.
 */
export function pluginCodeAbandoned(): boolean {
  return abandoned
}

/** Records that plugin code was given up on while pending (see {@link pluginCodeAbandoned}). */
export function abandonPluginCode(): void {
  abandoned = true
}

function withinBound<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  // not unref'd: a top-level await that never settles must not let the event loop drain (Node would exit 13)
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandoned = true
      reject(
        new Error(
          `did not finish loading within ${ms / 1000} s (a top-level await that never settles?); ` +
            'skipped (LMT_PLUGIN_LOAD_TIMEOUT=<seconds> allows more)',
        ),
      )
    }, ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** Reports and undoes changes plugin code made to the shared prototypes. */
export function undoPrototypeChanges(who: string, warn: (message: string) => void): void {
  const changed = restorePrototypes()
  if (changed.length > 0) warn(`${who} changed ${changed.join(', ')}; lmt undid that`)
}

/**
 * Runs third-party code (`who` names it in messages): `process.exit` becomes a PLUGIN_EXIT error, changes to the
 * shared prototypes and to `process.exitCode` are undone (with a warning), and with `timeoutMs` the work is abandoned after that long.
 * Rejects with the plugin's error; the caller turns it into a warning or a coded error.
 */
export async function runPluginCode<T>(
  who: string,
  fn: () => Promise<T>,
  warn: (message: string) => void,
  timeoutMs?: number,
): Promise<T> {
  snapshotPrototypes()
  const exitCode = process.exitCode
  try {
    return await withExitGuard(who, () => (timeoutMs === undefined ? fn() : withinBound(fn(), timeoutMs)))
  } finally {
    undoPrototypeChanges(who, warn)
    if (process.exitCode !== exitCode) {
      warn(`${who} set process.exitCode to ${String(process.exitCode)}; lmt undid that`)
      process.exitCode = exitCode
    }
  }
}
