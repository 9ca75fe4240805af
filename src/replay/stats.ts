// Per-qualname latency statistics (docs/storage-replay.md §8).
import {grown} from '../util/grown.js'

const HISTOGRAM_AFTER = 2_000_000

/** Adds `x` to the non-overlapping partial sums of an exact running sum (the inner loop of math.fsum). */
function addPartial(partials: number[], x: number): void {
  let j = 0
  for (const y0 of partials) {
    let y = y0
    if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
    const hi = x + y
    const lo = y - (hi - x)
    if (lo !== 0) partials[j++] = lo
    x = hi
  }
  partials.length = j
  partials.push(x)
}

/** Shewchuk's exactly rounded sum (Python's math.fsum). */
export function fsum(values: ArrayLike<number>): number {
  const partials: number[] = []
  for (let i = 0; i < values.length; i++) addPartial(partials, values[i])
  let n = partials.length
  if (n === 0) return 0
  let hi = partials[--n]
  let lo = 0
  while (n > 0) {
    const x = hi
    const y = partials[--n]
    hi = x + y
    const yr = hi - x
    lo = y - yr
    if (lo !== 0) break
  }
  if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
    const y = lo * 2
    const x = hi + y
    const yr = x - hi
    if (y === yr) hi = x
  }
  return hi
}

/** Nearest rank, no interpolation (the corrected rule of §8.2). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length
  if (n === 0) return 0
  if (p <= 0) return sorted[0]
  if (p >= 100) return sorted[n - 1]
  const rank = Math.ceil((p * n) / 100)
  return sorted[Math.max(rank, 1) - 1]
}

class OpCollector {
  count = 0
  errors = 0
  min = Infinity
  max = -Infinity
  samples = new Float64Array(16)
  histogram: Map<number, number> | undefined
  partials: number[] = []

  add(ms: number): void {
    if (this.histogram) {
      const b = ms > 0 ? Math.floor(Math.log2(ms) * 256) : -Infinity
      this.histogram.set(b, (this.histogram.get(b) ?? 0) + 1)
      // running exact partials, so the mean stays exact after the switch
      addPartial(this.partials, ms)
    } else {
      if (this.count === this.samples.length) {
        this.samples = grown(this.samples, this.samples.length * 2)
      }
      this.samples[this.count] = ms
    }
    this.count++
    if (ms < this.min) this.min = ms
    if (ms > this.max) this.max = ms
  }

  toHistogram(): void {
    if (this.histogram) return
    this.histogram = new Map()
    const n = this.count
    this.count = 0
    const old = this.samples.subarray(0, n)
    for (const v of old) {
      this.add(v)
    }
    this.samples = new Float64Array(0)
  }

  /** The figures of the samples (all 0 without any). */
  summary() {
    let mean = 0
    let pct: (p: number) => number = () => 0
    if (this.count > 0 && this.histogram) {
      mean = fsum(this.partials) / this.count
      const buckets = [...this.histogram].sort((a, b) => a[0] - b[0])
      pct = (p) => {
        const rank = p <= 0 ? 1 : p >= 100 ? this.count : Math.max(Math.ceil((p * this.count) / 100), 1)
        let seen = 0
        for (const [b, c] of buckets) {
          seen += c
          if (seen >= rank) return b === -Infinity ? 0 : 2 ** (b / 256)
        }
        return this.max
      }
    } else if (this.count > 0) {
      const sorted = this.samples.slice(0, this.count).sort()
      mean = fsum(sorted) / this.count
      pct = (p) => percentile(sorted, p)
    }
    return {
      count: this.count,
      errors: this.errors,
      mean_ms: mean,
      p50_ms: pct(50),
      p90_ms: pct(90),
      p99_ms: pct(99),
      min_ms: this.count === 0 ? 0 : this.min,
      max_ms: this.count === 0 ? 0 : this.max,
    }
  }
}

export class ReplayStats {
  private readonly ops = new Map<string, OpCollector>()
  private total = 0
  histogramMode = false

  constructor(private readonly exact = false) {}

  private op(q: string): OpCollector {
    let o = this.ops.get(q)
    if (!o) {
      o = new OpCollector()
      if (this.histogramMode) o.toHistogram()
      this.ops.set(q, o)
    }
    return o
  }

  sample(q: string, ms: number): void {
    this.op(q).add(ms)
    if (!this.histogramMode && ++this.total >= HISTOGRAM_AFTER && !this.exact) {
      this.histogramMode = true
      for (const o of this.ops.values()) o.toHistogram()
    }
  }

  error(q: string): void {
    this.op(q).errors++
  }

  /** Per qualname, sorted by code point. */
  summary(): Array<[string, ReturnType<OpCollector['summary']>]> {
    return [...this.ops.keys()]
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((q) => [q, (this.ops.get(q) as OpCollector).summary()])
  }
}
