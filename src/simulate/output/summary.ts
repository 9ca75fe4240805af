// summary.json (docs/simulate.md §5.5) and the terminal table (§5.4), from a replay's state.
import type {GroupConfig, SimConfig} from '../config/config.js'
import {formatG} from '../../util/format-g.js'
import {rate} from '../engine/hit-rate-csv.js'
import {quotaUnits, weightOf} from '../config/capacity.js'
import {type InstanceCounters, type InstState, type Player, zeroCounters} from '../engine/player.js'
import type {TraceReadStats} from '../input/trace-source.js'

/** The capacity of a configuration's first group, as the result line and the plot's title give it. */
export function capacityLabel(cfg: SimConfig): string {
  const g = cfg.instance_groups[0]
  if (g.tiers !== undefined) return tierCapacityLabel(g)
  const q = quotaUnits(g)
  if (q === null) return 'inf'
  if (g.quota_capacity_blocks !== undefined) return `${q} blocks`
  const weights = new Set(g.instances.map((i) => weightOf(g, i)))
  const gb = formatG(g.quota_capacity as number)
  if (weights.size === 1) return `${Math.floor(q / [...weights][0])} blocks (${gb} GiB)`
  return `${gb} GiB`
}

/** A tiered group's capacity: each tier's (GiB, after used_percentage), or the shared tier's. */
function tierCapacityLabel(g: GroupConfig): string {
  const gb = (x: number) => (x < 0 ? 'inf' : `${formatG(x * g.used_percentage)} GiB`)
  const tiers = g.tiers as NonNullable<GroupConfig['tiers']>
  if (!tiers.hierarchical) return `${gb(g.quota_capacity ?? 0)} (one shared tier)`
  return tiers.storages.map((s) => `${s.name} ${gb(s.capacity)}`).join(' + ')
}

/** A tiered instance's hits per tier (in priority order). */
function tierSummary(i: InstState): Array<Record<string, unknown>> | undefined {
  const tiered = i.tiered
  if (tiered === undefined) return undefined
  const names = tiered.group.setup.tierNames
  return names.map((name, t) => ({
    tier: name,
    hit_tokens: i.accTierHitTokens[t],
    token_hit_rate: rate(i.accTierHitTokens[t], i.counters.input_tokens),
    final_blocks: tiered.policies[t].size,
  }))
}

export function instanceSummary(i: InstState, csv: string | null): Record<string, unknown> {
  const c = i.counters
  const tiers = tierSummary(i)
  return {
    instance_id: i.cfg.instance_id,
    group_name: i.group.cfg.group_name,
    block_size: i.cfg.block_size,
    bytes_per_token: i.cfg.bytes_per_token ?? null,
    policy: i.cfg.eviction_policy_type,
    ...c,
    token_hit_rate: rate(c.hit_tokens, c.input_tokens),
    local_token_hit_rate: rate(c.local_hit_tokens, c.input_tokens),
    remote_token_hit_rate: rate(c.remote_hit_tokens, c.input_tokens),
    block_hit_rate: rate(c.hit_blocks, c.read_blocks),
    ...(tiers !== undefined ? {tiers} : {}),
    csv,
  }
}

export function totalsOf(members: ReadonlyArray<{counters: InstanceCounters}>): Record<string, number> {
  const t: Record<string, number> = zeroCounters()
  for (const k of Object.keys(t) as Array<keyof InstanceCounters>)
    t[k] = members.reduce((a, m) => a + m.counters[k], 0)
  t.token_hit_rate = rate(t.hit_tokens, t.input_tokens)
  t.local_token_hit_rate = rate(t.local_hit_tokens, t.input_tokens)
  t.remote_token_hit_rate = rate(t.remote_hit_tokens, t.input_tokens)
  t.block_hit_rate = rate(t.hit_blocks, t.read_blocks)
  return t
}

/** A group's entry of summary.json's `oracles.infinite`, from the totals of its infinite play. */
export function infiniteDoc(group_name: string, t: Record<string, number>) {
  return {
    group_name,
    token_hit_rate: t.token_hit_rate,
    block_hit_rate: t.block_hit_rate,
    hit_blocks: t.hit_blocks,
  }
}

export function groupSummary(r: Player): Array<Record<string, unknown>> {
  return r.groups.map((g) => {
    const q = quotaUnits(g.cfg)
    const byBlocks = g.cfg.quota_capacity_blocks !== undefined
    const w = g.cfg.instances.map((i) => weightOf(g.cfg, i))
    const equal = new Set(w).size <= 1
    const cap = byBlocks ? g.cfg.quota_capacity_blocks : g.cfg.quota_capacity
    const infinite = q === null
    let capacityGb: number | null = null
    if (!byBlocks && !infinite) capacityGb = g.cfg.quota_capacity as number
    else if (
      byBlocks &&
      !infinite &&
      equal &&
      g.cfg.instances.length > 0 && // the quick form's group is empty when the trace had no row to replay
      g.cfg.instances.every((i) => i.bytes_per_token !== undefined)
    )
      capacityGb =
        ((g.cfg.quota_capacity_blocks as number) *
          g.cfg.instances[0].block_size *
          (g.cfg.instances[0].bytes_per_token as number)) /
        2 ** 30
    return {
      group_name: g.cfg.group_name,
      unit: byBlocks ? 'block' : 'byte',
      capacity: infinite ? null : cap,
      infinite,
      used_percentage: g.cfg.used_percentage,
      quota_units: q,
      quota_blocks: q === null || !equal || w.length === 0 ? null : Math.floor(q / w[0]),
      capacity_gb: capacityGb,
      eviction_mode: g.settings.mode,
      eviction_batch_size_per_instance: g.settings.batch,
      instances: g.members.map((m) => m.cfg.instance_id),
      totals: totalsOf(g.members),
    }
  })
}

export function traceSummary(
  path: string,
  stats: TraceReadStats,
  r: Player,
  cfg: SimConfig,
  sorted: boolean,
): Record<string, unknown> {
  return {
    path,
    bytes: stats.bytes,
    rows: stats.rows,
    rows_by_type: stats.rowsByType,
    replay_mode: cfg.trace_replay.mode,
    write_delay_ns: cfg.trace_replay.write_delay_ns,
    sorted_input: sorted,
    first_timestamp_ns: r.firstTs?.toString() ?? null,
    last_timestamp_ns: r.lastTs?.toString() ?? null,
    skipped: {
      unknown_instance: r.skips.unknown_instance,
      unsupported_query_type: r.skips.unsupported_query_type,
      invalid: Object.fromEntries(Object.entries(stats.invalid).sort()),
    },
    unknown_instances: [...r.skips.unknownInstances].map(([instance_id, c]) => ({instance_id, ...c})),
  }
}

/** The sweep document without the internal fields used for the plot and the totals. */
export function publicSweepDoc(doc: Record<string, unknown>): Record<string, unknown> {
  const {group_name, unit, points, wss_blocks, series, stack, csv, tiers} = doc
  return {group_name, unit, points, wss_blocks, series, stack, csv, ...(tiers ? {tiers} : {})}
}

/** The configuration with quick-form instances filled in (what `config` in summary.json echoes). */
export function cfgWithInstances(cfg: SimConfig, r: Player): SimConfig {
  const copy = structuredClone(cfg)
  if (copy.instance_groups.length === 1 && copy.instance_groups[0].instances.length === 0)
    copy.instance_groups[0].instances = r.ordered.map((i) => structuredClone(i.cfg))
  return copy
}
