import {readFileSync} from 'node:fs'
import {basename, dirname, resolve} from 'node:path'
import {inputReadHints, lmtError} from '../../errors.js'
import {withoutBom} from '../../formats/json/trim.js'
import {nestsDeeperThan} from '../../formats/json/json-depth.js'
import {MAX_JSON_DEPTH} from '../../formats/json/parse.js'
import {fileStem} from '../../convert/settings.js'
import {type Notice, Notes} from './notes.js'
import {
  type GroupConfig as Capacities,
  type InstanceConfig as BlockWeight,
  gibCapacityInBlocks,
} from './capacity.js'
import {isTieredConfig, resolveTiers, TIER_GROUP_KEYS, type TierSettings} from './tiers.js'

export type PolicyName = 'lru' | 'random_lru' | 'leaf_aware_lru' | 'ttl'
export const POLICIES: readonly PolicyName[] = ['lru', 'random_lru', 'leaf_aware_lru', 'ttl']

export interface PolicyParams {
  sample_rate?: number
  shard_count?: number
  sample_times?: number
  eviction_amplification_factor?: number
  fallback_on_pressure?: boolean
}

export interface InstanceConfig extends BlockWeight {
  eviction_policy_type: PolicyName
  eviction_policy_params: PolicyParams
}

export interface GroupConfig extends Capacities {
  instances: InstanceConfig[]
  /** storage tiers and TTL (a configuration of the July-2026 generation) */
  tiers?: TierSettings
}

export interface SimConfig {
  trace_file_path: string
  output_result_path: string
  /** eviction_mode 1, 2 or 3; a configuration with a tier_strategy may give any other non-zero value (no eviction) */
  eviction_params: {eviction_mode: number; eviction_batch_size_per_instance: number}
  trace_replay: {mode: 'read_write' | 'request'; write_delay_ns: number}
  instance_groups: GroupConfig[]
  /** of the July-2026 generation (a group has a tier_strategy): played by the tiered model */
  tiered?: boolean
}

/** Values given on the command line (undefined = not given). */
export interface SimFlags {
  trace?: string
  outputDir?: string
  policy?: PolicyName
  capacity?: number
  capacityBlocks?: number
  /** --sweep: the capacity is swept, each point sets its own (the quick form's capacity is a placeholder) */
  capacitySwept?: boolean
  blockSize?: number
  bytesPerToken?: number
  /** bytes of every block (`--kv-layout`): capacities in GiB become blocks */
  bytesPerBlock?: number
  evictionMode?: 1 | 2 | 3
  batchSize?: number
  replayMode?: 'read_write' | 'request'
  writeDelayNs?: number
}

const IGNORED: Record<string, string[]> = {
  top: ['mamba_state'],
  group: [
    'storages',
    'hierarchical_eviction_enabled',
    'tier_write_mode',
    'enable_promote',
    'tier_strategy',
    'tier_flows',
    'default_block_ttl_seconds',
    'ttl_refresh_on_read',
    'ttl_config',
  ],
  instance: ['instance_group_name'],
}
const KNOWN: Record<string, string[]> = {
  top: ['trace_file_path', 'output_result_path', 'eviction_params', 'trace_replay', 'instance_groups'],
  eviction_params: ['eviction_mode', 'eviction_batch_size_per_instance'],
  trace_replay: ['mode', 'write_delay_ns'],
  group: ['group_name', 'quota_capacity', 'quota_capacity_blocks', 'used_percentage', 'instances'],
  instance: [
    'instance_id',
    'block_size',
    'bytes_per_token',
    'eviction_policy_type',
    'eviction_policy_params',
  ],
  params: [
    'sample_rate',
    'shard_count',
    'sample_times',
    'eviction_amplification_factor',
    'fallback_on_pressure',
  ],
}

type Json = Record<string, unknown>

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function pointer(parts: Array<string | number>): string {
  return '/' + parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
}

function reportKeys(
  obj: Json,
  known: string[],
  ignored: string[],
  at: Array<string | number>,
  notes: Notes,
): void {
  for (const k of Object.keys(obj)) {
    if (known.includes(k)) continue
    if (ignored.includes(k))
      notes.add('LMT_SIM_IGNORED_KEY', `${pointer([...at, k])} is not modelled by lmt and is ignored`)
    else notes.add('LMT_SIM_UNKNOWN_KEY', `${pointer([...at, k])} is not a known configuration key; ignored`)
  }
}

