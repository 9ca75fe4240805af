// A whole trace read into memory in timestamp order (sweeps, oracles, a re-sorted trace): rows out of order are
// stable-sorted, with one notice naming the first of them.
import {KeyInterner, type TraceRow} from './trace-rows.js'
import {readTraceRowBatches, type TraceReadStats} from './trace-source.js'
import type {ResolvedConfig} from '../config/config.js'
import type {Notes} from '../config/notes.js'
import type {SimulateRequest} from '../config/request.js'

/** Reads every row of the trace and returns them sorted by timestamp (stable: equal timestamps keep file order). */
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
  // Array.prototype.sort is stable: rows of equal timestamps keep file order
  return rows.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0))
}
