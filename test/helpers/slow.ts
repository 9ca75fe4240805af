// The long campaigns of the suite (fuzz loops, large inputs, the timing families of signal tests) run in
// `npm run test:all`, which CI runs; `npm test` skips them (listed as skipped) and stays within a few minutes.
import {it} from 'vitest'

/** Set by `npm run test:all` (LMT_TEST_ALL=1). */
export const ALL_TESTS = process.env.LMT_TEST_ALL === '1'

/** `it` for a long campaign: runs under `npm run test:all`, skipped by `npm test`. */
export const itSlow: typeof it.skip = it.skipIf(!ALL_TESTS)
