// The one seam between convert's plain model and its accelerators (src/convert/fast/): the line pool asks here for
// worker threads to map byte batches on, and maps them on the main thread when none are in; the trace sorter asks
// for a way to hold records and write their lines later, and serializes each trace as it comes when none is in.
// fast/index.ts puts them in (the doors that run conversions load it); LMT_PLAIN=1 leaves them out.
import type {LineBatch, LineBatchSpares} from '../formats/json/line-batch.js'
import {plainPaths} from '../util/plain.js'
import type {LineMapperSpec, MappedBatch} from './line-mapper.js'
import type {GetRecord, WriteRecord} from './records.js'
import type {BufferedWriter} from './run-files.js'

export interface Accelerators {
  /** maps byte batches with `spec` on `count` worker threads, results in input order */
  batchWorkers<R>(
    batches: AsyncIterable<LineBatch>,
    spec: LineMapperSpec,
    count: number,
    spares: LineBatchSpares | undefined,
  ): AsyncIterable<MappedBatch<R>>
  /** records held as they are in the sort window and written when they leave it */
  recordLines: {
    /** the about size of the trace's line when the sorter may hold it as it is, else undefined */
    deferredSize(trace: unknown): number | undefined
    /** writes the line of a record deferredSize took (its bytes: `serializeJson(record) + "\n"`) */
    write(record: GetRecord | WriteRecord, out: BufferedWriter): void
  }
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
