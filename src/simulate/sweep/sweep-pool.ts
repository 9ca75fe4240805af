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
import type {RowType, TraceRow} from '../input/trace-rows.js'

const TYPES: RowType[] = ['get', 'write', 'request']

/** Rows as typed arrays (structured-cloneable without a per-row object). */
export interface EncodedRows {
  n: number
  strings: string[]
  type: Uint8Array
  instance: Int32Array
  query: Int32Array
  ts: BigInt64Array
  inputLen: Float64Array
  lineNo: Float64Array
  keyStart: Int32Array
  keys: Int32Array
  /** mask as an offset, or NaN when it is a list (then maskStart/maskBits hold it) */
  maskNum: Float64Array
  maskStart: Int32Array
  maskBits: Uint8Array
}

/** Typed arrays on shared memory: the workers see the same bytes, nothing is copied per worker. */
const shared = {
  u8: (n: number) => new Uint8Array(new SharedArrayBuffer(Math.max(1, n))),
  i32: (n: number) => new Int32Array(new SharedArrayBuffer(Math.max(1, n) * 4)),
  f64: (n: number) => new Float64Array(new SharedArrayBuffer(Math.max(1, n) * 8)),
  i64: (n: number) => new BigInt64Array(new SharedArrayBuffer(Math.max(1, n) * 8)),
}

export function encodeRows(rows: readonly TraceRow[]): EncodedRows {
  const n = rows.length
  const strings: string[] = []
  const index = new Map<string, number>()
  const str = (s: string): number => {
    let i = index.get(s)
    if (i === undefined) index.set(s, (i = strings.push(s) - 1))
    return i
  }
  let keyCount = 0
  let maskCount = 0
  for (const r of rows) {
    keyCount += r.keys.length
    if (Array.isArray(r.mask)) maskCount += r.mask.length
  }
  const e: EncodedRows = {
    n,
    strings,
    type: shared.u8(n),
    instance: shared.i32(n),
    query: shared.i32(n),
    ts: shared.i64(n),
    inputLen: shared.f64(n),
    lineNo: shared.f64(n),
    keyStart: shared.i32(n + 1),
    keys: shared.i32(keyCount),
    maskNum: shared.f64(n),
    maskStart: shared.i32(n + 1),
    maskBits: shared.u8(maskCount),
  }
  let k = 0
  let m = 0
  for (let i = 0; i < n; i++) {
    const r = rows[i]
    e.type[i] = TYPES.indexOf(r.type)
    e.instance[i] = str(r.instance)
    e.query[i] = str(r.queryType)
    e.ts[i] = r.ts
    e.inputLen[i] = r.inputLen
    e.lineNo[i] = r.lineNo
    e.keyStart[i] = k
    for (const id of r.keys) e.keys[k++] = id
    e.maskStart[i] = m
    if (Array.isArray(r.mask)) {
      e.maskNum[i] = NaN
      for (const b of r.mask) e.maskBits[m++] = b ? 1 : 0
    } else e.maskNum[i] = r.mask
  }
  e.keyStart[n] = k
  e.maskStart[n] = m
  return e
}

/** Row `i` of an encoding, as a fresh object (the replay may keep its keys, e.g. for a scheduled write). */
export function decodeRow(e: EncodedRows, i: number): TraceRow {
  const mask = Number.isNaN(e.maskNum[i])
    ? Array.from(e.maskBits.subarray(e.maskStart[i], e.maskStart[i + 1]), (b) => b === 1)
    : e.maskNum[i]
  return {
    type: TYPES[e.type[i]],
    instance: e.strings[e.instance[i]],
    ts: e.ts[i],
    keys: Array.from(e.keys.subarray(e.keyStart[i], e.keyStart[i + 1])),
    inputLen: e.inputLen[i],
    mask,
    queryType: e.strings[e.query[i]],
    lineNo: e.lineNo[i],
  }
}

/** The rows of an encoding, decoded one at a time. */
export function* encodedRows(e: EncodedRows): Generator<TraceRow> {
  for (let i = 0; i < e.n; i++) yield decodeRow(e, i)
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
