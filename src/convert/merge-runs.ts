import {BinaryHeap} from '../util/binary-heap.js'
import {type BufferedWriter, type RunFile, RunReader, type RunRow} from './run-files.js'

interface HeapEntry {
  row: RunRow
  order: number
  reader: RunReader
}

function less(a: HeapEntry, b: HeapEntry): boolean {
  return a.row.ts < b.row.ts || (a.row.ts === b.row.ts && a.order < b.order)
}

/** Rows taken in a row from one reader before it is asked for a stretch of rows at once. */
const STREAK_FOR_BULK = 4

/** The entry that comes out after the top (undefined: the top's run is the only one left). */
function runnerUp(items: readonly HeapEntry[]): HeapEntry | undefined {
  const a = items[1]
  const b = items[2]
  return b !== undefined && less(b, a) ? b : a
}

/**
 * k-way merge of sorted runs into `out` by (timestamp, position in `runs`): ties go to the earlier run, which keeps
 * the merge stable. Memory: one read buffer per run, sized to keep the total near 32 MiB.
 *
 * A run without prefixes (the output's first run, written as it is) that keeps winning is copied a stretch at a
 * time: every buffered row ordered before the runner-up goes out as one range (found by a binary search, see
 * RunReader.rowsBefore), so a few late traces cost a copy of the first run, not a timestamp parse per line.
 * `bulk` off is the plain row-by-row merge (tests pin the two together).
 */
export async function mergeRuns(runs: readonly RunFile[], out: BufferedWriter, bulk = true): Promise<void> {
  const live = runs.filter((r) => r.count > 0)
  if (live.length === 0) return
  const bufferBytes = Math.max(64 << 10, Math.min(1 << 20, Math.floor((32 << 20) / live.length)))
  const heap = new BinaryHeap<HeapEntry>(less) // min-heap on (timestamp, run order)
  const readers: RunReader[] = []
  let written = 0
  let streak = 0
  let lastOrder = -1
  try {
    live.forEach((run, order) => {
      const reader = new RunReader(run, bufferBytes)
      readers.push(reader)
      const row = reader.read()
      if (row) heap.push({row, order, reader})
    })
    while (heap.items.length > 0) {
      const top = heap.items[0]
      const row = top.row
      out.range(row.buf, row.start, row.end)
      if (row.end === row.start || row.buf[row.end - 1] !== 0x0a) out.ascii('\n') // a last line without one
      if ((++written & 0xfff) === 0 && out.backlogged) await out.drain()
      streak = top.order === lastOrder ? streak + 1 : 0
      lastOrder = top.order
      if (bulk && streak >= STREAK_FOR_BULK && !top.reader.run.prefixed) {
        const next = runnerUp(heap.items)
        const end = top.reader.rowsBefore(next?.row.ts, next !== undefined && top.order < next.order)
        const rows = top.reader.takeTo(end)
        if (rows.end > rows.start) {
          out.range(rows.buf, rows.start, rows.end)
          if (out.backlogged) await out.drain()
        } else streak = 0
      }
      const next = top.reader.read()
      if (next) heap.replaceTop({row: next, order: top.order, reader: top.reader})
      else heap.pop()
    }
  } finally {
    for (const r of readers) r.close()
  }
}
