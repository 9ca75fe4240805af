// The merge's stretch copy, an accelerator of merge-runs.ts (which takes the same rows one by one): a run without
// prefixes (the output's first run, written as it is) that keeps winning is copied a stretch at a time, every
// buffered row ordered before the runner-up as one range, found by a binary search over its line starts. A few late
// traces then cost a copy of the first run, not a timestamp read per line: on a 200k-line publisher_log conversion,
// whose gets never written come last, the merge is most of the run's end.
import type {MergeEntry} from '../seams.js'
import type {BufferedWriter, RunReader} from '../run-files.js'
import {lineTimestamp} from './line-timestamp.js'

/** Rows taken in a row from one run before it is asked for a stretch of rows at once. */
const STREAK_FOR_BULK = 4

/** The stretch copy of one merge (it counts the rows each run wins in a row). */
export function mergeStretches(): (heap: readonly MergeEntry[], out: BufferedWriter) => boolean {
  let streak = 0
  let lastOrder = -1
  return (heap, out) => {
    const top = heap[0]
    streak = top.order === lastOrder ? streak + 1 : 0
    lastOrder = top.order
    if (streak < STREAK_FOR_BULK || top.reader.run.prefixed) return false
    // the entry that comes out after the top (undefined: the top's run is the only one left)
    const next = heap[2] !== undefined && before(heap[2], heap[1]) ? heap[2] : heap[1]
    const reader = top.reader
    const end = rowsBefore(reader, next?.row.ts, next !== undefined && top.order < next.order)
    if (end === reader.pos) {
      streak = 0
      return false
    }
    out.range(reader.data, reader.pos, end)
    reader.pos = end
    return true
  }
}

function before(a: MergeEntry, b: MergeEntry): boolean {
  return a.row.ts < b.row.ts || (a.row.ts === b.row.ts && a.order < b.order)
}

/**
 * Where the rows that follow, up to the last one ordered before the bound (ts < bound, or ts ≤ bound with
 * `inclusive`; no bound: all), end among the complete lines the reader holds: a run is sorted, so this is a binary
 * search over line starts with a timestamp read per probe. `pos` when the next row is not before the bound.
 */
function rowsBefore(reader: RunReader, bound: bigint | undefined, inclusive: boolean): number {
  const {data, pos: start} = reader
  const end = data.lastIndexOf(0x0a) + 1 // the complete lines: [pos, end)
  if (bound === undefined) return end
  const isBefore = (s: number): boolean => {
    const ts = lineTimestamp(data, s, data.indexOf(0x0a, s))
    return ts < bound || (inclusive && ts === bound)
  }
  if (end <= start || !isBefore(start)) return start
  // the line starting at lo is before the bound; hi is `end` or a line start that is not
  let lo = start
  let hi = end
  for (;;) {
    let s = data.indexOf(0x0a, (lo + hi) >>> 1) + 1
    if (s <= lo || s >= hi) s = data.indexOf(0x0a, lo) + 1 // no line starts in (mid, hi): try lo's next
    if (s <= lo || s >= hi) return hi
    if (isBefore(s)) lo = s
    else hi = s
  }
}