/** Whether text that is not one JSON document starts with a JSON object per line (a trace given as a configuration). */
function looksLikeTrace(text: string): boolean {
  const first = text.split('\n', 1)[0]
  try {
    const row = JSON.parse(withoutBom(first)) as unknown
    return isObject(row) && text.trimEnd().includes('\n')
  } catch {
    return false
  }
}

/** Reads and validates a configuration file (before flags). Relative paths resolve against its directory. */
export async function readConfigFile(path: string): Promise<{raw: Json; dir: string}> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw lmtError('SIM_CONFIG_READ', path, (err as Error).message, {
      suggestions: inputReadHints(err, 'a configuration file'),
    })
  }
  let raw: unknown
  try {
    raw = JSON.parse(withoutBom(text))
  } catch (err) {
    throw lmtError('SIM_CONFIG_NOT_JSON', path, (err as Error).message, {
      suggestions: looksLikeTrace(text)
        ? [
            `did you mean --trace ${path}? It looks like a trace: lmt simulate --trace ${path} --capacity-blocks N`,
          ]
        : ['a configuration is one JSON object (see samples/optimizer_config.json)'],
    })
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw lmtError('SIM_CONFIG_TOO_DEEP', path, MAX_JSON_DEPTH)
  if (!isObject(raw)) throw lmtError('SIM_CONFIG_NOT_OBJECT', path)
  if ('trace_type' in raw)
    throw lmtError('SIM_CONFIG_LEGACY', path, {
      suggestions: [
        'convert the trace to the standard JSONL with "lmt convert"',
        'delete "trace_type" and point "trace_file_path" at the converted trace',
        'express the old block capacity as "quota_capacity_blocks"',
      ],
    })
  if (Array.isArray(raw.instance_groups)) {
    for (const g of raw.instance_groups)
      if (isObject(g) && 'quota_capacity' in g && 'quota_capacity_blocks' in g)
        throw lmtError('SIM_CAPACITY_CONFLICT', String(g.group_name))
  }
  // the schema validator (ajv) loads only when a configuration file is read: the quick form never needs it
  const {validatorFor} = await import('../../schemas.js')
  const validate = validatorFor('simulate-config.schema.json')
  if (!validate(raw)) {
    const errors = (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.keyword === 'enum' ? `: ${(e.params as {allowedValues: unknown[]}).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` : ''}`,
    )
    throw lmtError('SIM_CONFIG_SCHEMA', path, errors)
  }
  // the July generation accepts any non-zero mode (other than 1–3: no eviction); the earlier one only 1–3
  const mode = isObject(raw.eviction_params) ? raw.eviction_params.eviction_mode : undefined
  if (mode !== undefined && ![1, 2, 3].includes(mode as number) && !isTieredConfig(raw.instance_groups))
    throw lmtError('SIM_CONFIG_SCHEMA', path, [
      '/eviction_params/eviction_mode must be equal to one of the allowed values: 1, 2, 3',
    ])
  return {raw, dir: dirname(resolve(path))}
}

export interface ResolvedConfig {
  config: SimConfig
  notices: Notice[]
  /** quick form: instances are created as the trace names them */
  quick: boolean
  quickInstance?: Omit<InstanceConfig, 'instance_id'>
  /**
   * where each configured instance's block size came from ('flag' or 'config'); an instance not listed (every
   * instance of the quick form without --block-size) has none, and the run infers it from the trace
   */
  blockSizeGiven: Map<string, 'flag' | 'config'>
  /** quick form: --block-size was given */
  quickBlockSizeGiven?: boolean
}

/** Applies flags and defaults to a configuration file's content (or builds the quick form) and checks it. */
export function resolveConfig(
  file: {raw: Json; dir: string} | undefined,
  flags: SimFlags,
  firstRowType?: string,
): ResolvedConfig {
  const notes = new Notes()
  if (!file) return quickForm(flags, notes, firstRowType)
  const raw = file.raw
  // the schema holds these objects (when given) and the types of their keys
  reportKeys(raw, KNOWN.top, IGNORED.top, [], notes)
  const ep = (raw.eviction_params ?? {}) as Json
  reportKeys(ep, KNOWN.eviction_params, [], ['eviction_params'], notes)
  const tr = (raw.trace_replay ?? {}) as Json
  reportKeys(tr, KNOWN.trace_replay, [], ['trace_replay'], notes)
  const pick = picker(notes)
  const tiered = isTieredConfig(raw.instance_groups)
  if (tiered && flags.evictionMode === undefined && (ep.eviction_mode ?? 0) === 0)
    throw lmtError(
      'SIM_TIER_CONFIG',
      '*',
      `eviction_params.eviction_mode is ${ep.eviction_mode === undefined ? 'required' : 'unspecified (0)'}`,
      {suggestions: ['set eviction_params.eviction_mode to 1, 2 or 3']},
    )
  const paths = resolvePaths(raw, file.dir, flags, notes)
  const config: SimConfig = {
    trace_file_path: paths.trace ?? '',
    output_result_path: paths.output ?? '',
    eviction_params: {
      eviction_mode: pick(
        flags.evictionMode,
        ep.eviction_mode,
        '/eviction_params/eviction_mode',
        1 as number,
      ),
      eviction_batch_size_per_instance: pick(
        flags.batchSize,
        ep.eviction_batch_size_per_instance,
        '/eviction_params/eviction_batch_size_per_instance',
        100,
      ),
    },
    trace_replay: {
      // a tiered configuration's generation reads no mode: its traces mix get, write and request rows
      mode: tiered
        ? 'read_write'
        : pick(flags.replayMode, tr.mode, '/trace_replay/mode', 'read_write' as 'read_write' | 'request'),
      write_delay_ns: pick(flags.writeDelayNs, tr.write_delay_ns, '/trace_replay/write_delay_ns', 1),
    },
    instance_groups: [],
  }
  if (tiered) {
    config.tiered = true
    if (tr.mode !== undefined || flags.replayMode !== undefined)
      notes.add(
        'LMT_SIM_IGNORED_KEY',
        'the replay mode is not read for a configuration with a tier_strategy: its trace may mix get, write and request rows',
      )
  }
  const seen: GroupContext = {
    tiered,
    flags,
    notes,
    pick,
    groupNames: new Set(),
    instanceIds: new Set(),
    blockSizeGiven: new Map(),
  }
  ;(raw.instance_groups as Json[]).forEach((g, gi) => {
    const group = resolveGroup(g, gi, seen)
    if (group !== undefined) config.instance_groups.push(group)
  })
  if (tiered) tieredModeNotice(config, notes)
  checkConfig(config)
  return {config, notices: notes.list, quick: false, blockSizeGiven: seen.blockSizeGiven}
}

/** A setting: the flag (a notice when it overrides the file), else the file's value, else the default (a notice). */
type Pick = <T>(flag: T | undefined, value: unknown, path: string, fallback: T) => T

function picker(notes: Notes): Pick {
  return <T>(flag: T | undefined, value: unknown, path: string, fallback: T): T => {
    if (flag !== undefined) {
      if (value !== undefined)
        notes.add(
          'LMT_SIM_OVERRIDE',
          `${path} ${JSON.stringify(value)} overridden by a flag with ${JSON.stringify(flag)}`,
        )
      return flag
    }
    if (value !== undefined) return value as T
    notes.add('LMT_SIM_DEFAULT', `${path} not set; using ${JSON.stringify(fallback)}`)
    return fallback
  }
}

/** The trace and the output directory: a flag (relative to the working directory) or the file's (to its folder). */
function resolvePaths(
  raw: Json,
  dir: string,
  flags: SimFlags,
  notes: Notes,
): {trace: string | undefined; output: string | undefined} {
  const path = (flag: string | undefined, key: string, flagName: string): string | undefined => {
    if (flag !== undefined && raw[key] !== undefined)
      notes.add('LMT_SIM_OVERRIDE', `/${key} overridden by ${flagName} ${flag}`)
    if (flag !== undefined) return resolve(flag)
    return typeof raw[key] === 'string' ? resolve(dir, raw[key]) : undefined
  }
  return {
    trace: path(flags.trace, 'trace_file_path', '--trace'),
    output: path(flags.outputDir, 'output_result_path', '--output-dir'),
  }
}

/** What resolving the groups and instances of one file shares: the flags, the notes, the names seen so far. */
interface GroupContext {
  /** the configuration is of the July-2026 generation */
  tiered: boolean
  flags: SimFlags
  notes: Notes
  pick: Pick
  groupNames: Set<string>
  instanceIds: Set<string>
  blockSizeGiven: Map<string, 'flag' | 'config'>
}

/**
 * One `instance_groups[gi]` entry with the flags applied, its notices in `ctx.notes`; undefined for a group of a
 * tiered configuration that the July Optimizer skips (§10.2).
 */
function resolveGroup(g: Json, gi: number, ctx: GroupContext): GroupConfig | undefined {
  const {flags, notes} = ctx
  const name = g.group_name as string
  const tiers = resolveTiers(g, name, ctx.tiered, notes)
  if (tiers !== undefined) return resolveTieredGroup(g, gi, name, tiers, ctx)
  reportKeys(g, KNOWN.group, IGNORED.group, ['instance_groups', gi], notes)
  if (ctx.groupNames.has(name))
    throw lmtError('SIM_CONFIG_DUPLICATE', 'group_name', name, pointer(['instance_groups', gi, 'group_name']))
  ctx.groupNames.add(name)
  if (Array.isArray(g.storages) && g.storages.length > 1)
    notes.add(
      'LMT_SIM_NOT_MODELLED',
      `group "${name}" has ${g.storages.length} storage tiers; lmt models one shared tier of quota_capacity`,
    )
  if (g.hierarchical_eviction_enabled === true)
    notes.add('LMT_SIM_NOT_MODELLED', `group "${name}": hierarchical eviction is not modelled`)
  if (typeof g.default_block_ttl_seconds === 'number' && g.default_block_ttl_seconds !== 0)
    notes.add('LMT_SIM_NOT_MODELLED', `group "${name}": TTL expiry is not modelled (blocks never expire)`)
  const group: GroupConfig = {group_name: name, used_percentage: 1, instances: []}
  const at = (k: string) => pointer(['instance_groups', gi, k])
  if (flags.capacity !== undefined || flags.capacityBlocks !== undefined) {
    if (g.quota_capacity !== undefined || g.quota_capacity_blocks !== undefined)
      notes.add(
        'LMT_SIM_OVERRIDE',
        `${at(g.quota_capacity !== undefined ? 'quota_capacity' : 'quota_capacity_blocks')} overridden by ${flags.capacity !== undefined ? `--capacity ${flags.capacity}` : `--capacity-blocks ${flags.capacityBlocks}`}`,
      )
    if (flags.capacity !== undefined) group.quota_capacity = flags.capacity
    else group.quota_capacity_blocks = flags.capacityBlocks
  } else if (g.quota_capacity !== undefined) group.quota_capacity = g.quota_capacity as number
  else if (g.quota_capacity_blocks !== undefined)
    group.quota_capacity_blocks = g.quota_capacity_blocks as number
  if (g.used_percentage === undefined)
    notes.add('LMT_SIM_DEFAULT', `${at('used_percentage')} not set; using 1.0`)
  else group.used_percentage = g.used_percentage as number
  if (group.used_percentage > 1)
    notes.add(
      'LMT_SIM_UNUSUAL_VALUE',
      `group "${name}": used_percentage ${group.used_percentage} puts the quota above the capacity`,
    )
  if (group.quota_capacity !== undefined && group.quota_capacity < 0 && group.quota_capacity !== -1)
    notes.add(
      'LMT_SIM_UNUSUAL_VALUE',
      `group "${name}": quota_capacity ${group.quota_capacity} is negative and means infinite`,
    )
  if (flags.bytesPerBlock !== undefined) gibCapacityInBlocks(group, flags.bytesPerBlock)
  ;(g.instances as Json[]).forEach((inst, ii) => group.instances.push(resolveInstance(inst, gi, ii, ctx)))
  return group
}

/** What sizes a tiered group's blocks, as the hint of a flag that would size them otherwise. */
export const TIERED_BLOCK_BYTES_HINT =
  "a tiered configuration's block bytes are each instance's block_size × bytes_per_token: drop --kv-layout (--bytes-per-token sets every instance's)"

/**
 * A group of the July-2026 generation: its keys as that Optimizer reads them (quota_capacity and used_percentage
 * default to 0), the capacity flags applied to the group's quota or, with hierarchical eviction, to its first tier.
 */
function resolveTieredGroup(
  g: Json,
  gi: number,
  name: string,
  tiers: TierSettings,
  ctx: GroupContext,
): GroupConfig | undefined {
  const {flags, notes} = ctx
  reportKeys(g, [...KNOWN.group, ...TIER_GROUP_KEYS], [], ['instance_groups', gi], notes)
  // as the July Optimizer builds its instances: a repeated name, then a group without storages, are skipped
  const skip = ctx.groupNames.has(name)
    ? `its group_name "${name}" appears earlier`
    : tiers.storages.length === 0
      ? 'it has no storages'
      : undefined
  if (skip !== undefined) {
    notes.add(
      'LMT_SIM_SKIPPED_CONFIG',
      `${pointer(['instance_groups', gi])} skipped with its instances, as the Optimizer skips it: ${skip}`,
      'warning',
    )
    return undefined
  }
  ctx.groupNames.add(name)
  const at = (k: string) => pointer(['instance_groups', gi, k])
  const group: GroupConfig = {group_name: name, used_percentage: 0, instances: [], tiers}
  if (g.used_percentage === undefined)
    notes.add(
      'LMT_SIM_DEFAULT',
      `${at('used_percentage')} not set; using 0 as this configuration generation does (nothing stays cached)`,
    )
  else group.used_percentage = g.used_percentage as number
  if (flags.capacity !== undefined) {
    if (tiers.hierarchical) tiers.storages[0].capacity = flags.capacity
    else group.quota_capacity = flags.capacity
    notes.add(
      'LMT_SIM_OVERRIDE',
      `group "${name}": ${tiers.hierarchical ? `tier ${tiers.storages[0].name}` : 'quota_capacity'} overridden by --capacity ${flags.capacity}`,
    )
  }
  // with hierarchical eviction, --capacity sets the first tier and quota_capacity stays the file's (unread)
  if (group.quota_capacity === undefined && g.quota_capacity !== undefined)
    group.quota_capacity = g.quota_capacity as number
  else if (group.quota_capacity === undefined) {
    group.quota_capacity = 0
    if (!tiers.hierarchical)
      notes.add(
        'LMT_SIM_DEFAULT',
        `${at('quota_capacity')} not set; using 0 as this configuration generation does (nothing stays cached)`,
      )
  }
  if (flags.capacityBlocks !== undefined || g.quota_capacity_blocks !== undefined)
    throw lmtError(
      'SIM_TIER_CONFIG',
      name,
      'capacities of tiered groups are in GiB (2^30 bytes: quota_capacity, storages[].capacity)',
      {
        suggestions: ['give the capacity in GiB with bytes_per_token on every instance'],
      },
    )
  // a tier's usage counts each instance's block_size × bytes_per_token: one layout for every block would go unread
  if (flags.bytesPerBlock !== undefined)
    throw lmtError('CLI_FLAG_NEEDS', '--kv-layout', 'a configuration without tier_strategy', {
      suggestions: [TIERED_BLOCK_BYTES_HINT],
    })
  ;(g.instances as Json[]).forEach((inst, ii) => {
    const id = inst.instance_id as string
    if (ctx.instanceIds.has(id))
      return notes.add(
        'LMT_SIM_SKIPPED_CONFIG',
        `${pointer(['instance_groups', gi, 'instances', ii])} skipped, as the Optimizer skips it: its instance_id "${id}" appears earlier (its rows go to the first)`,
        'warning',
      )
    group.instances.push(resolveInstance(inst, gi, ii, ctx))
  })
  for (const i of group.instances) {
    if (i.bytes_per_token === undefined || i.bytes_per_token <= 0)
      throw lmtError(
        'SIM_TIER_CONFIG',
        name,
        `bytes_per_token must be positive for instance ${i.instance_id}, got ${i.bytes_per_token ?? 0}`,
        {
          suggestions: ['set bytes_per_token (the KV bytes one token takes) on every instance'],
        },
      )
  }
  return group
}

/** One `instances[ii]` entry of group `gi` with the flags applied. */
function resolveInstance(inst: Json, gi: number, ii: number, ctx: GroupContext): InstanceConfig {
  const {flags, notes, pick} = ctx
  const at = ['instance_groups', gi, 'instances', ii]
  reportKeys(inst, KNOWN.instance, IGNORED.instance, at, notes)
  const id = inst.instance_id as string
  if (ctx.instanceIds.has(id))
    throw lmtError('SIM_CONFIG_DUPLICATE', 'instance_id', id, pointer([...at, 'instance_id']))
  ctx.instanceIds.add(id)
  const ip = (k: string) => pointer([...at, k])
  const params = {...(inst.eviction_policy_params as PolicyParams | undefined)}
  reportKeys(params as Json, KNOWN.params, [], [...at, 'eviction_policy_params'], notes)
  const sizeGiven = flags.blockSize !== undefined || inst.block_size !== undefined
  if (sizeGiven) ctx.blockSizeGiven.set(id, flags.blockSize !== undefined ? 'flag' : 'config')
  const instance: InstanceConfig = {
    instance_id: id,
    // a missing block size is inferred from the trace before the run (16 until then)
    block_size: sizeGiven ? pick(flags.blockSize, inst.block_size, ip('block_size'), 16) : 16,
    eviction_policy_type: pick(
      flags.policy,
      inst.eviction_policy_type,
      ip('eviction_policy_type'),
      'lru' as PolicyName,
    ),
    eviction_policy_params: params,
  }
  const bpt = flags.bytesPerToken ?? (inst.bytes_per_token as number | undefined)
  if (flags.bytesPerToken !== undefined && inst.bytes_per_token !== undefined)
    notes.add('LMT_SIM_OVERRIDE', `${ip('bytes_per_token')} overridden by --bytes-per-token`)
  if (bpt !== undefined) instance.bytes_per_token = bpt
  if (ctx.tiered) tieredPolicyNotices(instance, notes)
  else policyNotices(instance, notes)
  return instance
}

function policyNotices(i: InstanceConfig, notes: Notes): void {
  const p = i.eviction_policy_params
  if (
    (i.eviction_policy_type === 'lru' || i.eviction_policy_type === 'leaf_aware_lru') &&
    ((p.shard_count ?? 1) !== 1 || (p.eviction_amplification_factor ?? 1) > 1)
  )
    notes.add(
      'LMT_SIM_NOT_MODELLED',
      `instance "${i.instance_id}": sharded or amplified LRU is not modelled; exact LRU is used`,
    )
  if (i.eviction_policy_type === 'ttl' && p.fallback_on_pressure === false)
    notes.add(
      'LMT_SIM_NOT_MODELLED',
      `instance "${i.instance_id}": ttl without fallback_on_pressure never evicts (expiry is not modelled); the cache may grow without bound`,
    )
}

/** A tiered configuration's instances (none left: the Optimizer's error) and an eviction mode that never evicts. */
function tieredModeNotice(config: SimConfig, notes: Notes): void {
  if (config.instance_groups.every((g) => g.instances.length === 0))
    throw lmtError('SIM_TIER_CONFIG', '*', 'no instance remains once the skipped groups are left out', {
      suggestions: ['give every group its storages and a group_name of its own'],
    })
  const mode = config.eviction_params.eviction_mode
  if (![1, 2, 3].includes(mode))
    notes.add(
      'LMT_SIM_UNUSUAL_VALUE',
      `eviction_mode ${mode} is not 1, 2 or 3: as the Optimizer does, no capacity eviction ever happens (only TTL expiry removes blocks)`,
      'warning',
    )
}

/** The July generation's `lru` without shard_count is its sharded approximation (1024 shards), not exact LRU. */
function tieredPolicyNotices(i: InstanceConfig, notes: Notes): void {
  if (i.eviction_policy_type === 'lru' && i.eviction_policy_params.shard_count === undefined)
    notes.add(
      'LMT_SIM_SHARDED_LRU',
      `instance "${i.instance_id}": lru without shard_count is the sharded LRU of this configuration generation (1024 shards, 32 rounds), not exact LRU; set "shard_count": 1 for exact LRU`,
    )
}

/** The semantic checks of docs/simulate.md §2.4 on the effective configuration. */
function checkConfig(config: SimConfig): void {
  for (const g of config.instance_groups) {
    if (g.quota_capacity === undefined && g.quota_capacity_blocks === undefined)
      throw lmtError('SIM_CAPACITY_MISSING', g.group_name, {
        suggestions: [
          'set quota_capacity (GiB) or quota_capacity_blocks, or pass --capacity / --capacity-blocks',
        ],
      })
    if (g.quota_capacity !== undefined && g.quota_capacity >= 0) {
      for (const i of g.instances) {
        if (i.bytes_per_token === undefined)
          throw lmtError('SIM_BYTES_PER_TOKEN_MISSING', i.instance_id, g.group_name, {
            suggestions: [
              'add bytes_per_token to the instance',
              'or give the capacity in blocks (quota_capacity_blocks / --capacity-blocks)',
            ],
          })
      }
      const maxWeight = Math.max(...g.instances.map((i) => i.block_size * (i.bytes_per_token ?? 1)))
      if (g.quota_capacity * 2 ** 30 >= 2 ** 53 || maxWeight >= 2 ** 53)
        throw lmtError('SIM_CAPACITY_TOO_LARGE', g.group_name)
    }
  }
  if (!config.trace_file_path) throw lmtError('SIM_CONFIG_NO_TRACE')
  if (!config.output_result_path) throw lmtError('SIM_CONFIG_NO_OUTPUT_DIR')
}

function quickForm(flags: SimFlags, notes: Notes, firstRowType?: string): ResolvedConfig {
  const trace = resolve(flags.trace as string)
  const out = resolve(flags.outputDir ?? `${fileStem(basename(trace))}.simulate`)
  const group: GroupConfig = {group_name: 'default', used_percentage: 1, instances: []}
  if (flags.capacity !== undefined) group.quota_capacity = flags.capacity
  else group.quota_capacity_blocks = flags.capacityBlocks ?? -1
  if (flags.bytesPerBlock !== undefined) gibCapacityInBlocks(group, flags.bytesPerBlock)
  const config: SimConfig = {
    trace_file_path: trace,
    output_result_path: out,
    eviction_params: {
      eviction_mode: flags.evictionMode ?? 3,
      eviction_batch_size_per_instance: flags.batchSize ?? 100,
    },
    trace_replay: {
      mode: flags.replayMode ?? (firstRowType === 'request' ? 'request' : 'read_write'),
      write_delay_ns: flags.writeDelayNs ?? 1,
    },
    instance_groups: [group],
  }
  const quickInstance: Omit<InstanceConfig, 'instance_id'> = {
    block_size: flags.blockSize ?? 16,
    eviction_policy_type: flags.policy ?? 'lru',
    eviction_policy_params: {},
    ...(flags.bytesPerToken !== undefined ? {bytes_per_token: flags.bytesPerToken} : {}),
  }
  const cap = flags.capacitySwept
    ? 'its capacity swept'
    : group.quota_capacity !== undefined
      ? `${group.quota_capacity} GiB`
      : group.quota_capacity_blocks === -1
        ? 'infinite'
        : `${group.quota_capacity_blocks} blocks`
  notes.add(
    'LMT_SIM_QUICK_FORM',
    `quick form: one group "default" (${cap}), every instance of the trace with block_size ${flags.blockSize ?? 'inferred from its rows'} and policy ${quickInstance.eviction_policy_type}, eviction_mode ${config.eviction_params.eviction_mode}, replay mode ${config.trace_replay.mode}`,
  )
  if (group.quota_capacity !== undefined && group.quota_capacity >= 0 && flags.bytesPerToken === undefined)
    throw lmtError('CLI_FLAG_NEEDS', 'a capacity in GiB', '--bytes-per-token or --kv-layout', {
      suggestions: ['pass --bytes-per-token or --kv-layout', 'or use --capacity-blocks'],
    })
  return {
    config,
    notices: notes.list,
    quick: true,
    quickInstance,
    blockSizeGiven: new Map(),
    quickBlockSizeGiven: flags.blockSize !== undefined,
  }
}
