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
  type StackObserver,
  stackPass,
  type StackPassResult,
  type SweepTask,
  type TraceRow,
} from '../simulate/index.js'

export interface CurvePoint {
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

/** The policies lmt has; ttl without expiry (not modelled) and with fallback on pressure is LRU. */
export const REPORT_POLICIES: readonly PolicyName[] = ['lru', 'random_lru', 'leaf_aware_lru', 'ttl']

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

/** Log-spaced capacities in blocks from `fraction` of the working set up to it (distinct, ascending). */
export function capacityGrid(wss: number, points: number, fraction = 0.001): number[] {
  const lo = Math.max(1, Math.round(wss * fraction))
  const hi = Math.max(lo, wss)
  const out = Array.from({length: points}, (_, i) =>
    Math.round(Math.exp(Math.log(lo) + (i * (Math.log(hi) - Math.log(lo))) / Math.max(1, points - 1))),
  )
  return [...new Set(out)].sort((a, b) => a - b)
}

function fromCounters(p: PointResult, cap: number, method: CurvePoint['method']): CurvePoint {
  let hitT = 0
  let inT = 0
  let hitB = 0
  let readB = 0
  for (const m of p.members) {
    hitT += m.counters.hit_tokens
    inT += m.counters.input_tokens
    hitB += m.counters.hit_blocks
    readB += m.counters.read_blocks
  }
  return {
    capacity_blocks: cap,
    token_hit_rate: inT > 0 ? hitT / inT : 0,
    block_hit_rate: readB > 0 ? hitB / readB : 0,
    method,
  }
}

/** simulate's one-pass LRU stack method over the grid (`observe`: sees every unit's stack depths) */
export function lruStackPass(
  rows: readonly TraceRow[],
  config: SimConfig,
  groupName: string,
  grid: readonly number[],
  observe?: StackObserver,
): StackPassResult {
  return stackPass(
    rows,
    withPolicy(config, groupName, 'lru'),
    groupName,
    grid.map((blocks) => ({blocks})),
    observe,
  )
}

export interface CurvesRequest {
  /** the LRU stack pass over the grid, when the caller already made it */
  stack?: StackPassResult
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

export interface Curves {
  policies: PolicyCurve[]
  belady: PolicyCurve
  /** how the LRU points were obtained */
  stack: {eligible: boolean; reason: string | null; certified_points: number}
}

/** The replays of a sweep: the tasks, and where each (policy, point) is among them. */
interface SweepPlan {
  tasks: SweepTask[]
  /** "policy/point" → task index */
  where: Map<string, number>
  /** task index → point, for the Belady tasks */
  beladyFirst: Map<number, number>
}

/** What every step of the curves shares: the request, the LRU stack pass, and the capacities that never evict. */
interface CurveContext {
  req: CurvesRequest
  group: SimConfig['instance_groups'][number]
  /** the configuration with the group on LRU (the sweep's base) */
  lruCfg: SimConfig
  stack: StackPassResult
  /** a capacity that holds the whole working set never evicts: every policy is the infinite cache there */
  holdsAll(cap: number): boolean
}

function curveContext(req: CurvesRequest): CurveContext {
  const {rows, config, groupName, grid} = req
  const group = config.instance_groups.find(
    (g) => g.group_name === groupName,
  ) as SimConfig['instance_groups'][number]
  return {
    req,
    group,
    lruCfg: withPolicy(config, groupName, 'lru'),
    stack: req.stack ?? lruStackPass(rows, config, groupName, grid),
    holdsAll: (cap) =>
      (quotaUnits({...group, quota_capacity: undefined, quota_capacity_blocks: cap}) ?? Infinity) >= req.wss,
  }
}

function noEviction(ctx: CurveContext, cap: number): CurvePoint {
  return {
    capacity_blocks: cap,
    token_hit_rate: ctx.req.infinite.token_hit_rate,
    block_hit_rate: ctx.req.infinite.block_hit_rate,
    method: 'no_eviction',
  }
}

/** lru, then the requested policies that are replayed (ttl is LRU here) */
function replayedPolicies(requested: readonly PolicyName[]): PolicyName[] {
  return ['lru', ...REPORT_POLICIES.filter((p) => p !== 'lru' && p !== 'ttl' && requested.includes(p))]
}

/** Every replay the curves need: each point that evicts, less the LRU points the stack pass certified. */
function planSweep(ctx: CurveContext, replayed: readonly PolicyName[]): SweepPlan {
  const {config, groupName, grid} = ctx.req
  const plan: SweepPlan = {tasks: [], where: new Map(), beladyFirst: new Map()}
  const {tasks, where} = plan
  // the Belady points first, in capacity order: once one serves every block the infinite cache serves, no needed
  // block was evicted, and none is at any larger capacity either (farthest next need evicts the never-needed first)
  grid.forEach((cap, p) => {
    if (ctx.holdsAll(cap)) return
    const capCfg = structuredClone(ctx.lruCfg)
    const g = capCfg.instance_groups.find((x) => x.group_name === groupName) as CurveContext['group']
    delete g.quota_capacity
    g.quota_capacity_blocks = cap
    plan.beladyFirst.set(tasks.length, p)
    where.set(`belady/${p}`, tasks.push({kind: 'belady', capConfig: capCfg}) - 1)
  })
  for (const policy of replayed) {
    const cfg = withPolicy(config, groupName, policy)
    grid.forEach((cap, p) => {
      if (ctx.holdsAll(cap) || (policy === 'lru' && ctx.stack.certified[p])) return
      where.set(`${policy}/${p}`, tasks.push({kind: 'replay', cap: {blocks: cap}, config: cfg}) - 1)
    })
  }
  return plan
}

/** a smaller capacity's Belady replay already served every block the infinite cache serves */
function saturatedBelow(
  ctx: CurveContext,
  plan: SweepPlan,
  p: number,
  results: ReadonlyArray<unknown>,
): boolean {
  return ctx.req.grid.some((_, q) => {
    if (q >= p) return false
    const r = results[plan.where.get(`belady/${q}`) ?? -1] as BeladyGroupResult[] | undefined
    return r !== undefined && r[0].hit_blocks >= ctx.req.infinite.hit_blocks
  })
}

/** Runs the plan on the sweep pool; a Belady point above a saturated one is skipped. */
async function runPlan(ctx: CurveContext, plan: SweepPlan): Promise<ReadonlyArray<unknown>> {
  const {req} = ctx
  const {tasks} = plan
  if (tasks.length === 0) return []
  let done = 0
  const jobs = Math.max(1, Math.min(req.jobs ?? availableParallelism(), tasks.length))
  const run = await runSweepTasks(
    req.rows,
    {
      base: {seed: req.seed, strictInstances: false, traceName: ''},
      config: ctx.lruCfg,
      groupName: req.groupName,
    },
    tasks,
    jobs,
    () => req.onProgress?.(++done, tasks.length),
    (index, results) => {
      const p = plan.beladyFirst.get(index)
      return p !== undefined && saturatedBelow(ctx, plan, p, results)
    },
  )
  return run.results
}

function policyCurve(
  ctx: CurveContext,
  plan: SweepPlan,
  results: ReadonlyArray<unknown>,
  policy: PolicyName,
): PolicyCurve {
  return {
    policy,
    same_as: null,
    note: null,
    points: ctx.req.grid.map((cap, p) => {
      if (ctx.holdsAll(cap)) return noEviction(ctx, cap)
      const certified = policy === 'lru' ? ctx.stack.certified[p] : undefined
      if (certified) return fromCounters(certified, cap, 'stack')
      return fromCounters(results[plan.where.get(`${policy}/${p}`) as number] as PointResult, cap, 'replay')
    }),
  }
}

function beladyCurve(ctx: CurveContext, plan: SweepPlan, results: ReadonlyArray<unknown>): PolicyCurve {
  return {
    policy: 'belady',
    same_as: null,
    note: 'farthest next need, offline: a reference, not a policy',
    points: ctx.req.grid.map((cap, p) => {
      if (ctx.holdsAll(cap)) return noEviction(ctx, cap)
      if (saturatedBelow(ctx, plan, p, results))
        return {...noEviction(ctx, cap), method: 'saturated' as const}
      const [b] = results[plan.where.get(`belady/${p}`) as number] as BeladyGroupResult[]
      return {
        capacity_blocks: cap,
        token_hit_rate: b.token_hit_rate,
        block_hit_rate: b.block_hit_rate,
        method: 'replay',
      }
    }),
  }
}

/** Computes every curve over the grid; results never depend on `jobs`. */
export async function computeCurves(req: CurvesRequest): Promise<Curves> {
  const ctx = curveContext(req)
  const replayed = replayedPolicies(req.policies)
  const plan = planSweep(ctx, replayed)
  const results = await runPlan(ctx, plan)
  const policies = replayed.map((policy) => policyCurve(ctx, plan, results, policy))
  if (req.policies.includes('ttl'))
    policies.push({
      policy: 'ttl',
      same_as: 'lru',
      note: 'TTL expiry is not modelled and ttl falls back to LRU under pressure: its curve is the LRU curve',
      points: policies[0].points,
    })
  const {stack, holdsAll} = ctx
  const belady = beladyCurve(ctx, plan, results)
  for (const curve of [...policies, belady])
    for (const p of curve.points)
      checkRateBelowCeiling(
        `${curve.policy} at ${p.capacity_blocks} blocks (${p.method})`,
        p.token_hit_rate,
        req.infinite.token_hit_rate,
      )
  return {
    policies,
    belady,
    stack: {
      eligible: stack.eligible,
      reason: stack.reason,
      certified_points: req.grid.filter((cap, p) => !holdsAll(cap) && stack.certified[p]).length,
    },
  }
}
