import {spawn} from 'node:child_process'
import type {Socket} from 'node:net'

// Signal handlers run on the main thread's event loop: while plugin code loops without yielding, lmt's Ctrl-C
// handler never runs. Ctrl-C at a terminal signals the whole foreground process group, so a small watchdog process
// in lmt's group hears it too: if lmt is still there after the grace period (or at a second Ctrl-C), the watchdog
// kills it. The temporary files of that run are then removed by the next conversion into the same folder. The
// watchdog polls once a second and ends when lmt has gone. Where there is no /bin/sh (Windows) there is no watchdog.

/** How long lmt has to answer Ctrl-C itself before the watchdog ends it. */
export const WATCHDOG_GRACE_MS = 2000

// POSIX sh, not a second Node: it listens within milliseconds and costs ~1 MB. `wait` returns as soon as a trapped
// signal arrives; after the first one the loop counts 0.2 s ticks of grace.
const SCRIPT = `
lmt=$1 ticks=$2 n=0 hits=0
trap 'hits=$((hits + 1))' INT TERM
echo ready
while kill -0 $lmt 2>/dev/null; do
  if [ $hits -ge 2 ] || { [ $hits -ge 1 ] && [ $n -ge $ticks ]; }; then
    echo "error: lmt did not answer the interrupt (plugin code that never yields?); it was killed. Its temporary files are removed by the next conversion into the same folder." >&2
    kill -9 $lmt
    exit 0
  fi
  if [ $hits -ge 1 ]; then n=$((n + 1)); sleep 0.2 & wait $!; else sleep 1 & wait $!; fi
done
`

export interface Watchdog {
  /** Settles once the watchdog listens for signals (or could not start): await it before running plugin code. */
  ready: Promise<void>
  stop(): void
}

/** How long {@link Watchdog.ready} waits for a watchdog that does not report. */
const READY_WAIT_MS = 3000

/** Starts the watchdog for this process; it never keeps lmt alive. */
export function startInterruptWatchdog(graceMs = WATCHDOG_GRACE_MS): Watchdog {
  let child: ReturnType<typeof spawn>
  try {
    child = spawn(
      '/bin/sh',
      ['-c', SCRIPT, 'lmt-watchdog', String(process.pid), String(Math.ceil(graceMs / 200))],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
  } catch {
    return {ready: Promise.resolve(), stop: () => {}} // no watchdog: Ctrl-C works whenever plugin code yields
  }
  child.unref()
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
