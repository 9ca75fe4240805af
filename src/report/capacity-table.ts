// The answer table: the capacity each policy needs to reach a share of the infinite-capacity hit rate.
import {blocksToGib} from '../simulate/index.js'
import type {PolicyCurve} from './curves.js'

export const TARGETS = [0.5, 0.8, 0.9, 0.95] as const

const EPS = 1e-12

/** The capacity where the curve first reaches `rate`, and how (schemas/report.schema.json, `need`). */
function capacityFor(
  curve: PolicyCurve,
  rate: number,
): {
  blocks: number | null
  how: 'at_most' | 'interpolated' | 'grid' | 'unreached'
  bracket: [number, number] | null
} {
  const pts = curve.points
  const i = pts.findIndex((p) => p.token_hit_rate >= rate - EPS)
  if (i < 0) return {blocks: null, how: 'unreached', bracket: null}
  const hi = pts[i]
  if (i === 0) return {blocks: hi.capacity_blocks, how: 'at_most', bracket: null}
  const lo = pts[i - 1]
  if (Math.abs(hi.token_hit_rate - rate) <= EPS)
    return {blocks: hi.capacity_blocks, how: 'grid', bracket: null}
  const f = (rate - lo.token_hit_rate) / (hi.token_hit_rate - lo.token_hit_rate)
  const logCap =
    Math.log(lo.capacity_blocks) + f * (Math.log(hi.capacity_blocks) - Math.log(lo.capacity_blocks))
  const blocks = Math.min(
    hi.capacity_blocks,
    Math.max(lo.capacity_blocks + 1, Math.ceil(Math.exp(logCap) - 1e-9)),
  )
  return {blocks, how: 'interpolated', bracket: [lo.capacity_blocks, hi.capacity_blocks]}
}

/** One row per curve; `bytesPerBlock` converts blocks to GiB (2^30 bytes, as simulate's capacities). */
export function capacityTable(
  curves: readonly PolicyCurve[],
  infiniteRate: number,
  bytesPerBlock: number | null,
) {
  return curves.map((curve) => ({
    policy: curve.policy,
    needs: TARGETS.map((target) => {
      const rate = target * infiniteRate
      const need =
        infiniteRate > 0 ? capacityFor(curve, rate) : {blocks: 0, how: 'at_most' as const, bracket: null}
      return {
        target,
        target_rate: rate,
        ...need,
        gb: need.blocks === null || bytesPerBlock === null ? null : blocksToGib(need.blocks, bytesPerBlock),
      }
    }),
  }))
}

export type CapacityRow = ReturnType<typeof capacityTable>[number]
