// Tokens per block of each instance: given (a flag, the configuration) or inferred from the trace, then checked.
// Every caller asks `blockSizesFor`, so the rule lives in one place (simulate has the same question).
import type {TraceRow} from '../simulate/trace-rows.js'

export interface BlockSizeChoice {
  blockSize: number
  /** where it came from */
  source: 'flag' | 'config' | 'inferred' | 'default'
  /** why, when it was inferred or defaulted */
  reason?: string
}

/** The smallest and largest block size that give every get its key count (keys = ⌊input_len / B⌋). */
interface Bounds {
  lo: number
  hi: number
  /** the largest B that passes the partial-tail rule (keys ≤ ⌊input_len / B⌋) */
  tailMax: number
  withKeys: number
}

function boundsOf(rows: readonly TraceRow[], instance: string): Bounds {
  const b: Bounds = {lo: 1, hi: Infinity, tailMax: Infinity, withKeys: 0}
  for (const r of rows) {
    if (r.instance !== instance || r.type === 'write') continue
    const k = r.keys.length
    if (k === 0) {
      b.lo = Math.max(b.lo, r.inputLen + 1) // ⌊L / B⌋ = 0 ⇔ B > L
      continue
    }
    b.withKeys++
    b.hi = Math.min(b.hi, Math.floor(r.inputLen / k))
    b.lo = Math.max(b.lo, Math.floor(r.inputLen / (k + 1)) + 1)
  }
  b.tailMax = b.hi
  return b
}

/** The nicest block size in [lo, hi]: a power of two, else a multiple of 16, else hi. */
function nicest(lo: number, hi: number): number {
  for (let p = 2 ** Math.floor(Math.log2(hi)); p >= lo && p >= 1; p /= 2) if (p >= lo && p <= hi) return p
  const m16 = Math.floor(hi / 16) * 16
  return m16 >= lo && m16 > 0 ? m16 : hi
}

/**
 * The block size of one instance: the flag's, else the configuration's, else inferred from its gets (the block
 * size for which every get's key count is ⌊input_len / block_size⌋, as converters write them). The replay checks it
 * afterwards exactly as simulate does (a key beyond ⌊input_len / block_size⌋ is LMT_SIM_PARTIAL_TAIL).
 */
export function blockSizesFor(
  rows: readonly TraceRow[],
  instance: string,
  given: {flag?: number; config?: number},
): BlockSizeChoice {
  if (given.flag !== undefined) return {blockSize: given.flag, source: 'flag'}
  if (given.config !== undefined) return {blockSize: given.config, source: 'config'}
  const b = boundsOf(rows, instance)
  if (b.withKeys === 0)
    return {blockSize: 16, source: 'default', reason: 'no get of the instance has keys; 16 assumed'}
  if (b.lo <= b.hi)
    return {
      blockSize: nicest(b.lo, b.hi),
      source: 'inferred',
      reason: `every get has ⌊input_len / B⌋ keys for B in [${b.lo}, ${b.hi}]`,
    }
  // no evidence of the converter's block size: simulate's default when the keys allow it
  const fallback = Math.min(16, Math.max(1, b.tailMax))
  return {
    blockSize: fallback,
    source: 'default',
    reason: `no block size gives every get ⌊input_len / B⌋ keys; ${fallback} assumed (any B ≤ ${b.tailMax} has no partial tail block): pass --block-size`,
  }
}
