import {Command, Errors} from '@oclif/core'
import {isLmtError} from '../errors.js'
import {errorLines, errorMessage} from './render-error.js'

type AnyError = Error & {oclif?: {exit?: number}; exitCode?: number; suggestions?: readonly string[]}

/** The `--json` error code of an error (catalogue kind, `USAGE` for oclif's parse errors). */
function errorCode(err: AnyError): string {
  if (isLmtError(err)) return err.kind
  if (err.oclif?.exit === 2) return 'USAGE'
  return 'INTERNAL'
}

export function exitCodeOf(err: AnyError): number {
  if (isLmtError(err)) return err.exitCode
  return err.oclif?.exit ?? (typeof err.exitCode === 'number' ? err.exitCode : 1)
}

/**
 * Base of lmt's commands: errors are rendered as `error: <message>` (plus `hint:` lines) on stderr, or as
 * `{"error": {"code", "message", "exitCode"}}` on stdout under `--json`, and the process exits with the error's code.
 */
export abstract class LmtCommand extends Command {
  /** When the command started (performance.now()): elapsed times printed are measured from here. */
  protected readonly startedAt = performance.now()

  protected override toErrorJson(err: unknown): {error: {code: string; message: string; exitCode: number}} {
    const e = err as AnyError
    return {error: {code: errorCode(e), message: errorMessage(e), exitCode: exitCodeOf(e)}}
  }

  protected override async catch(err: AnyError): Promise<void> {
    if (err instanceof Errors.ExitError) throw err
    const exit = exitCodeOf(err)
    if (this.jsonEnabled()) this.logJson(this.toErrorJson(err))
    else process.stderr.write(errorLines(err, this.id).join('\n') + '\n')
    // already reported: exit quietly with the error's code
    throw new Errors.ExitError(exit)
  }
}
