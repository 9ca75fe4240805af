// Standard output that fails: a reader that left early (EPIPE: `lmt trace dump x.lct | head -1`) ends the command
// quietly with exit 0, as the output it wanted was written; any other failure (a full disk: ENOSPC) is the coded
// CLI_STDOUT_FAILED on stderr with exit 1, never a stack trace. Write errors on process.stdout arrive as 'error' events,
// for files and pipes alike; oclif's own listener rethrows them (a stack trace), so this one replaces it.
// Standard error that fails (a reader that left early: `lmt convert … 2>&1 | head -c 1`; a full disk) has nobody left
// to tell: its lines are dropped and the command goes on, its outputs and exit code as they would have been.
import {lmtError} from '../errors.js'
import {describeFsError} from '../util/output-path.js'

let installed = false

function onStdoutError(err: NodeJS.ErrnoException): void {
  // a command with its own listener goes on without its reader (replay --verbose: the files still matter)
  if (err.code === 'EPIPE') {
    if (process.stdout.listenerCount('error') > 1) return
    process.exit(0)
  }
  const e = lmtError('CLI_STDOUT_FAILED', describeFsError(err), {
    suggestions: [
      'redirect standard output to a file on a disk with free space, or to a pipe that reads it all',
    ],
  })
  process.stderr.write(`error: ${e.message}\n${e.suggestions.map((s) => `hint: ${s}\n`).join('')}`)
  process.exit(e.exitCode)
}

/**
 * Installs the handlers of standard-output and standard-error failures, once per process: for every command, lmt's
 * own and oclif's (help, version, plugins). What cannot be written to standard error is dropped.
 */
export function guardStandardStreams(): void {
  if (installed) return
  installed = true
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', onStdoutError)
  process.stderr.on('error', () => {})
}

/** How long an exit waits for standard output to take what was written (a reader that stopped reading). */
const DRAIN_MS = 10_000

/**
 * Resolves once what was written to standard output has been handed over (a pipe's writes are asynchronous: an
 * exit right after would cut a long document at the pipe's 64 KiB), or after {@link DRAIN_MS} when nobody reads.
 */
export function drainStdout(): Promise<void> {
  if (process.stdout.writableLength === 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      process.stdout.off('drain', done)
      process.stdout.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, DRAIN_MS)
    timer.unref()
    process.stdout.once('drain', done)
    process.stdout.once('close', done)
  })
}
