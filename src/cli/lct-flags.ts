import {Flags} from '@oclif/core'
import {DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES} from '../lct/constants.js'

/** `--max-frame-bytes`, shared by every command that reads an .lct trace (lct.md §4: the frame-length limit). */
export const maxFrameBytesFlag = Flags.integer({
  summary: 'Largest frame body read (bytes); larger record frames are skipped with a warning.',
  default: DEFAULT_MAX_FRAME_BYTES,
  min: MIN_MAX_FRAME_BYTES,
})
