import {LctError} from '../errors.js'

/** The `--json` error document of the trace commands: the full LMT_LCT_… code and the byte offset. */
export function lctErrorJson<T extends {error: object}>(
  err: unknown,
  fallback: T,
): T | {error: {code: string; message: string; offset: number; exitCode: number}} {
  if (err instanceof LctError)
    return {error: {code: err.code, message: err.message, offset: err.offset, exitCode: err.exitCode}}
  return fallback
}
