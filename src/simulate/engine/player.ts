import {lmtError} from '../../errors.js'
import type {GroupConfig, InstanceConfig, SimConfig} from '../config/config.js'
import {evictIfNeeded, type GroupSettings, SimInstance} from './engine.js'
import {LeafAwareLruPolicy, LruPolicy, type Policy, RandomLruPolicy, TtlPolicy} from './policies.js'
import {BinaryHeap} from '../../util/binary-heap.js'
import {TieredGroup, type TieredGroupSetup, type TieredInstance, type TieredPolicyName} from './tiered.js'
import {TieredHitRateSink, tierColumns} from './tiered-hit-rate-sink.js'
import {groupAtCapacity, quotaUnits, weightOf} from '../config/capacity.js'
import {newReadRecord, rate, type ReadRecord} from './hit-rate-csv.js'
import {DeferredHitRateSink, type HitRateSink} from './hit-rate-sink.js'
import type {TraceRow} from '../input/trace-rows.js'
import {blockSizeError, BlockSizeFit, type BlockSizeSource} from '../input/block-size.js'

const INT64_MAX = 2n ** 63n - 1n
const PLOT_POINTS = 2000

/** An instance's counters, all 0, in the order summary.json gives them. */
export function zeroCounters() {
  return {
    get_rows: 0,
    read_blocks: 0,
    local_read_blocks: 0,
    hit_blocks: 0,
    local_hit_blocks: 0,
    remote_hit_blocks: 0,
    input_tokens: 0,
    hit_tokens: 0,
    local_hit_tokens: 0,
    remote_hit_tokens: 0,
    write_rows: 0,
    write_blocks: 0,
    newly_inserted_blocks: 0,
    evictions: 0,
    final_cached_blocks: 0,
    peak_cached_blocks: 0,
  }
}

export type InstanceCounters = ReturnType<typeof zeroCounters>

/** A group's counters after one play at one capacity: what a sweep point needs (a play, or the stack pass) */
export interface PointResult {
  blockLookups: number
  groupCfg: GroupConfig
  members: Array<{
    instanceId: string
    weight: number
    counters: InstanceCounters
    /** a tiered instance: per tier in priority order, its hit tokens and the blocks it holds at the end */
    tiers?: {hitTokens: number[]; blocks: number[]}
  }>
  /** a tiered group: blocks a TTL expiry removed from a tier whose own expiry event had gone stale */
  strandedExpiries?: number
}

export interface PlotPoint {
  ts: bigint
  accHitRate: number
  /** the number of the read record (from 0) */
  read: number
}

export class InstState {
  readonly counters: InstanceCounters = zeroCounters()
  accWrite = 0
  /** the instance's cache in a tiered configuration (then {@link engine} is not played) */
  tiered: TieredInstance | undefined
  /** a tiered instance's hit tokens so far, per tier */
  accTierHitTokens: number[] = []
  /** the number of the instance's CSV in the replay's sink (-1: not opened) */
  csvFile = -1
  /** the CSV path, asked for once (null: this run writes no CSV for the instance) */
  csvPath: string | null | undefined
  /** the block sizes this instance's rows allow so far */
  readonly blockSizeFit = new BlockSizeFit()
  /** decimated plot data: every 2^step-th read record (see {@link plotPoints}) */
  plot: PlotPoint[] = []
  private plotStep = 1
  private reads = 0
  private lastTs = 0n
  private lastRate = 0

  constructor(
    readonly cfg: InstanceConfig,
    readonly group: GroupState,
    readonly engine: SimInstance,
    readonly order: number,
  ) {}

  /** a read record's point; only the kept ones become objects (this runs in the replay, per get) */
  addPlotPoint(ts: bigint, accHitRate: number): void {
    this.lastTs = ts
    this.lastRate = accHitRate
    const read = this.reads++
    if (read % this.plotStep === 0) {
      this.plot.push({ts, accHitRate, read})
      if (this.plot.length >= PLOT_POINTS) {
        this.plot = this.plot.filter((_, i) => i % 2 === 0)
        this.plotStep *= 2
      }
    }
  }

  /** the plot's points: the decimated ones, then the last read record's unless it is among them */
  plotPoints(): PlotPoint[] {
    const pts = [...this.plot]
    const last = this.reads - 1
    if (last >= 0 && pts[pts.length - 1]?.read !== last)
      pts.push({ts: this.lastTs, accHitRate: this.lastRate, read: last})
    return pts
  }
}

