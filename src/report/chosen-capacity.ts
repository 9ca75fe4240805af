// The capacity of the hit-rate-over-time replays: the one asked for (in blocks or GB), else where LRU reaches 90 %
// of the infinite cache's token hit rate.
import {lmtError} from '../errors.js'
import type {CapacityRow} from './capacity-table.js'
import type {ReportAnswer} from './document.js'

/** the capacity of the hit-rate-over-time replays (default: where LRU reaches 90 % of the infinite cache) */
export interface CapacityChoice {
  capacityBlocks?: number
  capacityGb?: number
}

export function chooseCapacity(
  req: CapacityChoice,
  table: CapacityRow[],
  bytesPerBlock: number | null,
  wss: number,
): ReportAnswer['chosen_capacity'] {
  const gbOf = (blocks: number) => (bytesPerBlock === null ? null : (blocks * bytesPerBlock) / 2 ** 30)
  if (req.capacityBlocks !== undefined)
    return {blocks: req.capacityBlocks, gb: gbOf(req.capacityBlocks), source: 'flag'}
  if (req.capacityGb !== undefined) {
    if (bytesPerBlock === null)
      throw lmtError('CLI_FLAG_NEEDS', 'a capacity in GB', '--bytes-per-token or --kv-layout', {
        suggestions: ['pass --bytes-per-token', 'or use --capacity-blocks'],
      })
    const blocks = Math.max(1, Math.floor((req.capacityGb * 2 ** 30) / bytesPerBlock))
    return {blocks, gb: gbOf(blocks), source: 'flag'}
  }
  const need = table.find((r) => r.policy === 'lru')?.needs.find((n) => n.target === 0.9)
  const blocks = Math.max(1, need?.blocks ?? wss)
  return {blocks, gb: gbOf(blocks), source: 'lru_90'}
}
