import {spawn} from 'node:child_process'
import type {Socket} from 'node:net'

// Signal handlers run on the main thread's event loop: while plugin code loops without yielding, lmt's Ctrl-C
// handler never runs. Ctrl-C at a terminal signals the whole foreground process group, so a small watchdog process
// in lmt's group hears it too: if lmt is still there after the grace period (or at a second Ctrl-C), the watchdog
// kills it. The temporary files of that run are then removed by the next conversion into the same folder.

/** How long lmt has to answer Ctrl-C itself before the watchdog ends it. */
export const WATCHDOG_GRACE_MS = 2000

const SCRIPT = `
const [lmt, grace] = process.argv.slice(1).map(Number)
let timer
function end() {
  try {
    process.kill(lmt, 0)
    process.stderr.write('error: lmt did not answer the interrupt within ' + grace / 1000 + ' s (plugin code that ' +
      'never yields?); it was killed. Its temporary files are removed by the next conversion into the same folder.\\n')
    process.kill(lmt, 'SIGKILL')
  } catch {}
  process.exit(0)
}
function onSignal() {
  if (timer) end()
  else timer = setTimeout(end, grace)
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)
process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()
`

/**
 * Starts the watchdog for this process; returns the function that stops it. It never keeps lmt alive, and it ends
 * by itself when lmt does (its stdin closes).
 */
export function startInterruptWatchdog(graceMs = WATCHDOG_GRACE_MS): () => void {
  let child: ReturnType<typeof spawn>
  try {
    child = spawn(process.execPath, ['-e', SCRIPT, String(process.pid), String(graceMs)], {
      stdio: ['pipe', 'ignore', 'inherit'],
      env: {...process.env, NODE_OPTIONS: ''},
    })
  } catch {
    return () => {} // no watchdog: Ctrl-C still works whenever the plugin's code yields
  }
  child.on('error', () => {})
  child.unref()
  ;(child.stdin as Socket | null)?.unref()
  return () => {
    child.kill('SIGKILL') // not SIGTERM: that is the watchdog's cue to end lmt
  }
}
