// A tiered configuration's trace read whole, in the order the July-2026 Optimizer plays it: its rows sorted by
// timestamp with libstdc++'s std::sort, which is not stable, so rows of equal timestamps come out in the order that
// introsort leaves them (a trace in strictly increasing order is left as it is).
import {introsortBy} from '../../util/libstdcxx-sort.js'
import {KeyInterner, type TraceRow} from './trace-rows.js'
import {readTraceRowBatches, type TraceReadStats} from './trace-source.js'

export interface TieredRows {
  rows: TraceRow[]
  keys: KeyInterner
  /** the file was in strictly increasing timestamp order */
  ordered: boolean
}

export async function loadTieredRows(
  path: string,
  name: string,
  skipInvalid: boolean,
  stats: TraceReadStats,
  onBytes?: (bytes: number) => void,
): Promise<TieredRows> {
  const rows: TraceRow[] = []
  const keys = KeyInterner.forTraceBytes(stats.bytes)
  let ordered = true
  let prev = -1n
  for await (const batch of readTraceRowBatches(
    {path, name, skipInvalid, mode: 'read_write', keys, tieredRows: true, onBytes},
    stats,
  ))
    for (const row of batch) {
      if (row.ts <= prev) ordered = false
      prev = row.ts
      rows.push(row)
    }
  if (!ordered) introsortBy(rows, (a, b) => a.ts < b.ts)
  return {rows, keys, ordered}
}
