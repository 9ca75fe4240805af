// A 53-bit hash of the first m keys of a list (their int64 words as 32-bit halves), kept with spilled keys so that a
// write rejects a spilled get whose prefix differs without reading the get's keys back from disk: logs where many
// pending gets share their first key (a common system prompt) would otherwise read one back per candidate.
const FNV_START = 0x811c9dc5
const MIX_START = 0x9747b28c
const NO_HALVES = new Uint32Array(0)

/** Two 32-bit multiplicative hashes over the words' 32-bit halves, combined into one exact double. */
const combine = (a: number, b: number): number => (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff)

/**
 * The hashes of every prefix of one list, computed as far as asked (one pass however many are asked for). One
 * object is reused from list to list ({@link reset}): a new one per write died young, and a full collection that
 * found none alive let its shape go and threw away the optimized code of the pairing that used it, compiled again
 * each time.
 */
export class PrefixHashes {
  private halves: Uint32Array = NO_HALVES
  private readonly hashes: number[] = []
  private a = FNV_START
  private b = MIX_START

  /** Starts over with the prefixes of the int64 words `words`. */
  reset(words: BigInt64Array): void {
    this.halves = new Uint32Array(words.buffer, words.byteOffset, 2 * words.length)
    this.a = FNV_START
    this.b = MIX_START
    this.hashes.length = 0
    this.hashes.push(combine(this.a, this.b))
  }

  /** Lets go of the list (its words may be a batch's slab). */
  release(): void {
    this.halves = NO_HALVES
    this.hashes.length = 0
  }

  /** The hash of the first `m` words (m ≤ the length of the list last reset to). */
  of(m: number): number {
    const h = this.halves
    for (let i = 2 * this.hashes.length - 2; i < 2 * m; i++) {
      this.a = Math.imul(this.a ^ h[i], 0x01000193)
      this.b = Math.imul(this.b ^ h[i], 0x5bd1e995) ^ (this.b >>> 15)
      if (i % 2 === 1) this.hashes.push(combine(this.a, this.b))
    }
    return this.hashes[m]
  }
}

const scratch = new PrefixHashes()

/** The hash of the first `m` words (m ≤ their number), as {@link PrefixHashes.of} gives it. */
export function prefixHash(words: BigInt64Array, m: number): number {
  scratch.reset(words)
  const h = scratch.of(m)
  scratch.release()
  return h
}
