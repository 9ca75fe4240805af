import type {FormatSample} from 'lmt'
import {hashIdFormat, QwenBailianConverter} from './qwen-bailian.js'

/**
 * Mooncake FAST'25 traces: the Qwen-Bailian row shape with `timestamp` in integer milliseconds and 512-token
 * blocks (the block size Mooncake's `hash_ids` were computed with).
 */
export class MooncakeConverter extends QwenBailianConverter {
  static override description = "Mooncake FAST'25 traces (timestamp in ms, 512-token blocks)"

  static override looksLike(sample: FormatSample): boolean {
    return hashIdFormat(sample) === 'mooncake'
  }

  override defaultBlockSize = 512
  protected override timestampIntScale = 1_000_000n
  protected override timestampFloatScale = 1e6
}
