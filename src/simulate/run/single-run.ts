// A run at the configured capacities: the trace streamed through one Player, parsed a batch at a time and played
// with the play timed apart from parsing and from writing CSV rows (docs/simulate.md §5.4); a trace found out of
// order is re-read, stable-sorted and played from memory. The block sizes are settled before the play
// (run/block-sizes.ts).
import {Notes} from '../config/notes.js'
import {PLAY_BATCH, playRows} from '../engine/play-rows.js'
import {DEFAULT_SHARD_COUNT, Player, shardsByKey} from '../engine/player.js'
import {loadSorted} from '../input/sorted-rows.js'
import {KeyShards} from '../input/key-interner.js'
import {KeyInterner, type TraceRow} from '../input/trace-rows.js'
import {newStats, readTraceRowBatches, type TraceReadOptions} from '../input/trace-source.js'
import {loadTieredSetupRows, type RunSizes, settleRunSizes, withTraceFit} from './block-sizes.js'
import {runOracles} from './oracles.js'
import type {RunSetup} from './setup.js'
import type {RunResult} from './summary-doc.js'

interface SingleRun {
  main: Player
  /** the trace was in timestamp order */
  sorted: boolean
  playSeconds: number
  /** writing deferred CSV rows (neither parsing nor play) */
  writeSeconds: number
  /** the rows, when the run had to hold them (a re-sorted trace) */
  rowsInMemory?: TraceRow[]
  /** the block sizes it played with */
  sizes: RunSizes
}

/** A streamed play: its Player is made once the first batch of rows is read (from the sizes they imply). */
type StreamedPlay = Omit<SingleRun, 'sizes'> & {unsortedAt?: number}

/**
 * Plays the trace at the configured capacities (its CSVs committed, the instances without a get noted), then the
 * oracles asked for (their lines into `lines`).
 */
export async function runSingle(setup: RunSetup, lines: string[]): Promise<RunResult> {
  const parseStart = performance.now()
  const run = await playSettled(setup)
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
  const {sizes, playSeconds} = run
  const parseSeconds = (performance.now() - parseStart) / 1000 - playSeconds - run.writeSeconds
  const oracles = await runOracles(setup, sizes, main, run.rowsInMemory ?? sizes.rowsInMemory, lines)
  return {
    effective: main,
    main,
    sorted: run.sorted,
    oracles,
    sweepDoc: null,
    playSeconds,
    parseSeconds,
    jobs: 1,
    sizes,
  }
}

/**
 * The streamed play with the block sizes settled before it. After a row out of order the trace is read whole,
 * sorted and played from memory. A tiered configuration's rows are read with their TTLs (and, for a sharded LRU, its
 * keys' shards), streamed only while the timestamps strictly increase (then the July-2026 Optimizer's
 * unstable sort leaves the rows as they are), else played in that sort's order.
 */
async function playSettled(setup: RunSetup): Promise<SingleRun> {
  const sizes = await settleRunSizes(setup)
  const tiered = setup.cfg.tiered === true
  // only a sharded LRU reads its keys (their shards); any other play leaves the interner to the reading
  const shardCounts = new Set<number>()
  if (tiered)
    for (const g of setup.cfg.instance_groups)
      for (const i of g.instances)
        if (shardsByKey(i)) shardCounts.add(i.eviction_policy_params.shard_count ?? DEFAULT_SHARD_COUNT)
  const streamShards = shardCounts.size > 0 ? new KeyShards([...shardCounts]) : undefined
  const player = (keyMod?: (key: number, m: number) => number) => () => newMainPlayer(setup, sizes, keyMod)
  let run: SingleRun
  try {
    const streamed = await streamPlay(
      setup,
      player(streamShards && ((k, m) => streamShards.shardOf(k, m))),
      streamShards,
    )
    run = {...streamed, sizes}
    if (streamed.unsortedAt !== undefined) {
      const held = tiered ? await tieredRows(setup) : await resortedRows(setup, streamed.unsortedAt)
      const keys = held.keys
      const played = playRows(held.rows, player(keys && ((k, m) => keys.unsignedMod(k, m))))
      run = {
        main: played.player,
        sorted: held.ordered,
        playSeconds: played.seconds,
        writeSeconds: played.writeSeconds,
        rowsInMemory: held.rows,
        sizes,
      }
    }
  } catch (err) {
    throw await withTraceFit(setup, sizes, err)
  }
  if (tiered) reportStranded(setup, run.main)
  return run
}

/** A tiered configuration's rows read whole, in the July-2026 Optimizer's order (its unstable sort's, for ties). */
async function tieredRows(setup: RunSetup): Promise<{rows: TraceRow[]; ordered: boolean; keys: KeyInterner}> {
  Object.assign(setup.stats, newStats(setup.tracePath))
  return await loadTieredSetupRows(setup)
}

