// A sweep's tasks run (docs/simulate.md §6.5): on this thread, or also on worker threads when the accelerators put
// them in (through seams.ts); results come back in task order either way, so they never depend on --jobs.
import {eventLoopTurn} from '../../util/event-loop-turn.js'
import type {TraceRow} from '../input/trace-rows.js'
import type {Player} from '../engine/player.js'
import {plainPaths} from '../../util/plain.js'
import {type PointJob, type SweepTask, type SweepTaskResult, SweepTaskRunner} from './sweep-tasks.js'

/** Worker threads that run sweep tasks over the rows they were started with. */
export interface SweepWorkers {
  call(worker: number, task: SweepTask): Promise<SweepTaskResult>
  close(): Promise<void>
}

/** Starts `count` worker threads over `rows`. */
export type StartSweepWorkers = (rows: readonly TraceRow[], job: PointJob, count: number) => SweepWorkers

let startWorkers: StartSweepWorkers | undefined

/** Puts the sweep's worker threads in (seams.ts), or takes them out (undefined). */
export function useSweepWorkers(start: StartSweepWorkers | undefined): void {
  startWorkers = start
}

/**
 * Runs `tasks` on this thread and, with the accelerators in, `jobs - 1` worker threads: workers take tasks from the
 * front, this thread from the back — so it runs the last task first and returns that replayer (the caller puts the replay whose replayer
 * it needs last). Results in task order; `threads`: the threads that ran them. A task for which `skip` (asked when the task would be handed out, with
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
): Promise<{results: SweepTaskResult[]; last: Player | undefined; threads: number}> {
  const results = new Array<SweepTaskResult>(tasks.length)
  let front = 0
  let back = tasks.length - 1
  let last: Player | undefined
  const wanted = Math.max(0, Math.min(jobs - 1, tasks.length - 1))
  const pool = wanted > 0 && !plainPaths() ? startWorkers?.(rows, job, wanted) : undefined
  const count = pool === undefined ? 0 : wanted
  // each thread takes the next task from the front when it is done with one
  const inWorkers = Array.from({length: count}, async (_, w) => {
    for (;;) {
      while (front <= back && skip?.(front, results)) front++
      if (front > back) return
      const index = front++
      results[index] = await (pool as SweepWorkers).call(w, tasks[index])
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
    await pool?.close()
  }
  return {results, last, threads: count + 1}
}
