// Fixed-edge histograms and percentiles: the distributions of the report, summable across instances.

export interface Bin {
  from: number
  to: number
  count: number
}

/** Bins with edges base^k … (powers of two by default): k from `first` while the edge is below `max`. */
export function geometricEdges(first: number, max: number, base = 2): number[] {
  const edges = [first]
  while (edges[edges.length - 1] <= max) edges.push(edges[edges.length - 1] * base)
  return edges
}

/** `n` equal bins over [0, max] (max at least 1). */
export function linearEdges(max: number, n: number): number[] {
  const step = Math.max(1, Math.ceil(Math.max(1, max) / n))
  return Array.from({length: n + 1}, (_, i) => i * step)
}

export class Histogram {
  readonly counts: Float64Array

  constructor(readonly edges: readonly number[]) {
    this.counts = new Float64Array(Math.max(0, edges.length - 1))
  }

  /** adds `v` to the bin [edge_i, edge_i+1) that holds it; values beyond the edges go to the first or last bin */
  add(v: number, n = 1): void {
    const e = this.edges
    let lo = 0
    let hi = e.length - 2
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (e[mid] <= v) lo = mid
      else hi = mid - 1
    }
    this.counts[lo] += n
  }

  addAll(other: Histogram): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += other.counts[i]
  }

  bins(): Bin[] {
    return Array.from(this.counts, (count, i) => ({from: this.edges[i], to: this.edges[i + 1], count}))
  }
}

/** Nearest-rank percentiles of the values. */
export function percentiles(list: readonly number[]) {
  const n = list.length
  if (n === 0) return {count: 0, min: null, p50: null, p90: null, p99: null, max: null, mean: null}
  const values = Float64Array.from(list).sort()
  const at = (q: number) => values[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]
  let sum = 0
  for (let i = 0; i < n; i++) sum += values[i]
  return {
    count: n,
    min: values[0],
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: values[n - 1],
    mean: sum / n,
  }
}
