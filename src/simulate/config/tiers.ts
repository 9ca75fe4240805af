// A group of the July-2026 Optimizer's configuration generation (docs/simulate.md §10):
// `tier_strategy` (required by that generation), `storages` and the TTL keys, read with that Optimizer's defaults
// and checks. A configuration is of that generation when a group has a `tier_strategy`.
import {lmtError} from '../../errors.js'
import type {Notes} from './notes.js'

type Json = Record<string, unknown>

export type WriteMode = 'write_through' | 'cascading' | 'write_through_selective'

/** How blocks move across the edge from tier i to tier i + 1. */
export interface EdgeStrategy {
  writeMode: WriteMode
  propagate: boolean
  promote: boolean
  threshold: number
}

export interface StorageTier {
  name: string
  priority: number
  /** GiB (2^30 bytes); negative = unlimited */
  capacity: number
}

/** A group's tiers and TTL settings. */
export interface TierSettings {
  hierarchical: boolean
  /** in priority order (equal priorities keep their listed order) */
  storages: StorageTier[]
  /** edge i joins storages[i] and storages[i + 1] */
  edges: EdgeStrategy[]
  /** 0: TTL off; > 0: the default TTL; < 0: only the rows' ttl_us */
  defaultTtlSeconds: number
  refreshOnRead: boolean
}

const WRITE_MODES: readonly WriteMode[] = ['write_through', 'cascading', 'write_through_selective']

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** The group keys of this generation (besides those every configuration has). */
export const TIER_GROUP_KEYS = [
  'tier_strategy',
  'storages',
  'default_block_ttl_seconds',
  'ttl_refresh_on_read',
  'ttl_config',
]

/** Whether a configuration's groups are of the July generation (one has a tier_strategy). */
export function isTieredConfig(groups: unknown): boolean {
  return Array.isArray(groups) && groups.some((g) => isObject(g) && 'tier_strategy' in g)
}

function fail(group: string, problem: string, hint: string): never {
  throw lmtError('SIM_TIER_CONFIG', group, problem, {suggestions: [hint]})
}

function typed<T>(
  group: string,
  where: string,
  v: unknown,
  type: 'boolean' | 'string' | 'number',
  fallback: T,
): T {
  if (v === undefined) return fallback
  if (typeof v !== type) fail(group, `${where} must be a ${type}`, `give ${where} as a JSON ${type}`)
  return v as T
}

function integer(group: string, where: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback
  if (typeof v !== 'number' || !Number.isInteger(v))
    fail(group, `${where} must be an integer`, `give ${where} as a JSON integer`)
  return v
}

/** The edge settings an object (the tier_strategy or a tier_flows item) gives, over `base`. */
function edgeOf(group: string, where: string, o: Json, base: EdgeStrategy): EdgeStrategy {
  const writeMode = typed(group, `${where}.write_mode`, o.write_mode, 'string', base.writeMode)
  if (!WRITE_MODES.includes(writeMode))
    fail(group, `${where}.write_mode is invalid: ${writeMode}`, `use one of ${WRITE_MODES.join(', ')}`)
  const threshold = integer(
    group,
    `${where}.selective_write_threshold`,
    o.selective_write_threshold,
    base.threshold,
  )
  if (threshold <= 0)
    fail(group, `${where}.selective_write_threshold must be positive, got ${threshold}`, 'use 1 or more')
  return {
    writeMode,
    threshold,
    propagate: typed(
      group,
      `${where}.access_propagation_enabled`,
      o.access_propagation_enabled,
      'boolean',
      base.propagate,
    ),
    promote: typed(group, `${where}.promote_enabled`, o.promote_enabled, 'boolean', base.promote),
  }
}

