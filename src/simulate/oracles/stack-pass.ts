// The one-pass stack method of a sweep (docs/simulate.md §6.6): one LRU reference stack over the blocks gives every
// capacity's results at once, and a certificate computed in the same pass says at which capacities they are
// proven equal to an independent replay. Only those points use it; the others are replayed.
import type {GroupConfig, InstanceConfig, SimConfig} from '../config/config.js'
import {splitByMask} from '../engine/engine.js'
import {PrefixBlocks} from './prefix-blocks.js'
import {playOrder} from '../engine/play-rows.js'
import {type GroupCapacity, groupAtCapacity, quotaBlocks, weightOf} from '../config/capacity.js'
import type {InstanceCounters, PointResult} from '../engine/player.js'
import type {TraceRow} from '../input/trace-rows.js'
import {grown} from '../../util/grown.js'

export interface StackPassResult {
  eligible: boolean
  /** why the method is not used, in words for people (null when eligible) */
  reason: string | null
  /** which rule of eligibility (docs/simulate.md §6.6) the trace or configuration fails, for code to act on; null
   * when eligible or when the method was not tried */
  failedRule: StackRule | null
  /** per point, in the order given: its result when certified, else undefined */
  certified: Array<PointResult | undefined>
  /** block lookups the pass went through (each get and write once) */
  blockLookups: number
}

/** The rules of eligibility: one instance, an LRU policy, exact eviction, a trace of get+write units. */
export type StackRule = 'one_instance' | 'lru_policy' | 'exact_eviction' | 'units'

/** Fenwick tree over positions 1…n (here reference times: one mark at each block's last reference). */
export class Fenwick {
  private readonly t: Int32Array
  constructor(readonly n: number) {
    this.t = new Int32Array(n + 1)
  }
  add(i: number, v: number): void {
    for (; i < this.t.length; i += i & -i) this.t[i] += v
  }
  /** marks at times 1…i */
  prefix(i: number): number {
    let s = 0
    for (; i > 0; i -= i & -i) s += this.t[i]
    return s
  }
}

/** The result of a pass not made (`reason`: why; `failedRule`: the rule failed, if any) over `caps` points. */
export const notUsed = (
  caps: number,
  reason: string,
  failedRule: StackRule | null = null,
): StackPassResult => ({
  eligible: false,
  reason,
  failedRule,
  certified: new Array<undefined>(caps).fill(undefined),
  blockLookups: 0,
})

/**
 * What the pass sees of one get+write unit, for callers that study the trace (reuse distances): `depths[j]` is the
 * LRU stack depth of the write's key j before the unit (1 = most recent; Infinity = never referenced); the first
 * `getLength` keys are the get's. Valid only during the call.
 */
export type StackObserver = (depths: Float64Array, getLength: number, length: number) => void

/** Runs the pass over the rows (in play order) for the swept group's capacities. */
export function stackPass(
  rows: readonly TraceRow[],
  config: SimConfig,
  groupName: string,
  caps: readonly GroupCapacity[],
  observe?: StackObserver,
): StackPassResult {
  const eligible = eligibleInstance(config, groupName, caps.length)
  if (!('inst' in eligible)) return eligible
  const {group, inst} = eligible
  // capacity in blocks of each point: what exact eviction keeps live
  const K = caps.map((cap) => quotaBlocks(groupAtCapacity(group, cap), inst) ?? Infinity)
  // the points in capacity order, and difference arrays over that order (one extra slot for "no point")
  const order = K.map((_, k) => k).sort((a, b) => K[a] - K[b])
  const sortedK = order.map((k) => K[k])
  const delay = BigInt(config.trace_replay.write_delay_ns)
  const units = scanUnits(rows, inst.instance_id, delay, sortedK, observe)
  if (typeof units === 'string')
    return notUsed(K.length, `gets and writes do not pair up in the trace (${units})`, 'units')
  return certify(units, K, order, group, inst, caps)
}