export class GroupState {
  readonly members: InstState[] = []
  readonly engines: SimInstance[] = []
  /** the group's tiers (a tiered configuration) */
  tiered: TieredGroup | undefined

  constructor(
    readonly cfg: GroupConfig,
    readonly settings: GroupSettings,
  ) {}
}

export interface PlayerOptions {
  config: SimConfig
  seed: bigint
  /** quick form: instances created on first appearance with these settings */
  quickInstance?: Omit<InstanceConfig, 'instance_id'>
  /** quick form: the block sizes inferred per instance (instead of quickInstance's) */
  quickBlockSizes?: ReadonlyMap<string, number>
  /** check that a get's keys are not fewer than its full blocks (default true; V10 is always checked) */
  blockSizeCheck?: boolean
  /** where an instance's block size came from (for the message of a contradiction) */
  blockSizeSource?: (instanceId: string) => BlockSizeSource
  /**
   * write hit-rate CSVs to these paths (by instance id); the rows are kept as numbers and written at
   * {@link Player.drainCsvs}, off the replay's path (a tiered configuration's as they come)
   */
  csvName?: (instanceId: string) => string | undefined
  strictInstances: boolean
  plots: boolean
  /** only replay rows of these instances (sweeps); others are ignored */
  onlyGroup?: string
  /** capacity used instead of the group's (sweeps) */
  capacityOverride?: {group: string; blocks?: number; gb?: number}
  /** never evict in any group (the infinite oracle) */
  infinite?: boolean
  /** a key id read as an unsigned 64-bit integer, modulo m (the sharded LRU of tiered configurations) */
  keyMod?: (key: number, m: number) => number
  traceName: string
}

function makePolicy(i: InstanceConfig, batch: number, seed: bigint): Policy {
  switch (i.eviction_policy_type) {
    case 'random_lru':
      return new RandomLruPolicy(batch, i.eviction_policy_params.sample_rate, seed)
    case 'leaf_aware_lru':
      return new LeafAwareLruPolicy()
    case 'ttl':
      return new TtlPolicy(i.eviction_policy_params.fallback_on_pressure !== false)
    default:
      return new LruPolicy()
  }
}

interface PendingWrite {
  ts: bigint
  seq: number
  inst: InstState
  keys: readonly number[]
  ttlUs: bigint | undefined
}

export interface SkipCounts {
  unknown_instance: number
  unsupported_query_type: number
  unknownInstances: Map<string, {get: number; write: number; request: number}>
  queryTypes: Map<string, number>
}

/**
 * Plays rows (simulate's pass of a trace through the engine) in trace order against the caches (docs/simulate.md §4.2): GETs, WRITEs, request-mode scheduled writes,
 * eviction after every write; streams the hit-rate CSVs and keeps the counters.
 */
/** The shards of a tiered `lru` without shard_count: the July-2026 generation's sharded default. */
export const DEFAULT_SHARD_COUNT = 1024

/** Whether a tiered instance's LRU is sharded: its blocks' shards then come from their keys' values. */
export function shardsByKey(i: InstanceConfig): boolean {
  return i.eviction_policy_type === 'lru' && (i.eviction_policy_params.shard_count ?? DEFAULT_SHARD_COUNT) > 1
}

export class Player {
  readonly instances = new Map<string, InstState>()
  readonly ordered: InstState[] = []
  readonly groups: GroupState[] = []
  readonly skips: SkipCounts = {
    unknown_instance: 0,
    unsupported_query_type: 0,
    unknownInstances: new Map(),
    queryTypes: new Map(),
  }
  blockLookups = 0
  firstTs: bigint | undefined
  lastTs: bigint | undefined
  /** scheduled writes, a min-heap by (ts, seq) */
  private readonly heap = new BinaryHeap<PendingWrite>(
    (a, b) => a.ts < b.ts || (a.ts === b.ts && a.seq < b.seq),
  )
  private seq = 0
  /** the CSV rows' destination (made when the first CSV is opened) */
  private sink: HitRateSink | undefined
  private readonly byFile: InstState[] = []
  private readonly accWriteOf = (file: number): number => this.byFile[file].accWrite
  /** the read record handed to the sink (reused: the sink reads it at once) */
  private readonly readRecord: ReadRecord = newReadRecord()
  /** the timestamp of the rows waiting in the sink for AccWriteBlocks */
  private bufferTs: bigint | undefined
  private readonly mode: 'read_write' | 'request'
  private readonly delay: bigint

