// Rows held in memory (sweeps, oracles, a re-sorted trace): loading them sorted, and replaying them with the replay
// timed apart from the writing of deferred CSV rows.
import {KeyInterner, type TraceRow} from '../input/trace-rows.js'
import {readTraceRowBatches, type TraceReadStats} from '../input/trace-source.js'
import type {ResolvedConfig} from '../config/config.js'
import type {Notes} from '../config/notes.js'
import type {Replayer} from './replayer.js'
import type {SimulateRequest} from '../config/request.js'

export interface ReplayRun {
  replayer: Replayer
  /** in the replay */
  seconds: number
  /** writing deferred CSV rows between replay batches */
  writeSeconds: number
}

/** rows replayed between two writes of deferred CSV rows (which stay out of the replay's time) */
export const REPLAY_BATCH = 256

/** Replays rows held in memory (sorted). */
/** `onBatch(done, total)`: rows replayed so far, after each batch (for a progress bar). */
export function replayRows(
  rows: readonly TraceRow[],
  make: () => Replayer,
  onBatch?: (done: number, total: number) => void,
): ReplayRun {
  const r = make()
  let seconds = 0
  let written = 0
  try {
    for (let start = 0; start < rows.length; start += REPLAY_BATCH) {
      const t0 = performance.now()
      const end = Math.min(rows.length, start + REPLAY_BATCH)
      for (let i = start; i < end; i++) r.apply(rows[i])
      const t1 = performance.now()
      seconds += t1 - t0
      r.drainCsvs()
      written += performance.now() - t1
      onBatch?.(end, rows.length)
    }
    const t0 = performance.now()
    r.finish()
    seconds += performance.now() - t0
  } catch (err) {
    r.closeCsvs(false).catch(() => {}) // the files are removed; the error is the one to report
    throw err
  }
  return {replayer: r, seconds: seconds / 1000, writeSeconds: written / 1000}
}

function stableSortRows(rows: TraceRow[]): TraceRow[] {
  return rows
    .map((row, i) => ({row, i}))
    .sort((a, b) => (a.row.ts < b.row.ts ? -1 : a.row.ts > b.row.ts ? 1 : a.i - b.i))
    .map((x) => x.row)
}

export async function loadSorted(
  path: string,
  name: string,
  resolved: ResolvedConfig,
  req: Pick<SimulateRequest, 'skipInvalid' | 'onProgress'>,
  stats: TraceReadStats,
  notes: Notes,
): Promise<TraceRow[]> {
  const rows: TraceRow[] = []
  let prev: bigint | undefined
  let unsortedAt: number | undefined
  const keys = KeyInterner.forTraceBytes(stats.bytes)
  for await (const batch of readTraceRowBatches(
    {
      path,
      name,
      skipInvalid: req.skipInvalid,
      mode: resolved.config.trace_replay.mode,
      keys,
      onBytes: (b) => req.onProgress?.({bytes: b, total: stats.bytes, rows: stats.rows}),
    },
    stats,
  ))
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]
      if (prev !== undefined && row.ts < prev && unsortedAt === undefined) unsortedAt = row.lineNo
      prev = row.ts
      rows.push(row)
    }
  if (unsortedAt === undefined) return rows
  notes.add(
    'LMT_SIM_RESORT',
    `${name}:${unsortedAt}: the trace is not sorted by timestamp_ns; it was stable-sorted in memory`,
  )
  return stableSortRows(rows)
}
