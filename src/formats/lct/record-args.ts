// A record's codec-decoded arguments: one way to them, whichever reader produced the record (docs/lct.md §4.4).
import {decodeArgsInPlace, type DecodedArgs} from './codecs.js'
import type {LctRecord} from './types.js'

/**
 * Set on a record once its `args` are codec-decoded, so that {@link recordArgs} returns them as they are instead of
 * walking them again. Internal to the reader and recordArgs, not part of the record contract.
 */
export const ARGS_DECODED: unique symbol = Symbol('lct.argsDecoded')

/** A record as the readers build it: with the mark. */
export type MarkedRecord = LctRecord & {[ARGS_DECODED]?: boolean}

/**
 * The record's arguments, codec-decoded (docs/lct.md §5.1), the same whichever reader ran. Decodes in place, as
 * for a record the caller owns (every reader's record is its caller's alone): afterwards the record's `args` are
 * the decoded values and another call returns them again. To keep the raw values, `decodeArgs(record.args)` copies.
 */
export function recordArgs(r: LctRecord): DecodedArgs {
  const m = r as MarkedRecord
  if (m[ARGS_DECODED] === true) return r.args as DecodedArgs
  const args = decodeArgsInPlace(r.args)
  m[ARGS_DECODED] = true
  return args
}
