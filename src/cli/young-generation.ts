// Loaded by bin/run.js before anything else. V8 doubles its young generation (up to 16 MB a semi-space) when
// most of what it holds survives a scavenge, as everything does while a CLI's modules load; simulate then runs
// with ~28 MB more resident memory and no fewer collections that matter. Its allocations die young, so it keeps
// the first size. The flag is read at every growth, so setting it here (before any module loads) still counts;
// the size is fixed at start-up and cannot be set from inside the process. Other commands keep V8's default
// (convert's records live longer and were not measured with it).
import {keepYoungGenerationSmall} from '../util/young-generation.js'

export {keepYoungGenerationSmall}

/** Whether a command run with these arguments keeps the young generation at its first size. */
export function keepsYoungGenerationSmall(argv: readonly string[]): boolean {
  return argv[0] === 'simulate'
}

// (V8's code caches are made for a set of flags: the plots' renderer's cache is made by the build under this one,
// see scripts/bundle-vega.mjs.) Worker threads reset it as they start: the worker pool sets it again.
if (keepsYoungGenerationSmall(process.argv.slice(2))) keepYoungGenerationSmall()
