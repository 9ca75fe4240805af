// The units of a sweep (docs/simulate.md §6.5): a point's play or a Belady reference, run by a SweepTaskRunner on
// the rows (run-tasks.ts runs a list of them).
import type {SimConfig} from '../config/config.js'
import type {GroupCapacity} from '../config/capacity.js'
import {type BeladyGroupResult, prepareBelady} from '../oracles/belady.js'
import {type PlayerOptions as ReplayOptions, type PointResult, Player as Replayer} from '../engine/player.js'
import type {TraceRow} from '../input/trace-rows.js'
import {unsignedModOf} from '../input/key-interner.js'

/** The cloneable part of a point's Replayer options. */
export interface PointJob {
  base: Pick<ReplayOptions, 'seed' | 'strictInstances' | 'traceName'>
  config: SimConfig
  groupName: string
  /** a tiered play's key values (KeyInterner.sharedValues): the sharded LRU's shards are theirs */
  keyValues?: Uint32Array
}

/** The player's key-value reader over `values` (none: the play reads no key's value). */
export function keyModOf(values: Uint32Array | undefined): ReplayOptions['keyMod'] {
  return values === undefined ? undefined : (key, m) => unsignedModOf(values, key, m)
}

/** Replays one point (the same options on the main thread and in a worker; point CSVs only on the main thread). */
export function replayPoint(
  rows: Iterable<TraceRow>,
  job: PointJob,
  cap: GroupCapacity,
  csvName?: (instanceId: string) => string,
): Replayer {
  const r = new Replayer({
    ...job.base,
    config: structuredClone(job.config),
    quickInstance: undefined,
    plots: false,
    onlyGroup: job.groupName,
    capacityOverride: {group: job.groupName, ...cap},
    csvName,
    strictInstances: false,
    keyMod: keyModOf(job.keyValues),
  })
  for (const row of rows) r.apply(row)
  r.finish()
  return r
}

export function pointResult(r: Replayer, groupName: string): PointResult {
  const g = r.groups.find((x) => x.cfg.group_name === groupName) as Replayer['groups'][number]
  return {
    blockLookups: r.blockLookups,
    strandedExpiries: g.tiered?.strandedExpiries,
    groupCfg: g.cfg,
    members: g.members.map((m) => ({
      instanceId: m.cfg.instance_id,
      weight: m.engine.weight,
      counters: m.counters,
      ...(m.tiered
        ? {tiers: {hitTokens: [...m.accTierHitTokens], blocks: m.tiered.policies.map((p) => p.size)}}
        : {}),
    })),
  }
}

/**
 * One unit of a sweep: a point's replay (of the job's configuration, or of `config`, one that differs from it only
 * in policies), or the Belady reference at a point's capacity.
 */
export type SweepTask =
  {kind: 'replay'; cap: GroupCapacity; config?: SimConfig} | {kind: 'belady'; capConfig: SimConfig}
export type SweepTaskResult = PointResult | BeladyGroupResult[]

/** Runs tasks for one thread; Belady's next-need pass is prepared once, on the first Belady task. */
export class SweepTaskRunner {
  private belady: ((capCfg: SimConfig) => BeladyGroupResult[]) | undefined
  /** the replayer of the last replay task run here */
  lastReplayer: Replayer | undefined

  /** `rows`: the rows in memory (this thread), or a function giving them afresh for each use (a worker) */
  constructor(
    private readonly rows: readonly TraceRow[] | (() => Iterable<TraceRow>),
    private readonly job: PointJob,
  ) {}

  private source(): Iterable<TraceRow> {
    return typeof this.rows === 'function' ? this.rows() : this.rows
  }

  run(task: SweepTask): SweepTaskResult {
    if (task.kind === 'replay') {
      const job = task.config ? {...this.job, config: task.config} : this.job
      this.lastReplayer = replayPoint(this.source(), job, task.cap)
      return pointResult(this.lastReplayer, this.job.groupName)
    }
    this.belady ??= prepareBelady([...this.source()], this.job.config, this.job.groupName)
    return this.belady(task.capConfig)
  }
}