/** The swept group's one instance, when the method applies to it (one instance, an LRU policy, exact eviction), else why not. */
function eligibleInstance(
  config: SimConfig,
  groupName: string,
  points: number,
): {group: GroupConfig; inst: InstanceConfig} | StackPassResult {
  const group = config.instance_groups.find((g) => g.group_name === groupName)
  if (!group || group.instances.length !== 1)
    return notUsed(
      points,
      `the swept group has ${group?.instances.length ?? 0} instances; the method needs exactly one`,
      'one_instance',
    )
  const inst = group.instances[0]
  const policy = inst.eviction_policy_type
  if (!(policy === 'lru' || (policy === 'ttl' && inst.eviction_policy_params.fallback_on_pressure !== false)))
    return notUsed(points, `policy ${policy}; the method needs lru, or ttl falling back to LRU`, 'lru_policy')
  const {eviction_mode: mode, eviction_batch_size_per_instance: batch} = config.eviction_params
  if (mode !== 3 && batch !== 1)
    return notUsed(
      points,
      `eviction_mode ${mode} with batch ${batch} does not evict exactly; the method needs mode 3 or batch 1`,
      'exact_eviction',
    )
  return {group, inst}
}

/** What the pass over the units adds up: difference arrays over the points in capacity order, and the totals. */
interface UnitTotals {
  hitDiff: Float64Array
  remoteDiff: Float64Array
  insDiff: Float64Array
  devDiff: Float64Array
  gets: number
  readBlocks: number
  localRead: number
  inputTokens: number
  writes: number
  writeBlocks: number
  distinct: number
  distinctAtLastGet: number
}

/**
 * The pass over the instance's get+write units; a string says where and how the trace is not made of
 * get+write units. This loop is
 * the measured inner loop of the method and stays in one piece over local typed arrays; the tests of
 * test/simulate/oracles/stack-pass.test.ts pin what it certifies to playing every point.
 */
function scanUnits(
  rows: readonly TraceRow[],
  id: string,
  delay: bigint,
  sortedK: readonly number[],
  observe: StackObserver | undefined,
): UnitTotals | string {
  const points = sortedK.length
  let refs = 0
  for (const r of rows) if (r.instance === id && r.type !== 'get') refs += r.keys.length // writes and requests
  const blocks = new PrefixBlocks()
  let lastRef = new Int32Array(1 << 16) // 0 = never referenced
  const marks = new Fenwick(refs)
  let time = 0
  let distinct = 0
  let distinctAtLastGet = 0
  const hitDiff = new Float64Array(points + 1)
  const remoteDiff = new Float64Array(points + 1)
  const insDiff = new Float64Array(points + 1)
  const devDiff = new Float64Array(points + 1)
  let gets = 0
  let readBlocks = 0
  let localRead = 0
  let inputTokens = 0
  let writes = 0
  let writeBlocks = 0
  let d = new Float64Array(64)
  let M = new Float64Array(64)
  let remoteBefore = new Int32Array(65)
  let blockOf = new Int32Array(64)
  let get: TraceRow | undefined
  for (const {row: event, scheduled} of playOrder(rows, delay)) {
    if (event.instance !== id) continue
    if (!scheduled && event.type !== 'write') {
      if (event.queryType !== 'prefix_match')
        return `line ${event.lineNo}: a get with query_type ${event.queryType}`
      if (get) return `line ${get.lineNo}: a get not followed by its write`
      get = event
      continue
    }
    if (!get) return `line ${event.lineNo}: a write not preceded by its get`
    const P = get.keys
    const Q = event.keys
    const p = P.length
    const n = Q.length
    if (n < p) return `line ${event.lineNo}: the write's keys do not start with its get's`
    for (let j = 0; j < p; j++)
      if (P[j] !== Q[j]) return `line ${event.lineNo}: the write's keys do not start with its get's`
    if (n > d.length) {
      const size = 2 * n
      d = new Float64Array(size)
      M = new Float64Array(size)
      remoteBefore = new Int32Array(size + 1)
      blockOf = new Int32Array(size)
    }
    // the get's local/remote split, exactly as the engine makes it
    const split = splitByMask(P, get.mask)
    for (let j = 0; j < p; j++)
      remoteBefore[j + 1] =
        remoteBefore[j] + (split.unmasked === undefined || split.unmasked.has(P[j]) ? 1 : 0)
    // depths before the unit (1 = most recent; Infinity = never referenced), and their running maximum
    let parent = -1
    let max = 0
    for (let j = 0; j < n; j++) {
      const b = blocks.block(parent, Q[j])
      parent = b
      blockOf[j] = b
      if (b >= lastRef.length) {
        lastRef = grown(lastRef, lastRef.length * 2)
      }
      const t = lastRef[b]
      d[j] = t === 0 ? Infinity : distinct - marks.prefix(t - 1)
      if (d[j] > max) max = d[j]
      M[j] = max
    }
    observe?.(d, p, n)
    // per point, through difference arrays over the points in capacity order: a quantity that holds for
    // capacities ≥ x (or < x) adds to a suffix (or prefix) of the order
    for (let j = 0; j < p; j++) {
      // hit at every capacity ≥ M_j (M is non-decreasing, so these are leading positions)
      const from = firstAtLeast(sortedK, M[j])
      hitDiff[from]++
      if (remoteBefore[j + 1] > remoteBefore[j]) remoteDiff[from]++
      // a live block behind a missing one: capacities in [d_j, M_{j−1})
      if (j > 0 && d[j] < M[j - 1]) {
        devDiff[firstAtLeast(sortedK, d[j])]++
        devDiff[firstAtLeast(sortedK, M[j - 1])]--
      }
    }
    for (let j = 0; j < n; j++) {
      // inserted at every capacity below d_j
      insDiff[0]++
      insDiff[firstAtLeast(sortedK, d[j])]--
      // a live block beyond the get's keys: capacities ≥ d_j
      if (j >= p) devDiff[firstAtLeast(sortedK, d[j])]++
    }
    // the unit references Q in key order
    for (let j = 0; j < n; j++) {
      const b = blockOf[j]
      if (lastRef[b] !== 0) marks.add(lastRef[b], -1)
      else distinct++
      marks.add(++time, 1)
      lastRef[b] = time
    }
    gets++
    readBlocks += p
    localRead += split.localRead
    inputTokens += get.inputLen
    distinctAtLastGet = distinct - countNew(d, n)
    writes++
    writeBlocks += n
    get = undefined
  }
  if (get) return `line ${get.lineNo}: a get not followed by its write`
  return {
    hitDiff,
    remoteDiff,
    insDiff,
    devDiff,
    gets,
    readBlocks,
    localRead,
    inputTokens,
    writes,
    writeBlocks,
    distinct,
    distinctAtLastGet,
  }
}

