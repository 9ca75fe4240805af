// Trace characterization (per instance and overall): load over time, input lengths, prefix sharing, reuse distance
// (from simulate's LRU stack pass) and reuse time, working set over time, key popularity.
import {
  PrefixBlocks,
  type SimConfig,
  type StackObserver,
  stackPass,
  type TraceRow,
} from '../simulate/index.js'
import {geometricEdges, Histogram, linearEdges, percentiles} from './histogram.js'
import {TimeBins} from './time-bins.js'

/**
 * Reuse distances: the LRU stack depth of every re-referenced get block, in distinct blocks, as simulate's stack pass
 * computes them (an observer of the pass; the answer's own pass can feed it, see report.ts).
 */
export class ReuseDistances {
  readonly distances: number[] = []
  /** get blocks never referenced before */
  firstRefs = 0
  /** why the pass stopped early or did not run (null: complete) */
  reason: string | null = null

  readonly observe: StackObserver = (d, getLength) => {
    for (let j = 0; j < getLength; j++) {
      if (d[j] === Infinity) this.firstRefs++
      else this.distances.push(d[j])
    }
  }
}

/** One instance's reuse distances from a stack pass of its own (exact LRU, infinite capacity). */
function reuseDistancesOf(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  instance: string,
  blockSize: number,
): ReuseDistances {
  const lruCfg: SimConfig = {
    ...cfg,
    eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 1},
    instance_groups: [
      {
        group_name: 'reuse',
        quota_capacity_blocks: -1,
        used_percentage: 1,
        instances: [
          {
            instance_id: instance,
            block_size: blockSize,
            eviction_policy_type: 'lru',
            eviction_policy_params: {},
          },
        ],
      },
    ],
  }
  const r = new ReuseDistances()
  r.reason = stackPass(rows, lruCfg, 'reuse', [], r.observe).reason
  return r
}

const SHARE_EDGES = Array.from({length: 11}, (_, i) => i / 10).map((x, i) => (i === 10 ? 1.0000001 : x))

/** What one instance's pass collects before it is summarised. */
class Accumulated {
  requests = 0
  inputTokens = 0
  getBlocks = 0
  seenBlocks = 0
  noBlocks = 0
  /** the first blocks of gets, counted once each (a write may have brought the block in before any get had it) */
  readonly firstBlocks = new Set<number>()
  readonly leaves = new Set<number>()
  readonly lengths: number[] = []
  readonly share = new Histogram(SHARE_EDGES)
  readonly reuseSeconds: number[] = []
  readonly perBin: {
    requests: Float64Array
    tokens: Float64Array
    window: Float64Array
    cumulative: Float64Array
  }
  readonly blocks = new PrefixBlocks()
  /** per block id: the gets that referenced it, when it was last referenced (seconds, time bin) */
  readonly refs: number[] = []
  readonly lastSeconds: number[] = []
  readonly lastBin: number[] = []

  /** the pass over the rows of instance `id` */
  constructor(
    rows: readonly TraceRow[],
    readonly id: string,
    bins: TimeBins,
    readonly reuse: ReuseDistances,
  ) {
    const perBin = () => new Float64Array(bins.count)
    this.perBin = {requests: perBin(), tokens: perBin(), window: perBin(), cumulative: perBin()}
    for (const r of rows) if (r.instance === id) visit(this, r, bins)
    let total = 0
    for (let b = 0; b < bins.count; b++) this.perBin.cumulative[b] = total += this.perBin.cumulative[b]
  }
}

/** One row of the instance: its blocks are referenced (a get also counts as a request). */
function visit(a: Accumulated, r: TraceRow, bins: TimeBins): void {
  const bin = bins.of(r.ts)
  const now = bins.seconds(r.ts)
  const get = r.type !== 'write'
  let parent = -1
  let seen = 0
  for (let j = 0; j < r.keys.length; j++) {
    const before = a.blocks.count
    const b = a.blocks.block(parent, r.keys[j])
    parent = b
    if (j === 0 && get) a.firstBlocks.add(b)
    if (b === before) {
      // block ids count up from 0: a new block is the next entry of each array
      a.refs.push(0)
      a.lastBin.push(-1)
      a.lastSeconds.push(now)
      a.perBin.cumulative[bin]++
    } else if (get) {
      seen++
      a.reuseSeconds.push(now - a.lastSeconds[b])
    }
    if (a.lastBin[b] !== bin) {
      a.lastBin[b] = bin
      a.perBin.window[bin]++
    }
    a.lastSeconds[b] = now
    if (get) a.refs[b]++
  }
  if (!get) return
  a.requests++
  a.inputTokens += r.inputLen
  a.lengths.push(r.inputLen)
  a.perBin.requests[bin]++
  a.perBin.tokens[bin] += r.inputLen
  a.getBlocks += r.keys.length
  a.seenBlocks += seen
  if (r.keys.length === 0) a.noBlocks++
  else {
    a.share.add(seen / r.keys.length)
    a.leaves.add(parent)
  }
}

