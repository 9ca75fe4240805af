import {LctError} from '../errors.js'
import {LmtCommand} from './lmt-command.js'

/**
 * A command that reads an .lct trace: its `--json` error document of a trace error gives the full LMT_LCT_… code and
 * the byte offset (and the hint).
 */
export abstract class LctCommand extends LmtCommand {
  protected override toErrorJson(err: unknown) {
    const fallback = super.toErrorJson(err)
    if (!(err instanceof LctError)) return fallback
    const hint = fallback.error.hint
    return {
      error: {
        code: err.code,
        message: err.message,
        offset: err.offset,
        exitCode: err.exitCode,
        ...(hint === undefined ? {} : {hint}),
      },
    }
  }
}
