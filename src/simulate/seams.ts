// The one seam between simulate's plain model and its accelerators (src/simulate/fast/, docs/architecture.md):
// the model asks for a row scanner and a parse thread (input/trace-source.ts) and sweep worker threads
// (sweep/run-tasks.ts), and plays without them when none is in. The door (index.ts) puts fast/index.ts's in here;
// LMT_PLAIN=1 leaves every one out. The hooks live at the levels that ask, so the model never imports this module.
import {type ParseThread, type RowScanner, useParseThread, useRowScanner} from './input/trace-source.js'
import {type StartSweepWorkers, type SweepWorkers, useSweepWorkers} from './sweep/run-tasks.js'

export type {RowScanner, SweepWorkers}

export interface Accelerators {
  rowScanner(): RowScanner
  /** the parse thread for a trace of `bytes`, if it is read on one */
  parseThread(bytes: number): ParseThread | undefined
  sweepWorkers: StartSweepWorkers
}

/** Puts the accelerators in (fast/index.ts); those not given are taken out. */
export function useAccelerators(a: Partial<Accelerators>): void {
  useRowScanner(a.rowScanner)
  useParseThread(a.parseThread)
  useSweepWorkers(a.sweepWorkers)
}
