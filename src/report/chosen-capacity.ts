// The capacity of the hit-rate-over-time replays: the one asked for (in blocks or GiB), else where LRU reaches 90 %
// of the infinite cache's token hit rate.
import {lmtError} from '../errors.js'
import {blocksToGib, gibToBlocks} from '../simulate/index.js'
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
  const gbOf = (blocks: number) => (bytesPerBlock === null ? null : blocksToGib(blocks, bytesPerBlock))
  if (req.capacityBlocks !== undefined)
    return {blocks: req.capacityBlocks, gb: gbOf(req.capacityBlocks), source: 'flag'}
  if (req.capacityGb !== undefined) {
    if (bytesPerBlock === null)
      throw lmtError('CLI_FLAG_NEEDS', 'a capacity in GiB', '--bytes-per-token or --kv-layout', {
        suggestions: ['pass --bytes-per-token', 'or use --capacity-blocks'],
      })
    const blocks = gibToBlocks(req.capacityGb, bytesPerBlock)
    if (blocks < 1)
      throw lmtError(
        'CLI_OUT_OF_RANGE',
        '--capacity',
        `at least one block (${blocksToGib(1, bytesPerBlock)} GiB)`,
        String(req.capacityGb),
      )
    return {blocks, gb: gbOf(blocks), source: 'flag'}
  }
  const need = table.find((r) => r.policy === 'lru')?.needs.find((n) => n.target === 0.9)
  const blocks = Math.max(1, need?.blocks ?? wss)
  return {blocks, gb: gbOf(blocks), source: 'lru_90'}
}
