import {LctError} from '../errors.js'

/** The `--json` error document of the trace commands: the full LMT_LCT_… code and the byte offset (and the hint). */
export function lctErrorJson<T extends {error: {hint?: string}}>(
  err: unknown,
  fallback: T,
): T | {error: {code: string; message: string; offset: number; exitCode: number; hint?: string}} {
  if (err instanceof LctError) {
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
  return fallback
}
