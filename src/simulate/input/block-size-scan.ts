// The pre-pass that infers block sizes: one read of the trace with the replay's own row reader (the same rules,
// the same skips), keeping per instance only the interval of fitting block sizes. Keys are validated but not
// interned, so memory stays at one BlockSizeFit per instance.
import {BlockSizeFit} from './block-size.js'
import {KeyInterner} from './key-interner.js'
import type {TraceRow} from './trace-rows.js'
import {newStats, readTraceRowBatches} from './trace-source.js'

/** An interner that checks keys (rule V8) but keeps none: every key is id 0. */
class DiscardingInterner extends KeyInterner {
  override idOf(): number {
    return 0
  }
}

export interface BlockSizeScan {
  path: string
  name: string
  skipInvalid: boolean
  mode: 'read_write' | 'request'
  onBytes?(bytes: number): void
}

/** Adds a get or request row to its instance's fit. */
export function addRowToFits(fits: Map<string, BlockSizeFit>, row: TraceRow): void {
  if (row.type === 'write') return
  let fit = fits.get(row.instance)
  if (fit === undefined) fits.set(row.instance, (fit = new BlockSizeFit()))
  fit.add(row.keys.length, row.inputLen, row.lineNo)
}

/** The fit of every instance that has a get or request row, from rows held in memory. */
export function fitsOfRows(rows: readonly TraceRow[]): Map<string, BlockSizeFit> {
  const fits = new Map<string, BlockSizeFit>()
  for (let i = 0; i < rows.length; i++) addRowToFits(fits, rows[i])
  return fits
}

/** The fit of every instance that has a get or request row, from one read of the trace file. */
export async function scanBlockSizes(opts: BlockSizeScan): Promise<Map<string, BlockSizeFit>> {
  const fits = new Map<string, BlockSizeFit>()
  const keys = new DiscardingInterner()
  for await (const rows of readTraceRowBatches({...opts, keys, countKeysOnly: true}, newStats(opts.path)))
    for (let i = 0; i < rows.length; i++) addRowToFits(fits, rows[i])
  return fits
}
