// The answer's curves: hit rate against capacity of every policy lmt has, with the Belady (next need) and
// infinite-capacity references. LRU points come from simulate's one-pass stack method where it certifies them; the
// other points and policies are replays of simulate's engine, on worker threads (simulate's sweep pool).
import {availableParallelism} from 'node:os'
import {
  type BeladyGroupResult,
  checkRateBelowCeiling,
  type PointResult,
  type PolicyName,
  quotaUnits,
  runSweepTasks,
  type SimConfig,
  type StackPassResult,
  type SweepTask,
  totalsOf,
  type TraceRow,
} from '../simulate/index.js'

interface CurvePoint {
  capacity_blocks: number
  token_hit_rate: number
  block_hit_rate: number
  /**
   * `stack`: the certified one-pass stack method; `replay`; `no_eviction`: the capacity holds every block;
   * `saturated` (Belady): a smaller capacity already served every block the infinite cache serves
   */
  method: 'stack' | 'replay' | 'no_eviction' | 'saturated'
}

export interface PolicyCurve {
  policy: PolicyName | 'belady'
  /** a policy identical to another one in this replay model (not replayed) */
  same_as: PolicyName | null
  note: string | null
  points: CurvePoint[]
}

export interface Totals {
  token_hit_rate: number
  block_hit_rate: number
  hit_blocks: number
  read_blocks: number
}

/** The configuration with every instance of `groupName` on `policy` (its own parameters kept when it had it). */
export function withPolicy(cfg: SimConfig, groupName: string, policy: PolicyName): SimConfig {
  const copy = structuredClone(cfg)
  for (const g of copy.instance_groups)
    if (g.group_name === groupName)
      for (const i of g.instances) {
        if (i.eviction_policy_type !== policy) i.eviction_policy_params = {}
        i.eviction_policy_type = policy
      }
  return copy
}

/** Log-spaced capacities in blocks from a thousandth of the working set up to it (distinct, ascending). */
export function capacityGrid(wss: number, points: number): number[] {
  const lo = Math.max(1, Math.round(wss * 0.001))
  const hi = Math.max(lo, wss)
  const out = Array.from({length: points}, (_, i) =>
    Math.round(Math.exp(Math.log(lo) + (i * (Math.log(hi) - Math.log(lo))) / Math.max(1, points - 1))),
  )
  return [...new Set(out)].sort((a, b) => a - b)
}

function fromCounters(p: PointResult, cap: number, method: CurvePoint['method']): CurvePoint {
  const t = totalsOf(p.members)
  return {capacity_blocks: cap, token_hit_rate: t.token_hit_rate, block_hit_rate: t.block_hit_rate, method}
}

interface CurvesRequest {
  /** the LRU stack pass over the grid */
  stack: StackPassResult
  /** the policies to replay besides lru (which is always computed: ttl and the default capacity follow it) */
  policies: readonly PolicyName[]
  rows: readonly TraceRow[]
  config: SimConfig
  groupName: string
  grid: readonly number[]
  wss: number
  infinite: Totals
  seed: bigint
  jobs?: number
  onProgress?(done: number, total: number): void
}

