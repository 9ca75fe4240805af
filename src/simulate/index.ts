// The one door of src/simulate: what `lmt simulate`, `lmt report` and the LMCache lookup simulation use of it.
// Nothing outside src/simulate imports its sub-folders (test/simulate/layout.test.ts holds that); what is not
// named here is simulate's own business.

// the accelerators, put in through the seam (seams.ts); LMT_PLAIN=1 leaves them out
import {accelerators} from './fast/index.js'
import {useAccelerators} from './seams.js'

useAccelerators(accelerators)

import type {ConvertedInput, ConvertInputRequest} from './input/convert-input.js'

// `lmt simulate`: one call, a request in and an outcome (summary, console lines, notices) out
export {simulate, type SimulateOutcome} from './run.js'
export {
  LMCACHE_FORMAT,
  type OracleChoice,
  type SimulateProgress,
  type SimulateRequest,
  type SweepRequest,
} from './config/request.js'
export {consoleText} from './output/console.js'
export {foreignFormats} from './input/foreign-trace.js'

// the configuration and its capacities
export {
  type InstanceConfig,
  POLICIES,
  type PolicyName,
  readConfigFile,
  resolveConfig,
  type SimConfig,
  type SimFlags,
  TIERED_BLOCK_BYTES_HINT,
} from './config/config.js'
export {blocksToGib, CAPACITY_UNIT_NAMES, capacityUnitOf, gibToBlocks, quotaUnits} from './config/capacity.js'
export {isTieredConfig} from './config/tiers.js'
export {type Notice, Notes} from './config/notes.js'

// a trace read whole into memory, its block sizes settled by simulate's rule
export type {TraceRow} from './input/trace-rows.js'
export {firstRowType, newStats, type TraceReadStats} from './input/trace-source.js'
export {loadSorted} from './input/sorted-rows.js'
export {loadTieredRows} from './input/tiered-rows.js'
export {fitsOfRows, settleBlockSizes} from './input/block-size.js'

// plays, references and sweeps over rows in memory
export {Player, type PlayerOptions} from './engine/player.js'
export {playInMemory} from './engine/play-rows.js'
export {totalsOf} from './output/summary.js'
export {inclusionNote} from './output/inclusion-note.js'
export {stackPass, type StackObserver, type StackPassResult} from './oracles/stack-pass.js'
export type {BeladyGroupResult} from './oracles/belady.js'
export {checkRateBelowCeiling} from './oracles/ceiling.js'
export {PrefixBlocks} from './oracles/prefix-blocks.js'
export {type SweepTask} from './sweep/sweep-tasks.js'
export {type PointResult} from './engine/player.js'
export {runSweepTasks} from './sweep/run-tasks.js'

// `-i` inputs converted on the fly to a temporary trace (`lmt report` too); convert's modules load only for one
export type {ConvertedInput} from './input/convert-input.js'
export async function convertInput(req: ConvertInputRequest): Promise<ConvertedInput> {
  return (await import('./input/convert-input.js')).convertInput(req)
}
export async function layoutBytesPerToken(files: readonly string[]): Promise<number | undefined> {
  return (await import('./input/convert-input.js')).layoutBytesPerToken(files)
}

// LMCache's cache simulator over lookup-hash logs (`--policy lmcache_lru`)
export {lmcacheSweepBytes, simulateLookupLog} from './lmcache/lookup-sim.js'
export {lookupJson, lookupLines, percent, thousands} from './lmcache/lookup-report.js'
export {type LmcacheLookupSection, lmcacheLookupSection} from './lmcache/report-section.js'
