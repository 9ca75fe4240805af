import {Command, Errors} from '@oclif/core'
import {isLmtError} from '../errors.js'
import {errorHints, errorLines, errorMessage, oclifExit, own} from './render-error.js'
import {drainStdout, guardStandardStreams} from './stdout-guard.js'

type AnyError = Error & {oclif?: {exit?: number}; exitCode?: number; suggestions?: readonly string[]}

/** The `--json` error code of an error: its catalogue code (`LMT_<AREA>_<CONDITION>`), the same in every command. */
function errorCode(err: AnyError): string {
  if (isLmtError(err)) return err.code
  if (oclifExit(err) === 2) return 'LMT_CLI_USAGE'
  return 'LMT_CLI_INTERNAL'
}

function exitCodeOf(err: AnyError): number {
  if (isLmtError(err)) return err.exitCode
  const exitCode = own(err, 'exitCode')
  // an exit code of 0 would report a failure as a success
  const code = oclifExit(err) ?? (typeof exitCode === 'number' ? exitCode : 1)
  return code === 0 ? 1 : code
}

/**
 * Base of lmt's commands: errors are rendered as `error: <message>` (plus `hint:` lines) on stderr, or as
 * `{"error": {"code", "message", "exitCode", "hint"}}` on stdout under `--json`, and the process exits with the error's code.
 */
export abstract class LmtCommand extends Command {
  /** When the command started (performance.now()): elapsed times printed are measured from here. */
  protected readonly startedAt = performance.now()

  protected override async init(): Promise<void> {
    await super.init()
    guardStandardStreams()
  }

  protected override toErrorJson(err: unknown): {
    error: {code: string; message: string; exitCode: number; hint?: string}
  } {
    const e = err as AnyError
    // the hint lines of the text form, one per line, when there are any
    const hints = errorHints(e, this.id)
    return {
      error: {
        code: errorCode(e),
        message: errorMessage(e),
        exitCode: exitCodeOf(e),
        ...(hints.length > 0 ? {hint: hints.join('\n')} : {}),
      },
    }
  }

  protected override async catch(err: AnyError): Promise<void> {
    if (err instanceof Errors.ExitError) throw err
    const exit = exitCodeOf(err)
    if (this.jsonEnabled()) {
      this.logJson(this.toErrorJson(err))
      // written whole before the exit that follows (a pipe's asynchronous write would be cut at 64 KiB)
      await drainStdout()
    } else process.stderr.write(errorLines(err, this.id).join('\n') + '\n')
    // already reported: exit quietly with the error's code
    throw new Errors.ExitError(exit)
  }
}