/** The warning of a tiered play whose TTL stranded blocks in another tier (docs/simulate.md §10.6). */
function reportStranded(setup: RunSetup, player: Player): void {
  const stranded = player.groups.reduce((n, g) => n + (g.tiered?.strandedExpiries ?? 0), 0)
  if (stranded > 0)
    setup.notes.add(
      'LMT_SIM_TTL_STRANDED',
      `${stranded} blocks expired through one tier while another tier's ttl policy still held them (its expiry event had gone stale when a copy or an access in another tier moved the shared TTL anchor); lmt removed them from every tier. The Optimizer keeps them listed in that tier after freeing them, and its results on this configuration are undefined (it can crash)`,
      'warning',
    )
}

/** A player of the run that writes its CSVs (rows kept as numbers and written between batches). */
function newMainPlayer(
  setup: RunSetup,
  sizes: RunSizes,
  keyMod?: (key: number, m: number) => number,
): Player {
  return new Player({
    ...sizes.baseOptions,
    keyMod,
    config: structuredClone(setup.cfg),
    // CSV rows are written between play batches, outside the play's timer
    csvName: setup.csvNames.stagedIn(setup.out),
    plots: setup.req.plots,
  })
}

/**
 * The streamed play: stops at the first row out of timestamp order (`unsortedAt`, its CSVs removed). The loops
 * are the measured path of a single run: rows are parsed a batch at a time and then played, so the play runs with
 * warm caches and its timer measures the play rather than the interleaved parsing.
 */
async function streamPlay(
  setup: RunSetup,
  makePlayer: () => Player,
  shards?: KeyShards,
): Promise<StreamedPlay> {
  const tiered = setup.cfg.tiered === true
  let main: Player | undefined
  let prev: bigint | undefined
  let unsortedAt: number | undefined
  let playTime = 0
  let writeTime = 0 // CSV rows written between the batches: neither parsing nor play
  const batch: TraceRow[] = []
  const playBatch = (): Player => {
    const player = (main ??= makePlayer())
    const t0 = performance.now()
    for (let i = 0; i < batch.length; i++) player.apply(batch[i])
    batch.length = 0
    const t1 = performance.now()
    playTime += t1 - t0
    player.drainCsvs()
    writeTime += performance.now() - t1
    return player
  }
  try {
    read: for await (const rows of traceRows(setup, shards)) {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]
        // a tiered play also stops at a repeated timestamp: the Optimizer's unstable sort may reorder those rows
        if (prev !== undefined && (row.ts < prev || (tiered && row.ts === prev))) {
          unsortedAt = row.lineNo
          break read
        }
        prev = row.ts
        batch.push(row)
        if (batch.length === PLAY_BATCH) playBatch()
      }
    }
    if (unsortedAt === undefined) {
      const player = playBatch()
      const t0 = performance.now()
      player.finish()
      playTime += performance.now() - t0
    }
  } catch (err) {
    await main?.closeCsvs(false)
    throw err
  }
  main ??= makePlayer()
  if (unsortedAt !== undefined) await main.closeCsvs(false)
  return {main, sorted: true, playSeconds: playTime / 1000, writeSeconds: writeTime / 1000, unsortedAt}
}

/** The rows of the streamed play, a batch at a time. */
function traceRows(setup: RunSetup, keyShards?: KeyShards): AsyncGenerator<TraceRow[]> {
  const {req, cfg, stats} = setup
  const opts: Omit<TraceReadOptions, 'keys'> = {
    path: setup.tracePath,
    name: setup.traceName,
    skipInvalid: req.skipInvalid,
    mode: cfg.trace_replay.mode,
    onBytes: (b) => req.onProgress?.({bytes: b, total: stats.bytes, rows: stats.rows}),
  }
  // a sharded LRU reads its keys' shards, handed over with the rows by the thread that interns the keys
  return readTraceRowBatches(
    {
      ...opts,
      keys: KeyInterner.forTraceBytes(stats.bytes),
      keysPrivate: true,
      tieredRows: cfg.tiered === true,
      keyShards,
    },
    stats,
  )
}

/** The trace re-read into memory and stable-sorted (after a row out of order at line `unsortedAt`). */
async function resortedRows(
  setup: RunSetup,
  unsortedAt: number,
): Promise<{rows: TraceRow[]; ordered: false; keys?: KeyInterner}> {
  const {tracePath, traceName} = setup
  setup.notes.add(
    'LMT_SIM_RESORT',
    `${traceName}:${unsortedAt}: the trace is not sorted by timestamp_ns; it was re-read and stable-sorted in memory`,
  )
  const stats2 = newStats(tracePath)
  // the same read as a sweep's (its own resort notice is not needed: the one above says more)
  const rows = await loadSorted(tracePath, traceName, setup.resolved, setup.req, stats2, new Notes())
  Object.assign(setup.stats, stats2)
  return {rows, ordered: false}
}