  constructor(private readonly opts: PlayerOptions) {
    this.mode = opts.config.trace_replay.mode
    this.delay = BigInt(opts.config.trace_replay.write_delay_ns)
    for (const g of opts.config.instance_groups) {
      const cfg = this.groupConfig(g)
      const state = new GroupState(cfg, {
        quotaUnits: opts.infinite ? null : quotaUnits(cfg),
        // modes other than 1–3 come only with a tier_strategy, whose groups the tiered model plays
        mode: opts.config.eviction_params.eviction_mode as GroupSettings['mode'],
        batch: opts.config.eviction_params.eviction_batch_size_per_instance,
      })
      this.groups.push(state)
      if (opts.config.tiered) state.tiered = new TieredGroup(this.tieredSetup(cfg))
      for (const i of g.instances) this.addInstance(i, state)
    }
  }

  private groupConfig(g: GroupConfig): GroupConfig {
    const o = this.opts.capacityOverride
    return o && o.group === g.group_name ? groupAtCapacity(g, o) : g
  }

  /** a tiered group's tiers, quotas (bytes) and settings */
  private tieredSetup(g: GroupConfig): TieredGroupSetup {
    const tiers = g.tiers as NonNullable<GroupConfig['tiers']> // every group of a tiered configuration has them
    const quotaOf = (gb: number): number | null =>
      this.opts.infinite || gb < 0 ? null : Math.trunc(Math.trunc(gb * 2 ** 30) * g.used_percentage)
    const ep = this.opts.config.eviction_params
    return {
      tierNames: tiers.hierarchical ? tiers.storages.map((s) => s.name) : ['shared'],
      hierarchical: tiers.hierarchical,
      quotas: tiers.hierarchical
        ? tiers.storages.map((s) => quotaOf(s.capacity))
        : [quotaOf(g.quota_capacity ?? 0)],
      edges: tiers.edges,
      defaultTtlSeconds: BigInt(tiers.defaultTtlSeconds),
      refreshOnRead: tiers.refreshOnRead,
      mode: ep.eviction_mode,
      batch: ep.eviction_batch_size_per_instance,
      seed: this.opts.seed,
    }
  }

  private addInstance(i: InstanceConfig, group: GroupState): InstState {
    const engine = new SimInstance(
      makePolicy(
        i,
        this.opts.config.eviction_params.eviction_mode
          ? this.opts.config.eviction_params.eviction_batch_size_per_instance
          : 100,
        this.opts.seed,
      ),
      weightOf(group.cfg, i),
    )
    const state = new InstState(i, group, engine, this.ordered.length)
    if (group.tiered !== undefined) {
      const p = i.eviction_policy_params
      state.tiered = group.tiered.add(
        {
          id: i.instance_id,
          policy: i.eviction_policy_type as TieredPolicyName,
          shardCount: p.shard_count ?? DEFAULT_SHARD_COUNT,
          sampleTimes: p.sample_times ?? 32,
          amplification: p.eviction_amplification_factor ?? 1,
          sampleRate: p.sample_rate ?? 0,
          fallbackOnPressure: p.fallback_on_pressure !== false,
          bytesPerBlock: i.block_size * (i.bytes_per_token ?? 0),
        },
        this.opts.keyMod ?? ((key, m) => key % m),
      )
      state.accTierHitTokens = group.tiered.setup.tierNames.map(() => 0)
    }
    group.members.push(state)
    group.engines.push(engine)
    this.instances.set(i.instance_id, state)
    this.ordered.push(state)
    return state
  }

  private instanceFor(row: TraceRow): InstState | undefined {
    let inst = this.instances.get(row.instance)
    if (inst === undefined && this.opts.quickInstance) {
      const cfg: InstanceConfig = {instance_id: row.instance, ...this.opts.quickInstance}
      const inferred = this.opts.quickBlockSizes?.get(row.instance)
      if (inferred !== undefined) cfg.block_size = inferred
      this.opts.config.instance_groups[0].instances.push(cfg)
      inst = this.addInstance(cfg, this.groups[0])
    }
    if (inst && this.opts.onlyGroup !== undefined && inst.group.cfg.group_name !== this.opts.onlyGroup)
      return undefined
    return inst
  }