/** The totals of every point from the difference arrays, and the points the pass certifies (no deviation). */
function certify(
  units: UnitTotals,
  K: readonly number[],
  order: readonly number[],
  group: GroupConfig,
  inst: InstanceConfig,
  caps: readonly GroupCapacity[],
): StackPassResult {
  const {gets, readBlocks, writeBlocks, distinct} = units
  const points = K.length
  const id = inst.instance_id
  const bs = inst.block_size
  // prefix sums: the totals of each point, in capacity order, then back in the order given
  const hit = new Float64Array(points)
  const remoteHit = new Float64Array(points)
  const localHit = new Float64Array(points)
  const inserted = new Float64Array(points)
  const deviates = new Uint8Array(points)
  let h = 0
  let r = 0
  let ins = 0
  let dev = 0
  for (let i = 0; i < points; i++) {
    h += units.hitDiff[i]
    r += units.remoteDiff[i]
    ins += units.insDiff[i]
    dev += units.devDiff[i]
    const k = order[i]
    hit[k] = h
    remoteHit[k] = r
    localHit[k] = h - r
    inserted[k] = ins
    deviates[k] = dev > 0 ? 1 : 0
  }
  const certified = K.map((cap, k): PointResult | undefined => {
    if (deviates[k]) return undefined
    const live = Math.min(cap, distinct)
    const counters: InstanceCounters = {
      get_rows: gets,
      read_blocks: readBlocks,
      local_read_blocks: units.localRead,
      hit_blocks: hit[k],
      local_hit_blocks: localHit[k],
      remote_hit_blocks: remoteHit[k],
      input_tokens: units.inputTokens,
      hit_tokens: hit[k] * bs,
      local_hit_tokens: localHit[k] * bs,
      remote_hit_tokens: remoteHit[k] * bs,
      write_rows: units.writes,
      write_blocks: writeBlocks,
      newly_inserted_blocks: inserted[k],
      evictions: inserted[k] - live,
      final_cached_blocks: live,
      peak_cached_blocks: gets > 0 ? Math.min(cap, units.distinctAtLastGet) : 0,
    }
    const g = groupAtCapacity(group, caps[k])
    return {
      blockLookups: readBlocks + writeBlocks,
      groupCfg: g,
      members: [{instanceId: id, weight: weightOf(g, inst), counters}],
    }
  })
  return {eligible: true, reason: null, failedRule: null, certified, blockLookups: readBlocks + writeBlocks}
}

/** The first index of ascending `sorted` whose value is ≥ x (sorted.length when none). */
function firstAtLeast(sorted: readonly number[], x: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** blocks of the unit never referenced before it */
function countNew(d: Float64Array, n: number): number {
  let c = 0
  for (let j = 0; j < n; j++) if (d[j] === Infinity) c++
  return c
}
