// Standard output that fails: a reader that left early (EPIPE: `lmt trace dump x.lct | head -1`) ends the command
// quietly with exit 0, as the output it wanted was written; any other failure (a full disk: ENOSPC) is the coded
// CLI_STDOUT_FAILED on stderr with exit 1, never a stack trace. Write errors on process.stdout arrive as 'error' events,
// for files and pipes alike; oclif's own listener rethrows them (a stack trace), so this one replaces it.
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

/** Installs the handler of standard-output failures (once per process). */
export function guardStdout(): void {
  if (installed) return
  installed = true
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', onStdoutError)
}
