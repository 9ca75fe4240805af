// Capacities in one place. Every way lmt accepts a capacity (blocks; GiB with the bytes of a block, from bytes per
// token or a KV layout; a fraction of the working set) becomes a group's capacity fields here, and everything that
// enforces or reports one (the engine, both oracles, the stack pass, sweep.csv, the report) reads the quota, the
// weight of a block and the capacity in blocks from these functions only, from one group: a weight taken from
// one configuration and a quota from another is how a GiB capacity once became 2^30 blocks.
import {lmtError} from '../../errors.js'
import {formatG} from '../../util/format-g.js'

/** The capacity fields of a group (config.ts's GroupConfig extends them). */
export interface GroupConfig {
  group_name: string
  quota_capacity?: number
  quota_capacity_blocks?: number
  used_percentage: number
  instances: InstanceConfig[]
}

/** What a block of an instance weighs by (config.ts's InstanceConfig extends it). */
export interface InstanceConfig {
  instance_id: string
  block_size: number
  bytes_per_token?: number
}

/** The bytes of one GiB: what every capacity "in GB" of lmt and of the Optimizer's configuration means. */
export const GIB = 2 ** 30

/** The units a capacity can be given in. */
export type CapacityUnit = 'blocks' | 'gib' | 'fraction'

/** The unit names lmt takes (`gb` is a synonym of `gib`: 2^30 bytes, as the Optimizer's GB fields). */
export const CAPACITY_UNIT_NAMES = ['blocks', 'gib', 'gb', 'fraction'] as const

/** A unit name as typed (any case) → the unit; undefined when it is not one. */
export function capacityUnitOf(text: string): CapacityUnit | undefined {
  const t = text.toLowerCase()
  if (t === 'gb' || t === 'gib') return 'gib'
  return t === 'blocks' || t === 'fraction' ? t : undefined
}

/** A capacity of one group: blocks (−1 infinite) or GiB (negative infinite), as the configuration holds them. */
export interface GroupCapacity {
  blocks?: number
  gb?: number
}

/** A copy of group `g` with capacity `cap` (a sweep point, a report's grid point). */
export function groupAtCapacity<G extends GroupConfig>(g: G, cap: GroupCapacity): G {
  const copy: G = {...g}
  delete copy.quota_capacity
  delete copy.quota_capacity_blocks
  if (cap.gb !== undefined) copy.quota_capacity = cap.gb
  else copy.quota_capacity_blocks = cap.blocks
  return copy
}

/** `quota_units` of a group (null = infinite), from its capacity (docs/simulate.md §2.3). */
export function quotaUnits(g: GroupConfig): number | null {
  if (g.quota_capacity !== undefined) {
    if (g.quota_capacity < 0) return null
    return Math.trunc(Math.trunc(g.quota_capacity * GIB) * g.used_percentage)
  }
  const blocks = g.quota_capacity_blocks as number
  if (blocks === -1) return null
  return Math.trunc(blocks * g.used_percentage)
}

/**
 * The units one block of instance `i` takes in group `g`: its bytes (`block_size × bytes_per_token`) when the
 * capacity is in GiB, else 1. A GiB capacity of an instance without bytes per token is a usage error, never a
 * weight of 0 (which would never evict).
 */
export function weightOf(g: GroupConfig, i: InstanceConfig): number {
  if (g.quota_capacity === undefined) return 1
  // an infinite capacity never evicts: its weight is never compared with a quota
  if (i.bytes_per_token === undefined && g.quota_capacity < 0) return 0
  if (i.bytes_per_token === undefined) throw bytesPerTokenMissing(i.instance_id, g.group_name)
  return i.block_size * i.bytes_per_token
}

/** Why a GiB capacity cannot be converted: the instance has no bytes per token. */
export function bytesPerTokenMissing(instance: string, group: string): Error {
  return lmtError('SIM_BYTES_PER_TOKEN_MISSING', instance, group, {
    suggestions: [
      'pass --bytes-per-token or --kv-layout (or set bytes_per_token of the instance)',
      'or give the capacity in blocks (--capacity-blocks, --sweep-unit blocks, quota_capacity_blocks)',
    ],
  })
}

/** Throws unless every instance of `g` can take a capacity in GiB. */
export function checkGibCapacity(g: GroupConfig): void {
  for (const i of g.instances)
    if (i.bytes_per_token === undefined) throw bytesPerTokenMissing(i.instance_id, g.group_name)
}

/** The blocks of instance `i` that group `g`'s quota holds when `i` is its only member (null = infinite). */
export function quotaBlocks(g: GroupConfig, i: InstanceConfig): number | null {
  const q = quotaUnits(g)
  return q === null ? null : Math.floor(q / weightOf(g, i))
}

/** Blocks of `bytesPerBlock` bytes that `gib` GiB hold (the Optimizer's truncation of the bytes, then whole blocks). */
export function gibToBlocks(gib: number, bytesPerBlock: number): number {
  return Math.floor(Math.trunc(gib * GIB) / bytesPerBlock)
}

/** The GiB `blocks` blocks of `bytesPerBlock` bytes take. */
export function blocksToGib(blocks: number, bytesPerBlock: number): number {
  return (blocks * bytesPerBlock) / GIB
}

/**
 * A sweep point given in `unit` as the group's capacity: blocks as `max(1, round(v))`, a fraction of the working
 * set `wss` as `max(1, round(v × wss))`, GiB as they are (the engine converts them with each instance's weight),
 * or, with the bytes of every block known (`--kv-layout`), as the blocks they hold.
 */
export function pointCapacity(
  unit: CapacityUnit,
  value: number,
  wss: number,
  bytesPerBlock?: number,
): GroupCapacity {
  if (unit === 'gib')
    return bytesPerBlock === undefined ? {gb: value} : {blocks: gibToBlocks(value, bytesPerBlock)}
  return {blocks: Math.max(1, Math.round(unit === 'fraction' ? value * wss : value))}
}

/** A capacity as people read it: `N blocks`, `X GiB`, or `infinite`. */
export function capacityText(cap: GroupCapacity): string {
  if (cap.gb !== undefined) return cap.gb < 0 ? 'infinite' : `${formatG(cap.gb)} GiB`
  return cap.blocks === undefined || cap.blocks === -1 ? 'infinite' : `${formatG(cap.blocks)} blocks`
}

/**
 * With the bytes of every block known (`--kv-layout`), a finite capacity in GiB becomes the blocks it holds
 * (`floor(trunc(GiB × 2^30) / bytesPerBlock)`, then `used_percentage` applies as to any block capacity); a
 * negative one stays infinite. A group without a GiB capacity is left as it is.
 */
export function gibCapacityInBlocks(g: GroupConfig, bytesPerBlock: number): void {
  if (g.quota_capacity === undefined) return
  const gib = g.quota_capacity
  delete g.quota_capacity
  g.quota_capacity_blocks = gib < 0 ? -1 : gibToBlocks(gib, bytesPerBlock)
}