/** Computes every curve over the grid; results never depend on `jobs`. */
export async function computeCurves(req: CurvesRequest) {
  const {config, groupName, grid, stack, infinite} = req
  const group = config.instance_groups.find(
    (g) => g.group_name === groupName,
  ) as SimConfig['instance_groups'][number]
  const lruCfg = withPolicy(config, groupName, 'lru')
  // a capacity that holds the whole working set never evicts: every policy is the infinite cache there
  const holdsAll = grid.map(
    (cap) =>
      (quotaUnits({...group, quota_capacity: undefined, quota_capacity_blocks: cap}) ?? Infinity) >= req.wss,
  )
  // lru, then the requested policies that are replayed (ttl is LRU here)
  const replayed: PolicyName[] = [
    'lru',
    ...(['random_lru', 'leaf_aware_lru'] as const).filter((p) => req.policies.includes(p)),
  ]
  const tasks: SweepTask[] = []
  // the Belady points first, in capacity order: once one serves every block the infinite cache serves, no needed
  // block was evicted, and none is at any larger capacity either (farthest next need evicts the never-needed first)
  const beladyTask = grid.map((cap, p) => {
    if (holdsAll[p]) return -1
    const capCfg = structuredClone(lruCfg)
    const g = capCfg.instance_groups.find((x) => x.group_name === groupName) as typeof group
    delete g.quota_capacity
    g.quota_capacity_blocks = cap
    return tasks.push({kind: 'belady', capConfig: capCfg}) - 1
  })
  // every other point that evicts, less the LRU points the stack pass certified
  const replayTask = replayed.map((policy) => {
    const cfg = withPolicy(config, groupName, policy)
    return grid.map((cap, p) =>
      holdsAll[p] || (policy === 'lru' && stack.certified[p])
        ? -1
        : tasks.push({kind: 'replay', cap: {blocks: cap}, config: cfg}) - 1,
    )
  })
  /** a smaller capacity's Belady replay already served every block the infinite cache serves */
  const saturatedBelow = (p: number, results: ReadonlyArray<unknown>) =>
    beladyTask.slice(0, p).some((t) => {
      const r = results[t] as BeladyGroupResult[] | undefined
      return r !== undefined && r[0].hit_blocks >= infinite.hit_blocks
    })
  let results: ReadonlyArray<unknown> = []
  if (tasks.length > 0) {
    let done = 0
    const run = await runSweepTasks(
      req.rows,
      {base: {seed: req.seed, strictInstances: false, traceName: ''}, config: lruCfg, groupName},
      tasks,
      Math.min(req.jobs ?? availableParallelism(), tasks.length),
      () => req.onProgress?.(++done, tasks.length),
      // a Belady point above a saturated one is not replayed
      (index, sofar) => {
        const p = beladyTask.indexOf(index)
        return p >= 0 && saturatedBelow(p, sofar)
      },
    )
    results = run.results
  }
  const noEviction = (cap: number): CurvePoint => ({
    capacity_blocks: cap,
    token_hit_rate: infinite.token_hit_rate,
    block_hit_rate: infinite.block_hit_rate,
    method: 'no_eviction',
  })
  const policies: PolicyCurve[] = replayed.map((policy, k) => ({
    policy,
    same_as: null,
    note: null,
    points: grid.map((cap, p) => {
      if (holdsAll[p]) return noEviction(cap)
      const certified = policy === 'lru' ? stack.certified[p] : undefined
      if (certified) return fromCounters(certified, cap, 'stack')
      return fromCounters(results[replayTask[k][p]] as PointResult, cap, 'replay')
    }),
  }))
  if (req.policies.includes('ttl'))
    policies.push({
      policy: 'ttl',
      same_as: 'lru',
      note: 'TTL expiry is not modelled and ttl falls back to LRU under pressure: its curve is the LRU curve',
      points: policies[0].points,
    })
  const belady: PolicyCurve = {
    policy: 'belady',
    same_as: null,
    note: 'farthest next need, offline: a reference, not a policy',
    points: grid.map((cap, p) => {
      if (holdsAll[p]) return noEviction(cap)
      if (saturatedBelow(p, results)) return {...noEviction(cap), method: 'saturated'}
      const [b] = results[beladyTask[p]] as BeladyGroupResult[]
      return {
        capacity_blocks: cap,
        token_hit_rate: b.token_hit_rate,
        block_hit_rate: b.block_hit_rate,
        method: 'replay',
      }
    }),
  }
  for (const curve of [...policies, belady])
    for (const p of curve.points)
      checkRateBelowCeiling(
        `${curve.policy} at ${p.capacity_blocks} blocks (${p.method})`,
        p.token_hit_rate,
        infinite.token_hit_rate,
      )
  return {
    policies,
    belady,
    // how the LRU points were obtained
    stack: {
      eligible: stack.eligible,
      reason: stack.reason,
      certified_points: grid.filter((_, p) => !holdsAll[p] && stack.certified[p]).length,
    },
  }
}
