// Code that runs once in a process gains nothing from V8's optimising compiler. The plot's renderer (vega) is
// ~1 MB of JavaScript run once per plot: V8 still picks its hotter functions for TurboFan, whose compilations take
// a core and more instructions than the render itself saves before it ends (the render of a 1,500-point plot:
// ~25 % fewer instructions without it, and faster; docs/performance-notes.md, "The plot without TurboFan"). The
// switch is V8's flag, for the whole process: it is off only while no other thread has hot work (simulate plots
// after its play and its sweep have ended). Code compiled before keeps its optimised form.
import {setFlagsFromString} from 'node:v8'

let open = 0

/**
 * Runs `work` with V8's optimising compiler off, then turns it back on (once the last of overlapping calls ends).
 * V8 takes a code cache only under the flags it was made for, so nothing should load one while it is off.
 */
export async function withoutOptimizingCompiler<T>(work: () => Promise<T>): Promise<T> {
  if (open++ === 0) setFlagsFromString('--no-turbofan')
  try {
    return await work()
  } finally {
    if (--open === 0) setFlagsFromString('--turbofan')
  }
}