/** The storages of a group, sorted by priority (a stable insertion sort, as std::sort does for a handful). */
function storagesOf(group: string, raw: unknown): StorageTier[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw))
    fail(group, 'storages must be an array', 'list the storages as an array of objects')
  const list = raw.map((s, i): StorageTier => {
    const where = `storages[${i}]`
    if (!isObject(s)) fail(group, `${where} must be an object`, 'give each storage as an object')
    const priority = integer(group, `${where}.priority`, s.priority, 0)
    if (priority < 0) fail(group, `${where}.priority must not be negative`, 'use 0 for the fastest tier')
    return {
      name: typed(group, `${where}.unique_name`, s.unique_name, 'string', ''),
      priority,
      capacity: typed(group, `${where}.capacity`, s.capacity, 'number', 0),
    }
  })
  return list
    .map((s, i) => ({s, i}))
    .sort((a, b) => a.s.priority - b.s.priority || a.i - b.i)
    .map((x) => x.s)
}

/**
 * The tiers of group `g` (named `group`), or undefined for a group of lmt's own forms (no tier_strategy, at most
 * one storage). `tiered`: the configuration is of the July generation (every group then needs a tier_strategy).
 */
export function resolveTiers(
  g: Json,
  group: string,
  tiered: boolean,
  notes: Notes,
): TierSettings | undefined {
  const storageCount = Array.isArray(g.storages) ? g.storages.length : 0
  if (!('tier_strategy' in g)) {
    if (tiered || storageCount > 1)
      fail(
        group,
        `instance_group '${group}' is missing required tier_strategy`,
        'add "tier_strategy": {"hierarchical_eviction_enabled": true, "write_mode": "write_through"} (or false for one shared tier)',
      )
    return undefined
  }
  const ts = g.tier_strategy
  if (!isObject(ts)) fail(group, 'tier_strategy must be an object', 'give tier_strategy as an object')
  const hierarchical = typed(
    group,
    'tier_strategy.hierarchical_eviction_enabled',
    ts.hierarchical_eviction_enabled,
    'boolean',
    false,
  )
  const base = edgeOf(group, 'tier_strategy', ts, {
    writeMode: 'write_through',
    propagate: true,
    promote: true,
    threshold: 2,
  })
  const storages = storagesOf(group, g.storages)
  const edges = storages.slice(1).map(() => ({...base}))
  const flows = ts.tier_flows ?? []
  if (!Array.isArray(flows))
    fail(group, 'tier_strategy.tier_flows must be an array', 'list the flows as an array')
  if (flows.length > 0) applyFlows(group, flows, storages, edges, base)
  const ttl = g.default_block_ttl_seconds
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl)))
    fail(group, 'default_block_ttl_seconds must be an integer', 'give the TTL in whole seconds')
  const settings: TierSettings = {
    hierarchical,
    storages,
    edges: hierarchical ? edges : [],
    defaultTtlSeconds: (ttl as number | undefined) ?? 0,
    refreshOnRead: typed(group, 'ttl_refresh_on_read', g.ttl_refresh_on_read, 'boolean', true),
  }
  if (!hierarchical && storages.length > 1)
    notes.add(
      'LMT_SIM_TIERS',
      `group "${group}": hierarchical eviction is off, so its ${storages.length} storages act as one tier "shared" of quota_capacity`,
    )
  if ('ttl_config' in g)
    notes.add(
      'LMT_SIM_IGNORED_KEY',
      `group "${group}": ttl_config is not read by this configuration generation; ignored`,
    )
  return settings
}

