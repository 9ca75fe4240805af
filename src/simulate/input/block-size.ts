// Which block sizes a trace's rows allow. `lmt convert` keeps the ⌊input_len / block_size⌋ full-block keys of a
// get, so a get or request row with k ≥ 1 keys and input_len L was written with a block size b where
// ⌊L / b⌋ = k, that is L/(k+1) < b ≤ L/k: the integers ⌊L/(k+1)⌋ + 1 … ⌊L/k⌋. The rows of an instance give the
// intersection of their intervals. A row without keys says only b > L, and a source can drop keys, so it does not
// constrain; writes carry no input_len.

/** The block sizes every constraining row of one instance allows: lo … hi (lo > hi: none). */
export class BlockSizeFit {
  lo = 1
  hi = Number.POSITIVE_INFINITY
  /** rows that constrained (get/request rows with keys) */
  rows = 0
  /** the line that last raised lo, and the one that last lowered hi (0: none) */
  loLine = 0
  hiLine = 0
  /** the keys and input_len of those two rows (for messages) */
  loRow: [keys: number, inputLen: number] = [0, 0]
  hiRow: [keys: number, inputLen: number] = [0, 0]

  /** Intersects with the block sizes a row of `keys` full-block keys and `inputLen` tokens allows. */
  add(keys: number, inputLen: number, lineNo: number): void {
    if (keys < 1) return
    this.rows++
    const lo = Math.floor(inputLen / (keys + 1)) + 1
    const hi = Math.floor(inputLen / keys)
    if (lo > this.lo) {
      this.lo = lo
      this.loLine = lineNo
      this.loRow = [keys, inputLen]
    }
    if (hi < this.hi) {
      this.hi = hi
      this.hiLine = lineNo
      this.hiRow = [keys, inputLen]
    }
  }

  /** no row constrained the block size */
  get unchecked(): boolean {
    return this.rows === 0
  }

  /** some block size fits every row */
  get consistent(): boolean {
    return this.lo <= this.hi
  }

  fits(blockSize: number): boolean {
    return blockSize >= this.lo && blockSize <= this.hi
  }
}

/** The block sizes a single row allows (for messages); undefined when it does not constrain. */
export function rowBlockSizes(keys: number, inputLen: number): [number, number] | undefined {
  if (keys < 1) return undefined
  return [Math.floor(inputLen / (keys + 1)) + 1, Math.floor(inputLen / keys)]
}

/**
 * The block size inferred from a consistent fit: the one fitting size with the most factors of two (the larger on
 * a tie). Real block sizes are round numbers (16 … 512, powers of two), so a 483–519 fit gives 512, 400–1100 gives
 * 1024, 97–103 gives 100.
 */
export function chooseBlockSize(fit: BlockSizeFit): number {
  for (let t = 52; t > 0; t--) {
    const m = 2 ** t
    const c = Math.floor(fit.hi / m) * m
    if (c >= fit.lo) return c
  }
  return fit.hi
}

/** "512" or "483–519" (the sizes a fit allows). */
export function rangeText(lo: number, hi: number): string {
  return lo === hi ? String(lo) : `${lo}–${hi}`
}

/** How a fit is described in messages: the inferred size and why. */
export function fitDescription(fit: BlockSizeFit): string {
  if (fit.unchecked) return 'no row constrains the block size'
  if (!fit.consistent)
    return `its rows fit no single block size (lines ${fit.loLine} and ${fit.hiLine} disagree)`
  if (fit.lo === fit.hi) return `its ${fit.rows} rows fit block size ${fit.lo} only`
  return `its ${fit.rows} rows fit block sizes ${rangeText(fit.lo, fit.hi)}, of which lmt picks ${chooseBlockSize(fit)} (the one with the most factors of two)`
}
