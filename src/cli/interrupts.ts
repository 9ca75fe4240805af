// SIGINT/SIGTERM for commands that write files: clean up synchronously, report, exit 130 / 143.

/** the signal handlers of the jobs that are live, innermost last */
const jobs: Array<(signal: NodeJS.Signals) => void> = []
/** performance.now() when the last job finished */
let lastFinish = Number.NEGATIVE_INFINITY
/**
 * A signal this soon after a job finished is let pass: the job's outputs are in place and the command is ending
 * with its own status. (Without it, a signal between the outputs' commit and the exit would kill the process with
 * the default action: a status that says neither "done" nor "interrupted".)
 */
const LATE_MS = 2000
let installed = false
/** set by bin/run.js: only a CLI process ends right after its job (an embedding process keeps Node's defaults) */
let latePass = false

/** In a CLI process: a signal just after a job finished is let pass (see LATE_MS). */
export function letLateSignalsPass(): void {
  latePass = true
}

function dispatch(signal: NodeJS.Signals): void {
  const job = jobs[jobs.length - 1]
  if (job) return job(signal)
  if (latePass && performance.now() - lastFinish < LATE_MS) return
  // no lmt job: the signal's usual meaning
  uninstall()
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

function install(): void {
  if (installed) return
  installed = true
  process.on('SIGINT', dispatch)
  process.on('SIGTERM', dispatch)
}

function uninstall(): void {
  installed = false
  process.removeListener('SIGINT', dispatch)
  process.removeListener('SIGTERM', dispatch)
}

/**
 * Installs the handler; returns the function that ends it. `cleanup` runs once, before the report; the error is
 * printed as `{"error": …}` on stdout with `json`, else as an `error:` line on stderr; then the process exits with
 * 130 (SIGINT) or 143 (SIGTERM). One listener per signal serves every job of the process.
 */
export function handleInterrupts(opts: {json: boolean; cleanup: () => void}): () => void {
  let interrupted = false
  const job = (signal: NodeJS.Signals): void => {
    // a second Ctrl-C during the clean-up must not fall back to the default (kill) action: it is ignored
    if (interrupted) return
    interrupted = true
    opts.cleanup()
    const exit = signal === 'SIGINT' ? 130 : 143
    if (opts.json)
      process.stdout.write(
        JSON.stringify({
          error: {code: 'LMT_CLI_INTERRUPTED', message: `interrupted by ${signal}`, exitCode: exit},
        }) + '\n',
      )
    else process.stderr.write(`error: interrupted by ${signal}\n`)
    process.exit(exit)
  }
  jobs.push(job)
  install()
  return () => {
    const i = jobs.lastIndexOf(job)
    if (i >= 0) jobs.splice(i, 1)
    lastFinish = performance.now()
    if (jobs.length === 0 && !latePass) uninstall()
  }
}
