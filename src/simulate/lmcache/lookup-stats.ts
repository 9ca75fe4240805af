// The seven statistics of LMCache's cache simulator, kept in memory that grows with the distinct values and keys
// rather than with every sample: histograms give the nearest-rank percentiles exactly. The rolling hit rate (Stat 4)
// keeps one number per lookup, since its sample points depend on the final count.

/** Python's `sum()` of floats (3.12+: Neumaier's compensated summation), kept as a running total. */
export class FloatSum {
  private f = 0
  private c = 0

  add(x: number): void {
    const t = this.f + x
    if (Math.abs(this.f) >= Math.abs(x)) this.c += this.f - t + x
    else this.c += x - t + this.f
    this.f = t
  }

  get value(): number {
    return Number.isFinite(this.c) && this.c !== 0 ? this.f + this.c : this.f
  }
}

/** Sample counts by value: count, sum, max and nearest-rank percentiles as of a sorted list of the samples. */
export class Histogram {
  readonly counts = new Map<number, number>()
  n = 0
  /** exact for integer samples below 2^53 in total */
  sum = 0
  max = -Infinity

  add(v: number, times = 1): void {
    this.counts.set(v, (this.counts.get(v) ?? 0) + times)
    this.n += times
    this.sum += v * times
    if (v > this.max) this.max = v
  }

  /** `{p25: …}` as LMCache computes them: the sample at 1-based rank clamp(⌊(p·n + 99) / 100⌋, 1, n). */
  percentiles(ps: readonly number[]): Record<string, number> {
    const out: Record<string, number> = {}
    if (this.n === 0) return out
    const values = [...this.counts.keys()].sort((a, b) => a - b)
    for (const p of ps) {
      const rank = Math.min(Math.max(Math.floor((p * this.n + 99) / 100), 1), this.n)
      let seen = 0
      for (const v of values) {
        seen += this.counts.get(v) as number
        if (seen >= rank) {
          out[`p${p}`] = v
          break
        }
      }
    }
    return out
  }
}

export const PERCENTILES = [25, 50, 75, 90, 99] as const

/** The per-lookup and per-chunk samples of one replay. */
export class LookupStats {
  /** Stat 1: hit tokens / seq_len per lookup */
  readonly rates = new Histogram()
  readonly rateSum = new FloatSum()
  zeroHit = 0
  fullHit = 0
  /** Stat 2: hit prefix length (chunks) per lookup */
  readonly prefixes = new Histogram()
  /** Stat 3: times each chunk key was in a hit prefix */
  readonly reuse = new Map<number, number>()
  /** Stat 4: cumulative token hit rate after each lookup */
  private rolling = new Float64Array(1024)
  lookups = 0
  /** Stat 6: chunks between a hit chunk and the key's previous occurrence */
  readonly spans = new Histogram()
  /** Stat 7: LRU rank of each hit chunk before the lookup's update */
  readonly positions = new Histogram()
  /** the global chunk counter and, per key id, the counter value at its last occurrence (−1: never seen) */
  chunkIndex = 0
  private lastSeen = new Float64Array(1024).fill(-1)

  lookupDone(
    hitTokens: number,
    seqLen: number,
    hitPrefix: number,
    totalHit: number,
    totalTokens: number,
  ): void {
    const rate = seqLen > 0 ? hitTokens / seqLen : 0
    this.rates.add(rate)
    this.rateSum.add(rate)
    if (rate === 0) this.zeroHit++
    if (rate === 1) this.fullHit++
    this.prefixes.add(hitPrefix)
    if (this.lookups === this.rolling.length) {
      const r = new Float64Array(this.rolling.length * 2)
      r.set(this.rolling)
      this.rolling = r
    }
    this.rolling[this.lookups++] = totalTokens > 0 ? totalHit / totalTokens : 0
  }

  /** A chunk of the hit prefix at position i of its lookup. */
  hitChunk(key: number, i: number, rank: number): void {
    this.reuse.set(key, (this.reuse.get(key) ?? 0) + 1)
    const last = key < this.lastSeen.length ? this.lastSeen[key] : -1
    if (last >= 0) this.spans.add(this.chunkIndex + i - last)
    this.positions.add(rank)
  }

  /** Every chunk of a lookup, at position i, as the cache update passes it. */
  seen(key: number, i: number): void {
    if (key >= this.lastSeen.length) {
      const s = new Float64Array(Math.max(key + 1, this.lastSeen.length * 2)).fill(-1)
      s.set(this.lastSeen)
      this.lastSeen = s
    }
    this.lastSeen[key] = this.chunkIndex + i
  }

  rollingAt(index: number): number {
    return this.rolling[index]
  }
}
