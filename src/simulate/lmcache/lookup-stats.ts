// The seven statistics of LMCache's cache simulator, kept in memory that does not grow with the log's length:
// histograms of the distinct values give the nearest-rank percentiles exactly (per-lookup hit rates are ratios of
// token counts, prefixes and cache positions are bounded by the lookup and the capacity, spans by the distance
// between a chunk's occurrences), per-key counts live in arrays indexed by key id, and the rolling hit rate after
// every lookup (whose sample points depend on the final count) goes to a scratch file once a buffer fills.
import {closeSync, openSync, readSync, unlinkSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {grown} from '../../util/grown.js'
import {removeStaleEntries} from '../../util/stale-entries.js'

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

/** Values below this that are whole numbers ≥ 0 are counted in an array indexed by the value (no hashing). */
const DENSE_LIMIT = 1 << 20

/**
 * Sample counts by value: count, sum, max and nearest-rank percentiles as of a sorted list of the samples. Small
 * whole numbers (prefix lengths, cache positions, spans, reuse counts) are counted in a growing array, other values
 * (the per-lookup hit rates) in a map.
 */
export class Histogram {
  private dense = new Float64Array(64)
  private readonly sparse = new Map<number, number>()
  n = 0
  /** exact for integer samples below 2^53 in total */
  sum = 0
  max = -Infinity

  add(v: number, times = 1): void {
    if (v >= 0 && v < DENSE_LIMIT && Number.isInteger(v)) {
      if (v >= this.dense.length)
        this.dense = grown(this.dense, Math.min(DENSE_LIMIT, Math.max(v + 1, this.dense.length * 2)))
      this.dense[v] += times
    } else this.sparse.set(v, (this.sparse.get(v) ?? 0) + times)
    this.n += times
    this.sum += v * times
    if (v > this.max) this.max = v
  }

  /** The distinct values and their counts, ascending. */
  entries(): Array<[value: number, count: number]> {
    const out: Array<[number, number]> = [...this.sparse]
    for (let v = 0; v < this.dense.length; v++) if (this.dense[v] > 0) out.push([v, this.dense[v]])
    return out.sort((a, b) => a[0] - b[0])
  }

  /** `{p25: …}` as LMCache computes them: the sample at 1-based rank clamp(⌊(p·n + 99) / 100⌋, 1, n). */
  percentiles(ps: readonly number[]): Record<string, number> {
    const out: Record<string, number> = {}
    if (this.n === 0) return out
    const entries = this.entries()
    for (const p of ps) {
      const rank = Math.min(Math.max(Math.floor((p * this.n + 99) / 100), 1), this.n)
      let seen = 0
      for (const [v, count] of entries) {
        seen += count
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

/** The fractions of the lookups after which LMCache prints the cumulative hit rate (Stat 4). */
export const ROLLING_FRACTIONS = [0.1, 0.25, 0.5, 0.75, 1.0] as const

const SCRATCH = /^lmt-lookup-rolling-(\d+)-[0-9a-z]+\.f64$/

/**
 * A series of numbers appended one at a time and read back at a few indices once complete: the newest
 * `bufferLength` in memory, older ones in a scratch file of the temporary folder (8 bytes each), unlinked as soon as
 * it is open where the system allows (else removed by `close`, or by a later run when this process was killed).
 */
export class SpilledSeries {
  private buf: Float64Array<ArrayBuffer>
  private inBuf = 0
  length = 0
  private fd: number | undefined
  private path: string | undefined

  constructor(private readonly bufferLength = 1 << 16) {
    this.buf = new Float64Array(Math.min(bufferLength, 1024))
  }

  push(x: number): void {
    if (this.inBuf === this.buf.length) {
      if (this.buf.length < this.bufferLength)
        this.buf = grown(this.buf, Math.min(this.bufferLength, this.buf.length * 2))
      else this.spill()
    }
    this.buf[this.inBuf++] = x
    this.length++
  }

  at(index: number): number {
    const spilled = this.length - this.inBuf
    if (index >= spilled) return this.buf[index - spilled]
    const one = new Float64Array(1)
    readSync(this.fd as number, new Uint8Array(one.buffer), 0, 8, index * 8)
    return one[0]
  }

  /** Closes and removes the scratch file (the buffered values stay readable). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    if (this.path !== undefined) unlinkSync(this.path)
    this.path = undefined
  }

  private spill(): void {
    if (this.fd === undefined) {
      const dir = tmpdir()
      removeStaleEntries(dir, {files: SCRATCH})
      const path = join(
        dir,
        `lmt-lookup-rolling-${process.pid}-${Math.random().toString(36).slice(2, 10)}.f64`,
      )
      this.fd = openSync(path, 'wx+', 0o600)
      try {
        unlinkSync(path) // the open descriptor keeps the data; nothing is left behind, even if killed
      } catch {
        this.path = path
      }
    }
    const bytes = new Uint8Array(this.buf.buffer, 0, this.inBuf * 8)
    for (let off = 0; off < bytes.length;) off += writeSync(this.fd, bytes, off, bytes.length - off)
    this.inBuf = 0
  }
}

/** The per-lookup and per-chunk samples of one replay. */
export class LookupStats {
  /** Stat 1: hit tokens / seq_len per lookup */
  readonly rates = new Histogram()
  readonly rateSum = new FloatSum()
  zeroHit = 0
  fullHit = 0
  /** Stat 2: hit prefix length (chunks) per lookup */
  readonly prefixes = new Histogram()
  /** Stat 3: times each chunk key (by id) was in a hit prefix, and how many keys were at least once */
  private reuseCounts = new Int32Array(1024)
  reusedKeys = 0
  /** Stat 4: cumulative token hit rate after each lookup */
  private readonly rolling: SpilledSeries
  private rollingFinal: Array<{after: number; rate: number}> | undefined
  /** Stat 6: chunks between a hit chunk and the key's previous occurrence */
  readonly spans = new Histogram()
  /** Stat 7: LRU rank of each hit chunk before the lookup's update */
  readonly positions = new Histogram()
  /** the global chunk counter and, per key id, the counter value at its last occurrence (−1: never seen) */
  chunkIndex = 0
  private lastSeen = new Float64Array(1024).fill(-1)

  constructor(rollingBuffer?: number) {
    this.rolling = new SpilledSeries(rollingBuffer)
  }

  get lookups(): number {
    return this.rolling.length
  }

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
    this.rolling.push(totalTokens > 0 ? totalHit / totalTokens : 0)
  }

  /** A chunk of the hit prefix at position i of its lookup. */
  hitChunk(key: number, i: number, rank: number): void {
    if (key >= this.reuseCounts.length)
      this.reuseCounts = grown(this.reuseCounts, Math.max(key + 1, this.reuseCounts.length * 2))
    if (this.reuseCounts[key]++ === 0) this.reusedKeys++
    const last = key < this.lastSeen.length ? this.lastSeen[key] : -1
    if (last >= 0) this.spans.add(this.chunkIndex + i - last)
    this.positions.add(rank)
  }

  /** Every chunk of a lookup, at position i, as the cache update passes it. */
  seen(key: number, i: number): void {
    if (key >= this.lastSeen.length) {
      const used = this.lastSeen.length
      this.lastSeen = grown(this.lastSeen, Math.max(key + 1, used * 2)).fill(-1, used)
    }
    this.lastSeen[key] = this.chunkIndex + i
  }

  /** Stat 3: the reuse counts of the keys hit at least once, as a histogram (empty when none was). */
  reuse(): Histogram {
    const h = new Histogram()
    for (const c of this.reuseCounts) if (c > 0) h.add(c)
    return h
  }

  /**
   * Stat 4, once the replay is over: the cumulative hit rate after request `after` (1-based) for each of LMCache's
   * fractions (`idx = max(0, min(int(n·f) − 1, n − 1))`). With few lookups two fractions can fall on one request
   * (n = 6: 0.1 and 0.25 both on request 1), and LMCache prints that line twice: so does lmt.
   */
  rollingPoints(): Array<{after: number; rate: number}> {
    if (this.rollingFinal) return this.rollingFinal
    const n = this.lookups
    const out: Array<{after: number; rate: number}> = []
    if (n > 0)
      for (const f of ROLLING_FRACTIONS) {
        const idx = Math.max(0, Math.min(Math.trunc(n * f) - 1, n - 1))
        out.push({after: idx + 1, rate: this.rolling.at(idx)})
      }
    return out
  }

  /** The replay is over: Stat 4's points are read and the scratch file is removed. */
  finish(): void {
    this.rollingFinal = this.rollingPoints()
    this.close()
  }

  /** Releases the scratch file (also when the replay is abandoned). */
  close(): void {
    this.rolling.close()
  }
}