  /** Applies one row; rows must come in replay order. */
  apply(row: TraceRow): void {
    while (this.heap.size > 0 && (this.heap.peek() as PendingWrite).ts <= row.ts) {
      const w = this.heap.pop() as PendingWrite
      this.write(w.inst, w.ts, w.keys, w.ttlUs)
    }
    this.flushBefore(row.ts)
    if (this.firstTs === undefined) this.firstTs = row.ts
    this.lastTs = row.ts
    const inst = this.instanceFor(row)
    if (inst === undefined) {
      if (this.opts.onlyGroup !== undefined && this.instances.has(row.instance)) return
      if (this.opts.strictInstances)
        throw lmtError('SIM_UNKNOWN_INSTANCE', this.opts.traceName, row.lineNo, row.instance)
      this.skips.unknown_instance++
      let c = this.skips.unknownInstances.get(row.instance)
      if (!c) this.skips.unknownInstances.set(row.instance, (c = {get: 0, write: 0, request: 0}))
      c[row.type]++
      return
    }
    if (row.type === 'write') return this.write(inst, row.ts, row.keys, row.ttlUs)
    this.checkBlockSize(row, inst)
    if (row.queryType === 'prefix_match') {
      if (inst.tiered !== undefined) this.tieredGet(inst, inst.tiered, row)
      else this.get(inst, row)
    } else {
      this.skips.unsupported_query_type++
      this.skips.queryTypes.set(row.queryType, (this.skips.queryTypes.get(row.queryType) ?? 0) + 1)
    }
    // (in a tiered configuration a request that is not read schedules no write either)
    if (row.type === 'request' && (row.queryType === 'prefix_match' || inst.tiered === undefined)) {
      const due = row.ts + this.delay
      if (due > INT64_MAX) throw lmtError('SIM_TS_OVERFLOW', this.opts.traceName, row.lineNo)
      this.heap.push({ts: due, seq: this.seq++, inst, keys: row.keys, ttlUs: row.ttlUs})
    }
  }

  /** Applies the remaining scheduled writes and flushes the CSVs. */
  finish(): void {
    while (this.heap.size > 0) {
      const w = this.heap.pop() as PendingWrite
      this.flushBefore(w.ts)
      this.write(w.inst, w.ts, w.keys, w.ttlUs)
    }
    this.flushBefore(undefined)
    for (const i of this.ordered) {
      i.counters.final_cached_blocks = i.tiered?.cachedBlocks ?? i.engine.policy.size
      if (i.tiered !== undefined) i.counters.evictions = i.tiered.evictions
    }
  }

  /** Writes out the CSV rows a deferred writer holds (call between replay batches). */
  drainCsvs(): void {
    this.sink?.drain?.()
  }

  /** Commits (or abandons) the CSV files. */
  async closeCsvs(commit: boolean): Promise<void> {
    const sink = this.sink
    this.sink = undefined
    await sink?.close(commit)
  }

  /**
   * A get's keys are its ⌊input_len / block_size⌋ full blocks: more is a partial tail (V10, always an error),
   * fewer means a block size too small for the trace (an error unless the check is off). Rows without keys do
   * not constrain (see block-size.ts).
   */
  private checkBlockSize(row: TraceRow, inst: InstState): void {
    const k = row.keys.length
    if (k === 0) return
    inst.blockSizeFit.add(k, row.inputLen, row.lineNo)
    const bs = inst.cfg.block_size
    const full = Math.floor(row.inputLen / bs)
    if (full === k || (full > k && this.opts.blockSizeCheck === false)) return
    throw blockSizeError({
      traceName: this.opts.traceName,
      instance: inst.cfg.instance_id,
      blockSize: bs,
      source: this.opts.blockSizeSource?.(inst.cfg.instance_id) ?? 'config',
      keys: k,
      inputLen: row.inputLen,
      lineNo: row.lineNo,
    })
  }

  private cachedAll(): number {
    let n = 0
    const all = this.ordered
    for (let k = 0; k < all.length; k++) n += all[k].tiered?.cachedBlocks ?? all[k].engine.policy.size
    return n
  }

  private get(inst: InstState, row: TraceRow): void {
    const r = inst.engine.get(row.keys, row.mask, row.ts)
    this.recordRead(inst, row, r, inst.engine.policy.size)
  }