function popularity(refs: readonly number[]) {
  const ascending = Float64Array.from(refs.filter((x) => x > 0)).sort()
  const n = ascending.length
  const at = (rank: number) => ascending[n - rank] // rank 1 = the most referenced
  let total = 0
  for (let i = 0; i < n; i++) total += ascending[i]
  let topSum = 0
  for (let rank = 1; rank <= Math.max(1, Math.ceil(n / 100)) && rank <= n; rank++) topSum += at(rank)
  const points: Array<{rank: number; references: number}> = []
  for (let rank = 1; rank <= n; rank = Math.max(rank + 1, Math.round(rank * 1.15)))
    points.push({rank, references: at(rank)})
  if (n > 0 && points[points.length - 1].rank !== n) points.push({rank: n, references: at(n)})
  return {points, referenced_blocks: n, top_1pct_share: total > 0 ? topSum / total : 0}
}

/** Edges shared by every instance (so that the overall histograms are sums). */
type Edges = Record<'length' | 'distance' | 'seconds', number[]>

function summarise(
  parts: readonly Accumulated[],
  id: string,
  bins: TimeBins,
  edges: Edges,
  refs: readonly number[],
) {
  const sum = (f: (a: Accumulated) => number) => parts.reduce((s, a) => s + f(a), 0)
  const hist = (list: readonly number[], e: number[]) => {
    const h = new Histogram(e)
    for (const v of list) h.add(v)
    return h.bins()
  }
  const share = new Histogram(SHARE_EDGES)
  for (const a of parts) share.addAll(a.share)
  const lengths = parts.flatMap((a) => a.lengths)
  const distances = parts.flatMap((a) => a.reuse.distances)
  const seconds = parts.flatMap((a) => a.reuseSeconds)
  const reasons = parts.map((a) => a.reuse.reason).filter((r) => r !== null)
  const getBlocks = sum((a) => a.getBlocks)
  return {
    instance_id: id,
    requests: sum((a) => a.requests),
    input_tokens: sum((a) => a.inputTokens),
    get_blocks: getBlocks,
    distinct_blocks: sum((a) => a.blocks.count),
    distinct_first_blocks: sum((a) => a.firstBlocks.size),
    distinct_request_prefixes: sum((a) => a.leaves.size),
    input_len: {...percentiles(lengths), histogram: hist(lengths, edges.length)},
    sharing: {
      seen_block_share: getBlocks > 0 ? sum((a) => a.seenBlocks) / getBlocks : 0,
      requests_without_blocks: sum((a) => a.noBlocks),
      histogram: share.bins().map((b, i) => ({...b, to: i === 9 ? 1 : b.to})),
    },
    reuse_distance: {
      available: reasons.length === 0,
      reason: reasons[0] ?? null,
      first_references: sum((a) => a.reuse.firstRefs),
      stats: percentiles(distances),
      histogram: hist(distances, edges.distance),
    },
    reuse_time: {stats: percentiles(seconds), histogram: hist(seconds, edges.seconds)},
    over_time: Array.from({length: bins.count}, (_, b) => ({
      t: bins.startSeconds(b),
      requests: sum((a) => a.perBin.requests[b]),
      input_tokens: sum((a) => a.perBin.tokens[b]),
      window_blocks: sum((a) => a.perBin.window[b]),
      cumulative_blocks: sum((a) => a.perBin.cumulative[b]),
    })),
    popularity: popularity(refs),
  }
}

/** Characterizes the instances' rows (`blockSizes`: the instances to describe, with their block sizes). */
export function characterize(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  blockSizes: ReadonlyMap<string, number>,
  bins: TimeBins,
  /** reuse distances already observed (by the answer's stack pass), by instance */
  known: ReadonlyMap<string, ReuseDistances> = new Map(),
) {
  const parts = [...blockSizes].map(
    ([id, bs]) => new Accumulated(rows, id, bins, known.get(id) ?? reuseDistancesOf(rows, cfg, id, bs)),
  )
  let maxLen = 1
  let maxDistance = 1
  let maxSeconds = 1
  for (const a of parts) {
    for (const v of a.lengths) if (v > maxLen) maxLen = v
    for (const v of a.reuse.distances) if (v > maxDistance) maxDistance = v
    for (const v of a.reuseSeconds) if (v > maxSeconds) maxSeconds = v
  }
  const edges: Edges = {
    length: linearEdges(maxLen, 40),
    distance: geometricEdges(1, maxDistance),
    seconds: geometricEdges(2 ** -10, maxSeconds),
  }
  const instances = parts.map((a) => summarise([a], a.id, bins, edges, a.refs))
  // one instance: the overall profile is its own (not computed twice)
  const overall =
    parts.length === 1
      ? {...instances[0], instance_id: '*'}
      : summarise(
          parts,
          '*',
          bins,
          edges,
          parts.flatMap((a) => a.refs),
        )
  return {bin_seconds: bins.widthSeconds(), instances, overall}
}

/** An instance's profile (schemas/report.schema.json, `profile`), and the characterization of them all. */
export type Profile = ReturnType<typeof summarise>
export type Characterization = ReturnType<typeof characterize>
/** what the trace's table and charts read: the untiered and the tiered page alike */
export type Characterized = {characterization: Characterization}
