// SIGINT/SIGTERM for commands that write files: clean up synchronously, report, exit 130 / 143.

/**
 * Installs the handler; returns the function that removes it. `cleanup` runs once, before the report; the error is
 * printed as `{"error": …}` on stdout with `json`, else as an `error:` line on stderr; then `exit` ends the process
 * (the command's own call).
 */
export function handleInterrupts(opts: {
  json: boolean
  cleanup: () => void
  exit: (code: number) => void
}): () => void {
  let interrupted = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return
    interrupted = true
    opts.cleanup()
    const exit = signal === 'SIGINT' ? 130 : 143
    if (opts.json)
      process.stdout.write(
        JSON.stringify({error: {code: 'INTERRUPTED', message: `interrupted by ${signal}`, exitCode: exit}}) +
          '\n',
      )
    else process.stderr.write(`error: interrupted by ${signal}\n`)
    opts.exit(exit)
  }
  // `on`, not `once`: a second Ctrl-C during the clean-up must not fall back to the default (kill) action
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return () => {
    process.removeListener('SIGINT', onSignal)
    process.removeListener('SIGTERM', onSignal)
  }
}
