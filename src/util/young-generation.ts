// V8's young generation kept at its first size, for commands whose allocations die young (simulate: see
// src/cli/young-generation.ts for why and when). `--semi-space-growth-factor=1` is read at every growth, but starting
// a worker thread resets V8's flags, so a process that keeps it small sets it again once each worker is up.
import {setFlagsFromString} from 'node:v8'

// on globalThis: the command bundles each carry a copy of this module, and all of them must see one setting
const KEPT = Symbol.for('lmt.youngGenerationKeptSmall')

/** Keeps the young generation at its first size from now on (for the whole process). */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  ;(globalThis as Record<symbol, unknown>)[KEPT] = true
}

/** A worker thread is up: its start reset V8's flags, so the young generation is kept small again if it was. */
export function keepYoungGenerationSmallAgain(): void {
  if ((globalThis as Record<symbol, unknown>)[KEPT] === true)
    setFlagsFromString('--semi-space-growth-factor=1')
}
