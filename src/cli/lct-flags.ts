import {integerFlag} from '../util/number-flags.js'
import {lmtError} from '../errors.js'
import {DEFAULT_MAX_FRAME_BYTES, MAX_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES} from '../formats/lct/constants.js'

/** `--max-frame-bytes`, shared by every command that reads an .lct trace (docs/lct.md §4: the frame-length limit). */
export const maxFrameBytesFlag = integerFlag({
  summary: `Largest frame body read (bytes, ${MIN_MAX_FRAME_BYTES} to ${MAX_MAX_FRAME_BYTES}); larger record frames are skipped with a warning.`,
  default: DEFAULT_MAX_FRAME_BYTES,
  min: MIN_MAX_FRAME_BYTES,
})

/**
 * The `--max-frame-bytes` value, checked against the upper bound too: a frame that large would be buffered whole,
 * and past the bound the reader cannot allocate it (Node's range error instead of a coded one).
 */
export function checkMaxFrameBytes(value: number): number {
  if (Number.isInteger(value) && value >= MIN_MAX_FRAME_BYTES && value <= MAX_MAX_FRAME_BYTES) return value
  throw lmtError(
    'CLI_OUT_OF_RANGE',
    '--max-frame-bytes',
    `an integer from ${MIN_MAX_FRAME_BYTES} to ${MAX_MAX_FRAME_BYTES} (1 GiB)`,
    value,
    {suggestions: [`the default, ${DEFAULT_MAX_FRAME_BYTES} (64 MiB), reads every trace LMCache writes`]},
  )
}
