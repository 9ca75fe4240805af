// The one seam between simulate's plain model and its accelerators (src/simulate/fast/, docs/architecture.md):
// the model asks here for a row scanner and for sweep worker threads, and plays without them when none is in.
// fast/index.ts puts them in (the door, index.ts, loads it); LMT_PLAIN=1 leaves every one out.
import {plainPaths} from '../util/plain.js'
import type {KeyInterner} from './input/key-interner.js'
import type {TraceRow} from './input/trace-rows.js'
import type {PointJob, SweepTask, SweepTaskResult} from './sweep/sweep-tasks.js'

/** Reads a trace row from a line's UTF-8 bytes; undefined leaves the line to the plain parser (trace-rows.ts). */
export interface RowScanner {
  /** keep `ttl_us` (the rows of a tiered configuration) */
  keepTtl: boolean
  /** `keys` undefined: keys are checked, not interned (each key id 0) */
  scan(
    bytes: Uint8Array,
    start: number,
    end: number,
    lineNo: number,
    keys: KeyInterner | undefined,
  ): TraceRow | undefined
}

/** Worker threads that run sweep tasks over the rows they were started with. */
export interface SweepWorkers {
  call(worker: number, task: SweepTask): Promise<SweepTaskResult>
  close(): Promise<void>
}

export interface Accelerators {
  rowScanner(): RowScanner
  sweepWorkers(rows: readonly TraceRow[], job: PointJob, count: number): SweepWorkers
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