/** `tier_flows`: per-edge settings, each on an edge between tiers adjacent in priority order. */
function applyFlows(
  group: string,
  flows: unknown[],
  storages: StorageTier[],
  edges: EdgeStrategy[],
  base: EdgeStrategy,
): void {
  const names = storages.map((s) => s.name)
  if (storages.length < 2)
    fail(group, 'tier_strategy.tier_flows needs at least 2 storages', 'remove tier_flows or add a storage')
  if (new Set(names).size !== names.length)
    fail(group, 'storage unique_name values must be unique', 'give every storage its own unique_name')
  if (new Set(storages.map((s) => s.priority)).size !== storages.length)
    fail(group, 'storage priorities must be unique', 'give every storage its own priority')
  const seen = new Set<number>()
  flows.forEach((f, i) => {
    const where = `tier_strategy.tier_flows[${i}]`
    if (!isObject(f)) fail(group, `${where} must be an object`, 'give each flow as an object')
    const from = typed(group, `${where}.from_tier`, f.from_tier, 'string', '')
    const to = typed(group, `${where}.to_tier`, f.to_tier, 'string', '')
    if (from === '' || to === '')
      fail(group, `${where} needs from_tier and to_tier`, 'name both tiers of the edge')
    const at = names.indexOf(from)
    if (at < 0 || !names.includes(to))
      fail(group, `${where}: no storage named ${at < 0 ? from : to}`, `use one of ${names.join(', ')}`)
    if (names[at + 1] !== to)
      fail(
        group,
        `tier_strategy.tier_flows edge ${from}->${to} is not an adjacent priority edge; expected one of [${names
          .slice(1)
          .map((n, k) => `${names[k]}->${n}`)
          .join(', ')}]`,
        'a flow joins a tier to the next one in priority order',
      )
    if (seen.has(at))
      fail(group, `tier_strategy.tier_flows lists the edge ${from}->${to} twice`, 'list each edge once')
    seen.add(at)
    edges[at] = edgeOf(group, where, f, base)
  })
}

/** What a sweep or a report needs of a tiered group (config.ts's GroupConfig has these fields). */
interface TieredGroupLike {
  group_name: string
  quota_capacity?: number
  tiers?: TierSettings
  instances: ReadonlyArray<{eviction_policy_type: string; instance_id: string}>
}

/** The tiers' names of a group, in priority order (`shared` when hierarchical eviction is off). */
export function tierNamesOf(g: TieredGroupLike): string[] {
  const t = g.tiers
  if (t === undefined) return []
  return t.hierarchical ? t.storages.map((s) => s.name) : ['shared']
}

/**
 * The tier whose capacity a sweep of group `g` varies: the storage named `storage`, else what `--capacity` sets
 * (the first tier with hierarchical eviction, the shared quota without). Throws a usage error for a name that is
 * not one of the group's storages, or a name given for a group whose storages have no capacity of their own.
 */
export function sweptTierOf(g: TieredGroupLike, storage: string | undefined): number {
  if (storage === undefined) return 0
  const t = g.tiers
  if (t === undefined || !t.hierarchical)
    throw lmtError(
      'CLI_FLAG_NEEDS',
      '--sweep-storage',
      'a group with a tier_strategy and hierarchical eviction (without it the group has one shared capacity)',
      {suggestions: ['leave --sweep-storage out: the sweep then varies the group’s quota_capacity']},
    )
  const at = t.storages.findIndex((s) => s.name === storage)
  if (at < 0)
    throw lmtError('CLI_BAD_VALUE', '--sweep-storage', storage, `a storage of group "${g.group_name}"`, {
      suggestions: [`use one of ${t.storages.map((s) => s.name).join(', ')}`],
    })
  return at
}

/** The capacity (GiB; negative: unlimited) of tier `tier` of group `g`. */
export function tierCapacityOf(g: TieredGroupLike, tier: number): number {
  const t = g.tiers as TierSettings
  return t.hierarchical ? t.storages[tier].capacity : (g.quota_capacity ?? 0)
}

/** A copy of group `g` whose tier `tier` has `gb` GiB (a sweep point; the other tiers keep theirs). */
export function tieredGroupAtCapacity<G extends TieredGroupLike>(g: G, tier: number, gb: number): G {
  const copy = structuredClone(g)
  const t = copy.tiers as TierSettings
  if (t.hierarchical) t.storages[tier].capacity = gb
  else copy.quota_capacity = gb
  return copy
}

/**
 * Whether blocks of group `g` can expire: a `ttl` instance under a TTL. Then no play is bounded by the one with
 * every tier unlimited (a block evicted and written again gets a fresh TTL, while the unlimited cache's copy, which
 * a write never refreshes, expires), so that play is no ceiling.
 */
export function groupExpires(g: TieredGroupLike): boolean {
  const t = g.tiers
  return (
    t !== undefined && t.defaultTtlSeconds !== 0 && g.instances.some((i) => i.eviction_policy_type === 'ttl')
  )
}
