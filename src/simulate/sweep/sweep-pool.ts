// Sweep points replayed on worker threads (docs/simulate.md §6.5): the rows are encoded once into typed arrays on shared
// memory; every worker replays the points it is handed straight from them (a row object exists only while it is
// replayed, so a worker's memory does not grow with the trace); results come back in point order.
import {WorkerPool} from '../../util/workers/worker-pool.js'
import {eventLoopTurn} from '../../util/event-loop-turn.js'
import type {GroupConfig, SimConfig} from '../config/config.js'
import {type BeladyGroupResult, prepareBelady} from '../oracles/belady.js'
import {
  type InstanceCounters,
  type PlayerOptions as ReplayOptions,
  Player as Replayer,
} from '../engine/player.js'
import type {TraceRow} from '../input/trace-rows.js'
import {readRowSlot, type RowSlotArrays, RowSlotWriter, StringTableWriter} from '../input/row-batch-codec.js'

/** Rows as typed arrays on shared memory (the parsing thread's slot layout): the workers see the same bytes. */
export interface EncodedRows extends RowSlotArrays {
  n: number
  strings: string[]
}

export function encodeRows(rows: readonly TraceRow[]): EncodedRows {
  const strings = new StringTableWriter()
  const slot = new RowSlotWriter()
  slot.append(rows, strings)
  const batch = slot.batch(strings)
  return {...(batch.arrays as RowSlotArrays), n: batch.n, strings: batch.strings}
}

/** rows decoded at a time (fresh objects: the replay may keep their keys, e.g. for a scheduled write) */
const DECODE_CHUNK = 256

/** The rows of an encoding, decoded a few hundred at a time. */
export function* encodedRows(e: EncodedRows): Generator<TraceRow> {
  for (let start = 0; start < e.n; start += DECODE_CHUNK)
    yield* readRowSlot(e, start, Math.min(e.n, start + DECODE_CHUNK), e.strings)
}

/** What the sweep needs from one point's replay. */
export interface PointResult {
  blockLookups: number
  groupCfg: GroupConfig
  members: Array<{instanceId: string; weight: number; counters: InstanceCounters}>
}

export type SweepCapacity = {blocks?: number; gb?: number}

/** The cloneable part of a point's Replayer options. */
export interface PointJob {
  base: Pick<ReplayOptions, 'seed' | 'strictInstances' | 'traceName'>
  config: SimConfig
  groupName: string
}

/** Replays one point (the same options on the main thread and in a worker; point CSVs only on the main thread). */
export function replayPoint(
  rows: Iterable<TraceRow>,
  job: PointJob,
  cap: SweepCapacity,
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
  })
  for (const row of rows) r.apply(row)
  r.finish()
  return r
}

export function pointResult(r: Replayer, groupName: string): PointResult {
  const g = r.groups.find((x) => x.cfg.group_name === groupName) as Replayer['groups'][number]
  return {
    blockLookups: r.blockLookups,
    groupCfg: g.cfg,
    members: g.members.map((m) => ({
      instanceId: m.cfg.instance_id,
      weight: m.engine.weight,
      counters: m.counters,
    })),
  }
}

/**
 * One unit of a sweep: a point's replay (of the job's configuration, or of `config`, one that differs from it only
 * in policies), or the Belady reference at a point's capacity.
 */
export type SweepTask =
  {kind: 'replay'; cap: SweepCapacity; config?: SimConfig} | {kind: 'belady'; capConfig: SimConfig}
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

/**
 * Runs `tasks` on this thread and `jobs - 1` worker threads: workers take tasks from the front, this thread from
 * the back — so it runs the last task first and returns that replayer (the caller puts the replay whose replayer
 * it needs last). Results in task order. A task for which `skip` (asked when the task would be handed out, with
 * the results so far) says true is not run: its result stays undefined.
 */
export async function runSweepTasks(
  rows: readonly TraceRow[],
  job: PointJob,
  tasks: readonly SweepTask[],
  jobs: number,
  /** called with a task's index when it is done */
  onDone?: (index: number) => void,
  skip?: (index: number, results: ReadonlyArray<SweepTaskResult | undefined>) => boolean,
): Promise<{results: SweepTaskResult[]; last: Replayer | undefined}> {
  const results = new Array<SweepTaskResult>(tasks.length)
  let front = 0
  let back = tasks.length - 1
  let last: Replayer | undefined
  const count = Math.max(0, Math.min(jobs - 1, tasks.length - 1))
  const pool = new WorkerPool<SweepTask, SweepTaskResult>({
    name: 'sweep',
    entry: new URL('./sweep-worker.js', import.meta.url),
    workerData: {encoded: encodeRows(rows), job},
    count,
  })
  // each thread takes the next task from the front when it is done with one
  const inWorkers = Array.from({length: count}, async (_, w) => {
    for (;;) {
      while (front <= back && skip?.(front, results)) front++
      if (front > back) return
      const index = front++
      results[index] = await pool.call(w, tasks[index])
      onDone?.(index)
    }
  })
  inWorkers.forEach((p) => p.catch(() => {})) // observed below
  const here = new SweepTaskRunner(rows, job)
  try {
    await eventLoopTurn() // a Ctrl-C that came while the rows were encoded, before the first replay here
    while (front <= back) {
      const index = back--
      if (skip?.(index, results)) continue
      results[index] = here.run(tasks[index])
      if (index === tasks.length - 1) last = here.lastReplayer
      onDone?.(index)
      await eventLoopTurn() // the workers' messages, and a Ctrl-C
    }
    await Promise.all(inWorkers)
  } finally {
    await pool.close()
  }
  return {results, last}
}
