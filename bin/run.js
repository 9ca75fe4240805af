#!/usr/bin/env node
import {Config, Errors, flush, handle, run, settings} from '@oclif/core'

// a standard output or error that fails (full, closed early) ends every command, oclif's own too, with lmt's coded
// error or quietly, never a stack trace (after oclif's module load, which installs a listener that rethrows)
const {guardStandardStreams} = await import('../dist/src/cli/stdout-guard.js')
guardStandardStreams()

// plugins are plain JavaScript (lmt compiles TypeScript converter modules itself)
settings.enableAutoTranspile = false

// a Ctrl-C after a command's outputs are in place, while it ends, no longer kills it with the default action
const {letLateSignalsPass} = await import('../dist/src/cli/interrupts.js')
letLateSignalsPass()

try {
  const config = await Config.load(import.meta.url)
  // no installed plugin's hook runs from outside its package (init hooks run on every command)
  const {confineHooks} = await import('../dist/src/plugins/plugin-package.js')
  for (const warning of confineHooks(config)) process.stderr.write(`warning: ${warning}\n`)
  await run(process.argv.slice(2), config)
  // as oclif's execute(): not awaited (stdout closed early never drains; awaiting would hang the exit)
  flush().catch(() => {})
} catch (err) {
  // errors that no lmt command rendered (an unknown command, oclif's own commands): lmt's one error style
  if (!(err instanceof Errors.ExitError) && err && !err.skipOclifErrorHandling) {
    const {errorLines} = await import('../dist/src/cli/render-error.js')
    process.stderr.write(errorLines(err).join('\n') + '\n')
    err.skipOclifErrorHandling = true
    // lmt's coded errors carry their exit code (a usage error: 2) where oclif looks for it
    if (typeof err.exitCode === 'number' && err.oclif?.exit === undefined) err.oclif = {exit: err.exitCode}
  }
  await handle(err) // exits with the error's code
}
