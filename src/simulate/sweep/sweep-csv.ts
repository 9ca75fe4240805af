// sweep.csv (docs/simulate.md §6.3): one row per instance and one total row (`*`) per point and series (the
// policy, `belady`, `infinite`), with the capacity in blocks and GiB (2^30 bytes) where it can be said.
import {blocksToGib, gibToBlocks} from '../config/capacity.js'
import {formatG} from '../../util/format-g.js'
import {rate} from '../engine/hit-rate-csv.js'

export const SWEEP_CSV_HEADER =
  'series,capacity_blocks,capacity_gb,quota_blocks,instance_id,requests,read_blocks,hit_blocks,input_tokens,hit_tokens,token_hit_rate,block_hit_rate,evictions,method'

/** A point's capacity columns: in blocks, in GiB (the `capacity_gb` column, 2^30 bytes), the quota in blocks ('' where the units do not convert). */
export interface CapacityCells {
  capBlocks: string
  capGb: string
  quotaBlocks: string
}

/** One row of sweep.csv. */
export function sweepCsvRow(
  seriesName: string,
  cells: CapacityCells,
  id: string,
  c: Record<string, number>,
  method = 'replay',
): string {
  return [
    seriesName,
    cells.capBlocks,
    cells.capGb,
    cells.quotaBlocks,
    id,
    c.get_rows,
    c.read_blocks,
    c.hit_blocks,
    c.input_tokens,
    c.hit_tokens,
    formatG(rate(c.hit_tokens, c.input_tokens)),
    formatG(rate(c.hit_blocks, c.read_blocks)),
    c.evictions,
    method,
  ].join(',')
}

/** The capacity columns of a point: `q` its quota in units, `w0` its first member's weight. */
export function capacityCells(
  cap: {blocks?: number; gb?: number},
  q: number | null,
  weights: readonly number[],
  w0: number,
): CapacityCells {
  const equal = new Set(weights).size <= 1
  const capBlocks =
    cap.blocks !== undefined
      ? String(cap.blocks)
      : equal && q !== null
        ? String(gibToBlocks(cap.gb as number, w0))
        : ''
  const capGb =
    cap.gb !== undefined
      ? formatG(cap.gb)
      : equal && weights.length > 0 && weights[0] > 0
        ? formatG(blocksToGib(cap.blocks as number, weights[0]))
        : ''
  const quotaBlocks = q !== null && equal ? String(Math.floor(q / w0)) : ''
  return {capBlocks, capGb, quotaBlocks}
}

/** The columns a tiered sweep's rows end with: per tier in priority order, its hit tokens, rate and final blocks. */
export function tierCsvHeader(tiers: number): string {
  const cols: string[] = []
  for (let t = 0; t < tiers; t++)
    cols.push(`tier${t}_hit_tokens`, `tier${t}_token_hit_rate`, `tier${t}_final_blocks`)
  return cols.join(',')
}

/** The cells a tiered row ends with, comma first (`inputTokens`: the row's, every tier's rate's denominator); '' untiered. */
export function tierCsvCells(
  t: {hitTokens: readonly number[]; blocks: readonly number[]} | undefined,
  inputTokens: number,
): string {
  return t === undefined
    ? ''
    : t.hitTokens.map((h, i) => `,${h},${formatG(rate(h, inputTokens))},${t.blocks[i]}`).join('')
}
