import {type BufferedWriter, type RunFile, RunReader, type RunRow} from './run-files.js'

interface HeapEntry {
  row: RunRow
  order: number
  reader: RunReader
}

function less(a: HeapEntry, b: HeapEntry): boolean {
  return a.row.ts < b.row.ts || (a.row.ts === b.row.ts && a.order < b.order)
}

/** A binary min-heap on (timestamp, run order). */
class RunHeap {
  readonly items: HeapEntry[] = []

  push(e: HeapEntry): void {
    const h = this.items
    h.push(e)
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!less(h[i], h[p])) break
      ;[h[i], h[p]] = [h[p], h[i]]
      i = p
    }
  }

  /** Replaces the top with `e` (or removes it when `e` is undefined) and restores the heap. */
  replaceTop(e: HeapEntry | undefined): void {
    const h = this.items
    if (e !== undefined) h[0] = e
    else {
      const last = h.pop() as HeapEntry
      if (h.length === 0) return
      h[0] = last
    }
    let i = 0
    const n = h.length
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < n && less(h[l], h[m])) m = l
      if (r < n && less(h[r], h[m])) m = r
      if (m === i) break
      ;[h[i], h[m]] = [h[m], h[i]]
      i = m
    }
  }
}

/**
 * k-way merge of sorted runs into `out` by (timestamp, position in `runs`): ties go to the earlier run, which keeps
 * the merge stable. Memory: one read buffer per run, sized to keep the total near 32 MiB.
 */
export async function mergeRuns(runs: readonly RunFile[], out: BufferedWriter): Promise<number> {
  const live = runs.filter((r) => r.count > 0)
  if (live.length === 0) return 0
  const bufferBytes = Math.max(64 << 10, Math.min(1 << 20, Math.floor((32 << 20) / live.length)))
  const heap = new RunHeap()
  const readers: RunReader[] = []
  let written = 0
  try {
    live.forEach((run, order) => {
      const reader = new RunReader(run, bufferBytes)
      readers.push(reader)
      const row = reader.read()
      if (row) heap.push({row, order, reader})
    })
    while (heap.items.length > 0) {
      const top = heap.items[0]
      out.write(top.row.line + '\n')
      if ((++written & 0xfff) === 0 && out.backlogged) await out.drain()
      const row = top.reader.read()
      heap.replaceTop(row ? {row, order: top.order, reader: top.reader} : undefined)
    }
  } finally {
    for (const r of readers) r.close()
  }
  return written
}
