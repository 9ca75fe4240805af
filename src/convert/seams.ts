// The one seam between convert's plain model and its accelerators (src/convert/fast/): the line pool asks here for
// worker threads to map byte batches on, and maps them on the main thread when none are in. fast/index.ts puts them
// in (the doors that run conversions load it); LMT_PLAIN=1 leaves them out.
import type {LineBatch, LineBatchSpares} from '../formats/json/line-batch.js'
import {plainPaths} from '../util/plain.js'
import type {LineMapperSpec, MappedBatch} from './line-mapper.js'

export interface Accelerators {
  /** maps byte batches with `spec` on `count` worker threads, results in input order */
  batchWorkers<R>(
    batches: AsyncIterable<LineBatch>,
    spec: LineMapperSpec,
    count: number,
    spares: LineBatchSpares | undefined,
  ): AsyncIterable<MappedBatch<R>>
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
