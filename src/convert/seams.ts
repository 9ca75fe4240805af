// The one seam between convert's plain model and its accelerators (src/convert/fast/): the line pool asks here for
// worker threads to map byte batches on, and maps them on the main thread when none are in; a run asks for a store
// of encoded lines, and gives each line a buffer of its own without one; the merge asks for a stretch copy, and takes
// rows one by one without one; the run reader asks for a byte scan of a line's timestamp, and parses the line without
// one. fast/index.ts puts them in (the doors that run conversions load it); LMT_PLAIN=1
// leaves them out.
import type {LineBatch, LineBatchSpares} from '../formats/json/line-batch.js'
import {plainPaths} from '../util/plain.js'
import type {LineMapperSpec, MappedBatch} from './line-mapper.js'
import type {LineStore} from './lines.js'
import type {BufferedWriter, RunReader, RunRow} from './run-files.js'

/** A run in the merge's heap: its next row, its place among the runs (ties go to the earlier), its reader. */
export interface MergeEntry {
  row: RunRow
  order: number
  reader: RunReader
}

export interface Accelerators {
  /** maps byte batches with `spec` on `count` worker threads, results in input order */
  batchWorkers<R>(
    batches: AsyncIterable<LineBatch>,
    spec: LineMapperSpec,
    count: number,
    spares: LineBatchSpares | undefined,
  ): AsyncIterable<MappedBatch<R>>
  /** A run's store of lines that writes the plain store's bytes (`recordsAtOnce`: `encodesRecordsAtOnce`). */
  encodedLines(recordsAtOnce: boolean): LineStore
  /**
   * A stretch copy for one merge: called with the heap's entries (its first on top) after the top's row was written,
   * it may write the rows of the top's run that follow and still come first, passing its reader over them; true
   * when it wrote any.
   */
  mergeStretches(): (heap: readonly MergeEntry[], out: BufferedWriter) => boolean
  /** `timestamp_ns` of the line `buf[start, end)` of a run without a prefix, as parsing the line gives it */
  lineTimestamp(buf: Buffer, start: number, end: number): bigint
}

let installed: Partial<Accelerators> = {}

/** Puts the accelerators in (fast/index.ts). */
export function useAccelerators(a: Partial<Accelerators>): void {
  installed = a
}

/** The accelerators in use: none on the plain paths (`LMT_PLAIN=1`). */
export function accelerators(): Partial<Accelerators> {
  return plainPaths() ? {} : installed
}
