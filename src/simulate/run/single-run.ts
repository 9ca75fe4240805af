// A run at the configured capacities: the trace streamed through one Player, parsed a batch at a time and played
// with the play timed apart from parsing and from writing CSV rows (docs/simulate.md §5.4); a trace found out of
// order is re-read, stable-sorted and played from memory.
import {Notes} from '../config/notes.js'
import {PLAY_BATCH, playRows} from '../engine/play-rows.js'
import {Player} from '../engine/player.js'
import {loadSorted} from '../input/sorted-rows.js'
import {KeyInterner, type TraceRow} from '../input/trace-rows.js'
import {parsesOnThread, readTraceRowBatchesOnThread} from '../input/parse-thread.js'
import {newStats, readTraceRowBatches, type TraceReadOptions} from '../input/trace-source.js'
import {type RunSizes, withTraceFit} from './block-sizes.js'
import type {RunSetup} from './setup.js'

export interface SingleRun {
  main: Player
  /** the trace was in timestamp order */
  sorted: boolean
  playSeconds: number
  /** writing deferred CSV rows (neither parsing nor play) */
  writeSeconds: number
  /** the rows, when the run had to hold them (a re-sorted trace) */
  rowsInMemory?: TraceRow[]
}

/** Plays the trace at the configured capacities, its CSVs committed, the instances without a get noted. */
export async function runSingle(setup: RunSetup, sizes: RunSizes): Promise<SingleRun> {
  let run = await streamPlay(setup, sizes)
  if (run.unsortedAt !== undefined) run = await playResorted(setup, sizes, run.unsortedAt)
  const main = run.main
  await main.closeCsvs(true)
  for (const i of main.ordered) {
    if (i.counters.get_rows === 0)
      setup.notes.add(
        'LMT_SIM_NO_READS',
        `instance "${i.cfg.instance_id}" had no replayed get; no CSV is written for it`,
      )
    else setup.outputs.push(setup.csvNames.nameOf(i.cfg.instance_id) as string)
  }
  return run
}

/** A player of the run that writes its CSVs (rows kept as numbers and written between batches). */
function newMainPlayer(setup: RunSetup, sizes: RunSizes): Player {
  return new Player({
    ...sizes.baseOptions,
    config: structuredClone(setup.cfg),
    csvName: setup.csvNames.stagedIn(setup.out),
    // CSV rows are written between play batches, outside the play's timer
    csvWriter: 'deferred',
    plots: setup.req.plots,
  })
}

/**
 * The streamed play: stops at the first row out of timestamp order (`unsortedAt`, its CSVs removed). The loops
 * are the measured path of a single run: rows are parsed a batch at a time and then played, so the play runs with
 * warm caches and its timer measures the play rather than the interleaved parsing (or, for a large trace, the
 * parsing thread runs ahead while this one plays).
 */
async function streamPlay(setup: RunSetup, sizes: RunSizes): Promise<SingleRun & {unsortedAt?: number}> {
  const main = newMainPlayer(setup, sizes)
  let prev: bigint | undefined
  let unsortedAt: number | undefined
  let playTime = 0
  let writeTime = 0 // CSV rows written between the batches: neither parsing nor play
  const batch: TraceRow[] = []
  const playBatch = (): void => {
    const t0 = performance.now()
    for (let i = 0; i < batch.length; i++) main.apply(batch[i])
    batch.length = 0
    const t1 = performance.now()
    playTime += t1 - t0
    main.drainCsvs()
    writeTime += performance.now() - t1
  }
  try {
    read: for await (const rows of traceRows(setup)) {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]
        if (prev !== undefined && row.ts < prev) {
          unsortedAt = row.lineNo
          break read
        }
        prev = row.ts
        batch.push(row)
        if (batch.length === PLAY_BATCH) playBatch()
      }
    }
    if (unsortedAt === undefined) {
      playBatch()
      const t0 = performance.now()
      main.finish()
      playTime += performance.now() - t0
    }
  } catch (err) {
    await main.closeCsvs(false)
    throw await withTraceFit(setup, sizes, err)
  }
  if (unsortedAt !== undefined) await main.closeCsvs(false)
  return {main, sorted: true, playSeconds: playTime / 1000, writeSeconds: writeTime / 1000, unsortedAt}
}

/** The rows of the streamed play, parsed on a worker thread for a large trace (input/parse-thread.ts). */
function traceRows(setup: RunSetup): AsyncGenerator<TraceRow[]> {
  const {req, cfg, stats} = setup
  const opts: Omit<TraceReadOptions, 'keys'> = {
    path: setup.tracePath,
    name: setup.traceName,
    skipInvalid: req.skipInvalid,
    mode: cfg.trace_replay.mode,
    onBytes: (b) => req.onProgress?.({bytes: b, total: stats.bytes, rows: stats.rows}),
  }
  if (parsesOnThread(req.parseThread, stats.bytes)) return readTraceRowBatchesOnThread(opts, stats)
  return readTraceRowBatches({...opts, keys: KeyInterner.forTraceBytes(stats.bytes)}, stats)
}

/** The trace re-read into memory, stable-sorted and played (after a row out of order at line `unsortedAt`). */
async function playResorted(setup: RunSetup, sizes: RunSizes, unsortedAt: number): Promise<SingleRun> {
  const {tracePath, traceName} = setup
  setup.notes.add(
    'LMT_SIM_RESORT',
    `${traceName}:${unsortedAt}: the trace is not sorted by timestamp_ns; it was re-read and stable-sorted in memory`,
  )
  const stats2 = newStats(tracePath)
  // the same read as a sweep's (its own resort notice is not needed: the one above says more)
  const rows = await loadSorted(tracePath, traceName, setup.resolved, setup.req, stats2, new Notes())
  Object.assign(setup.stats, stats2)
  let run: ReturnType<typeof playRows>
  try {
    run = playRows(rows, () => newMainPlayer(setup, sizes))
  } catch (err) {
    throw await withTraceFit(setup, sizes, err)
  }
  return {
    main: run.player,
    sorted: false,
    playSeconds: run.seconds,
    writeSeconds: run.writeSeconds,
    rowsInMemory: rows,
  }
}
