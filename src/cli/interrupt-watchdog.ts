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
process.stdout.write('ready\\n')
`

export interface Watchdog {
  /** Settles once the watchdog listens for signals (or could not start): await it before running plugin code. */
  ready: Promise<void>
  stop(): void
}

/** How long {@link Watchdog.ready} waits for a watchdog that does not report. */
const READY_WAIT_MS = 3000

/**
 * Starts the watchdog for this process. It never keeps lmt alive, and it ends by itself when lmt does (its stdin
 * closes). Started early (it takes ~50 ms to listen, on another core), it is usually ready when plugin code runs.
 */
export function startInterruptWatchdog(graceMs = WATCHDOG_GRACE_MS): Watchdog {
  let child: ReturnType<typeof spawn>
  try {
    child = spawn(process.execPath, ['-e', SCRIPT, String(process.pid), String(graceMs)], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {...process.env, NODE_OPTIONS: ''},
    })
  } catch {
    return {ready: Promise.resolve(), stop: () => {}} // no watchdog: Ctrl-C works whenever plugin code yields
  }
  child.unref()
  ;(child.stdin as Socket | null)?.unref()
  const stdout = child.stdout as Socket
  stdout.unref()
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_WAIT_MS)
    const done = (): void => {
      clearTimeout(timer)
      resolve()
    }
    stdout.once('data', done)
    child.once('error', done)
    child.once('exit', done)
  })
  return {
    ready,
    stop: () => {
      child.kill('SIGKILL') // not SIGTERM: that is the watchdog's cue to end lmt
    },
  }
}
