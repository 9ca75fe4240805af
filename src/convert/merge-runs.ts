import {BinaryHeap} from '../util/binary-heap.js'
import {type BufferedWriter, type RunFile, RunReader} from './run-files.js'
import {accelerators, type MergeEntry} from './seams.js'

function less(a: MergeEntry, b: MergeEntry): boolean {
  return a.row.ts < b.row.ts || (a.row.ts === b.row.ts && a.order < b.order)
}

/**
 * k-way merge of sorted runs into `out` by (timestamp, position in `runs`): ties go to the earlier run, which keeps
 * the merge stable. Memory: one read buffer per run, sized to keep the total near 32 MiB. Rows go one at a time; an
 * accelerator (seams.ts) may copy a stretch of rows of the run on top after one.
 */
export async function mergeRuns(runs: readonly RunFile[], out: BufferedWriter): Promise<void> {
  const live = runs.filter((r) => r.count > 0)
  if (live.length === 0) return
  const bufferBytes = Math.max(64 << 10, Math.min(1 << 20, Math.floor((32 << 20) / live.length)))
  const heap = new BinaryHeap<MergeEntry>(less) // min-heap on (timestamp, run order)
  const readers: RunReader[] = []
  const {mergeStretches, lineTimestamp} = accelerators()
  const stretch = mergeStretches?.()
  let written = 0
  try {
    live.forEach((run, order) => {
      const reader = new RunReader(run, bufferBytes, lineTimestamp)
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
      if (stretch?.(heap.items, out) && out.backlogged) await out.drain()
      const next = top.reader.read()
      if (next) heap.replaceTop({row: next, order: top.order, reader: top.reader})
      else heap.pop()
    }
  } finally {
    for (const r of readers) r.close()
  }
}