  /** A read of a tiered instance (docs/simulate.md §10.4): expiry, lookup, eviction after promotions, then the record. */
  private tieredGet(inst: InstState, tiered: TieredInstance, row: TraceRow): void {
    const group = tiered.group
    group.expire(row.ts)
    const r = tiered.read(row.keys, row.mask, row.ts)
    if (tiered.wrote) group.evictIfNeeded(tiered, row.ts)
    const hits = tiered.tierHits
    const bs = inst.cfg.block_size
    for (let t = 0; t < hits.length; t++) inst.accTierHitTokens[t] += hits[t] * bs
    this.recordRead(inst, row, r, tiered.cachedBlocks, tiered)
  }

  /** A read's counters, plot point and CSV row (with a tiered instance's tier fields). */
  private recordRead(
    inst: InstState,
    row: TraceRow,
    r: {localRead: number; localHit: number; remoteHit: number},
    cached: number,
    tiered?: TieredInstance,
  ): void {
    this.blockLookups += row.keys.length
    const c = inst.counters
    const bs = inst.cfg.block_size
    const hit = r.localHit + r.remoteHit
    c.get_rows++
    c.read_blocks += row.keys.length
    c.local_read_blocks += r.localRead
    c.hit_blocks += hit
    c.local_hit_blocks += r.localHit
    c.remote_hit_blocks += r.remoteHit
    c.input_tokens += row.inputLen
    c.hit_tokens += hit * bs
    c.local_hit_tokens += r.localHit * bs
    c.remote_hit_tokens += r.remoteHit * bs
    if (cached > c.peak_cached_blocks) c.peak_cached_blocks = cached
    if (this.opts.plots) inst.addPlotPoint(row.ts, rate(c.hit_tokens, c.input_tokens))
    if (inst.csvPath === undefined) inst.csvPath = this.opts.csvName?.(inst.cfg.instance_id) ?? null
    if (inst.csvPath === null) return
    const sink = (this.sink ??= this.newSink())
    if (inst.csvFile < 0) {
      inst.csvFile = this.byFile.length
      this.byFile.push(inst)
      sink.open(inst.csvFile, inst.csvPath)
    }
    const rec = this.readRecord
    rec.cached = cached
    rec.cachedAll = this.cachedAll()
    rec.read = row.keys.length
    rec.localHit = r.localHit
    rec.remoteHit = r.remoteHit
    rec.inputTokens = row.inputLen
    rec.bs = bs
    if (tiered !== undefined)
      (sink as TieredHitRateSink).tierFields(
        tiered.tierHits,
        bs,
        inst.accTierHitTokens,
        tiered.policies,
        row.inputLen,
        c.input_tokens,
      )
    sink.row(inst.csvFile, row.ts, rec, c)
    this.bufferTs = row.ts
  }

  /** The CSV rows' destination: a tiered configuration's rows end with their tier fields. */
  private newSink(): HitRateSink {
    if (this.opts.config.tiered)
      return new TieredHitRateSink((file) =>
        tierColumns((this.byFile[file].group.tiered as TieredGroup).setup.tierNames),
      )
    return new DeferredHitRateSink()
  }

  private write(inst: InstState, ts: bigint, keys: readonly number[], ttlUs?: bigint): void {
    this.flushBefore(ts)
    const tiered = inst.tiered
    if (tiered !== undefined) {
      const group = tiered.group
      group.expire(ts)
      tiered.insert(keys, ts, group.ttlOf(ttlUs))
      group.evictIfNeeded(tiered, ts)
    } else {
      inst.counters.newly_inserted_blocks += inst.engine.insert(keys, ts)
      evictIfNeeded(inst.group.engines, inst.group.settings, inst.engine)
      const members = inst.group.members
      for (let k = 0; k < members.length; k++) members[k].counters.evictions = members[k].engine.evictions
    }
    this.blockLookups += keys.length
    inst.counters.write_rows++
    inst.counters.write_blocks += keys.length
    inst.accWrite += keys.length
  }

  /** Finishes buffered CSV rows once replay moves past their timestamp (AccWriteBlocks is then known). */
  private flushBefore(ts: bigint | undefined): void {
    // bufferTs is set exactly while rows wait in the sink
    if (this.bufferTs === undefined || (ts !== undefined && ts <= this.bufferTs)) return
    this.sink?.complete(this.accWriteOf)
    this.bufferTs = undefined
  }
}
