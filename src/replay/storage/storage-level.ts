// The storage level: LMCache's StorageManager replayed against lmt's model. It is core, not a plugin: `lmt replay`'s
// --help and `lmt convert --mode lct` depend on its flags and configuration (docs/architecture.md).
import {Flags} from '@oclif/core'
import {JsonFloat} from '../../jsonl/json-float.js'
import type {DecodedArgs} from '../../lct/codecs.js'
import type {TraceRecorder} from '../../lct/recorder.js'
import type {LctHeader} from '../../lct/types.js'
import {keyTupleId, MemoryLayoutDesc, ObjectKey, PrefetchRequestSpec, PyTuple} from '../../lct/values.js'
import {
  type LevelObservations,
  MapDispatcher,
  type ReplayContext,
  type ReplayEnv,
  type ReplayLevel,
} from '../level.js'
import {
  buildConfig,
  flagsFromHeader,
  type ModelOptions,
  storageConfigDict,
  storageConfigDigest,
  type StorageFlags,
  type StorageManagerConfig,
} from './config.js'
import {type ReadContext, SM, StorageManagerModel} from './model.js'

interface StorageConfig {
  config: StorageManagerConfig
  options: ModelOptions
}

interface Target {
  model: StorageManagerModel
  env: ReplayEnv
  final?: {writeLocked: number; readLocked: number; temporary: number}
}

// ------------------------------------------------------------------------------------------ argument adapters

function checkNames(
  method: string,
  args: DecodedArgs,
  allowed: readonly string[],
  required: readonly string[],
): void {
  // for…in: no array of names per call (decoded args are null-prototype, so nothing is inherited)
  for (const k in args)
    if (!allowed.includes(k)) throw new TypeError(`${method}() got an unexpected argument '${k}'`)
  for (const k of required)
    if (!(k in args)) throw new TypeError(`${method}() missing required argument '${k}'`)
}

function keysOf(method: string, v: unknown): ObjectKey[] {
  const list = v instanceof PyTuple ? v.items : v
  let ok = Array.isArray(list)
  for (let i = 0; ok && i < (list as unknown[]).length; i++) ok = (list as unknown[])[i] instanceof ObjectKey
  if (!ok) throw new TypeError(`${method}() argument 'keys' must be a list of ObjectKey`)
  return list as ObjectKey[]
}

function layoutOf(method: string, v: unknown): MemoryLayoutDesc {
  if (!(v instanceof MemoryLayoutDesc))
    throw new TypeError(`${method}() argument 'layout_desc' must be a MemoryLayoutDesc`)
  return v
}

function intOf(method: string, name: string, v: unknown): number {
  if (typeof v === 'bigint') return Number(v)
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new TypeError(`${method}() argument '${name}' must be an integer`)
  return v
}

function strOf(method: string, name: string, v: unknown): string {
  if (typeof v !== 'string') throw new TypeError(`${method}() argument '${name}' must be a string`)
  return v
}

const CONTEXTS = 'read_contexts'

function contexts(ctx: ReplayContext<Target>): Map<string, ReadContext[]> {
  let m = ctx.scratch.get(CONTEXTS) as Map<string, ReadContext[]> | undefined
  if (!m) ctx.scratch.set(CONTEXTS, (m = new Map()))
  return m
}

// ------------------------------------------------------------------------------------------ the level

const STORAGE = 'STORAGE MANAGER'
const MODEL = 'MODEL OPTIONS'

/** LMCache's spelling of an eviction policy, whatever the case typed (lru → LRU, NOOP → noop); others as given. */
export function normalizeEvictionPolicy(v: string): string {
  return ({lru: 'LRU', noop: 'noop'} as Record<string, string>)[v.toLowerCase()] ?? v
}

const storageFlags = {
  'l1-size-gb': Flags.string({
    summary: 'L1 size in GB (required unless --config-from-header).',
    helpGroup: STORAGE,
  }),
  'l1-use-lazy': Flags.boolean({
    summary: 'Lazy L1 growth (enters the config digest only; not modelled).',
    allowNo: true,
    helpGroup: STORAGE,
  }),
  'l1-init-size-gb': Flags.integer({
    summary: 'Initial L1 size in GB (default 20; enters the config digest only).',
    helpGroup: STORAGE,
  }),
  'l1-align-bytes': Flags.integer({
    summary: 'L1 allocation alignment in bytes, a power of two (default 4096).',
    helpGroup: STORAGE,
  }),
  'l1-write-ttl-seconds': Flags.integer({
    summary: 'Seconds a write lock lasts (default 600).',
    helpGroup: STORAGE,
  }),
  'l1-read-ttl-seconds': Flags.integer({
    summary: 'Seconds a read lock lasts (default 300).',
    helpGroup: STORAGE,
  }),
  'eviction-policy': Flags.string({
    summary: 'LRU or noop, in any case (required unless --config-from-header).',
    parse: async (v) => normalizeEvictionPolicy(v),
    helpGroup: STORAGE,
  }),
  'eviction-trigger-watermark': Flags.string({
    summary: 'Share of L1 in use that starts an eviction (default 0.8).',
    helpGroup: STORAGE,
  }),
  'eviction-ratio': Flags.string({
    summary: 'Share of the tracked keys evicted at each eviction (default 0.2).',
    helpGroup: STORAGE,
  }),
  'l2-store-policy': Flags.string({
    summary: 'L2 store policy (only "default" is modelled).',
    helpGroup: STORAGE,
  }),
  'l2-prefetch-policy': Flags.string({
    summary: 'L2 prefetch policy (only "default" is modelled).',
    helpGroup: STORAGE,
  }),
  'l2-prefetch-max-in-flight': Flags.integer({
    summary: 'L2 prefetch requests at a time (default 8).',
    helpGroup: STORAGE,
  }),
  'l2-adapter': Flags.string({
    summary:
      'An L2 adapter as JSON, e.g. {"type": "mock", "max_size_gb": 64, "mock_bandwidth_gb": 4} (repeatable).',
    multiple: true,
    helpGroup: STORAGE,
  }),
  'model-l1-alloc': Flags.string({
    summary: 'Batch allocation: all-or-nothing (design era) or largest-prefix.',
    options: ['all-or-nothing', 'largest-prefix'],
    helpGroup: MODEL,
  }),
  'model-lru-order': Flags.string({
    summary: 'How a batch enters the LRU: reversed (first key most recent) or forward.',
    options: ['reversed', 'forward'],
    helpGroup: MODEL,
  }),
  'model-write-pending': Flags.boolean({
    summary: 'Objects whose write lock expired before finish_write stay unreadable.',
    helpGroup: MODEL,
  }),
  'config-from-header': Flags.boolean({
    summary: "Take every storage flag not given from the trace header's config.",
    helpGroup: STORAGE,
  }),
}

function num(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined
  const n = typeof v === 'number' ? v : Number(v)
  if (typeof v === 'string' && v.trim() === '') return NaN
  if (Number.isNaN(n))
    throw Object.assign(new Error(`--${name}: "${String(v)}" is not a number`), {replayConfig: true})
  return n
}

export const storageLevel: ReplayLevel<Target, StorageConfig> = {
  name: 'storage',
  description:
    "LMCache's StorageManager: L1 with TTL locks, LRU eviction, mock L2, store and prefetch controllers",
  flags: storageFlags,
  replayableSchemaVersions: [2],

  parseConfig(flags, header: LctHeader, warn) {
    let f: StorageFlags = {
      'l1-size-gb': num('l1-size-gb', flags['l1-size-gb']),
      'l1-use-lazy': flags['l1-use-lazy'] as boolean | undefined,
      'l1-init-size-gb': flags['l1-init-size-gb'] as number | undefined,
      'l1-align-bytes': flags['l1-align-bytes'] as number | undefined,
      'l1-write-ttl-seconds': flags['l1-write-ttl-seconds'] as number | undefined,
      'l1-read-ttl-seconds': flags['l1-read-ttl-seconds'] as number | undefined,
      'eviction-policy': flags['eviction-policy'] as string | undefined,
      'eviction-trigger-watermark': num('eviction-trigger-watermark', flags['eviction-trigger-watermark']),
      'eviction-ratio': num('eviction-ratio', flags['eviction-ratio']),
      'l2-store-policy': flags['l2-store-policy'] as string | undefined,
      'l2-prefetch-policy': flags['l2-prefetch-policy'] as string | undefined,
      'l2-prefetch-max-in-flight': flags['l2-prefetch-max-in-flight'] as number | undefined,
      'l2-adapter': flags['l2-adapter'] as string[] | undefined,
      'model-l1-alloc': flags['model-l1-alloc'] as string | undefined,
      'model-lru-order': flags['model-lru-order'] as string | undefined,
      'model-write-pending': flags['model-write-pending'] as boolean | undefined,
    }
    for (const k of Object.keys(f) as Array<keyof StorageFlags>) if (f[k] === undefined) delete f[k]
    if (flags['config-from-header']) f = flagsFromHeader(header.smConfigJson, f, warn)
    return buildConfig(f)
  },

  configDigest: (c) => storageConfigDigest(c.config),

  createTarget(c, env) {
    return {model: new StorageManagerModel(c.config, c.options, env.scheduler, env.warn), env}
  },

  buildDispatcher() {
    const d = new MapDispatcher<Target>()
    d.register(`${SM}.reserve_write`, ({target}, a) => {
      const m = 'reserve_write'
      checkNames(m, a, ['keys', 'layout_desc', 'mode'], ['keys', 'layout_desc'])
      const keys = keysOf(m, a.keys)
      const layout = layoutOf(m, a.layout_desc)
      const mode = 'mode' in a ? strOf(m, 'mode', a.mode) : 'all'
      target.model.reserveWrite(keys, layout, mode)
    })
    d.register(`${SM}.finish_write`, ({target}, a) => {
      checkNames('finish_write', a, ['keys'], ['keys'])
      target.model.finishWrite(keysOf('finish_write', a.keys))
    })
    d.register(`${SM}.abort_write`, ({target}, a) => {
      checkNames('abort_write', a, ['keys'], ['keys'])
      target.model.abortWrite(keysOf('abort_write', a.keys))
    })
    d.register(`${SM}.submit_prefetch_task`, ({target}, a) => {
      const m = 'submit_prefetch_task'
      if ('spec' in a) {
        checkNames(m, a, ['spec', 'external_request_id', 'skip_l2'], ['spec'])
        if (!(a.spec instanceof PrefetchRequestSpec))
          throw new TypeError(`${m}() argument 'spec' must be a PrefetchRequestSpec`)
        const ext = 'external_request_id' in a ? strOf(m, 'external_request_id', a.external_request_id) : ''
        if ('skip_l2' in a && typeof a.skip_l2 !== 'boolean')
          throw new TypeError(`${m}() argument 'skip_l2' must be a bool`)
        target.model.submitPrefetchTaskSpec(a.spec, ext, (a.skip_l2 as boolean | undefined) ?? false)
        return
      }
      checkNames(m, a, ['keys', 'layout_desc', 'extra_count', 'external_request_id'], ['keys', 'layout_desc'])
      const keys = keysOf(m, a.keys)
      const layout = layoutOf(m, a.layout_desc)
      const extra = 'extra_count' in a ? intOf(m, 'extra_count', a.extra_count) : 0
      const ext = 'external_request_id' in a ? strOf(m, 'external_request_id', a.external_request_id) : ''
      target.model.submitPrefetchTask(keys, layout, extra, ext)
    })
    d.register(`${SM}.finish_read_prefetched`, ({target}, a) => {
      const m = 'finish_read_prefetched'
      checkNames(m, a, ['keys', 'extra_count', 'shares', 'read_locks'], ['keys'])
      for (const other of ['shares', 'read_locks'])
        if ('extra_count' in a && other in a)
          throw new TypeError(`${m}() got both 'extra_count' and '${other}'`)
      if ('shares' in a && 'read_locks' in a)
        throw new TypeError(`${m}() got an unexpected argument 'read_locks'`)
      const keys = keysOf(m, a.keys)
      let extra = 0
      if ('extra_count' in a) extra = intOf(m, 'extra_count', a.extra_count)
      else if ('shares' in a) extra = intOf(m, 'shares', a.shares) - 1
      else if ('read_locks' in a) extra = intOf(m, 'read_locks', a.read_locks) - 1
      target.model.finishReadPrefetched(keys, extra)
    })
    d.register(`${SM}.read_prefetched_results.__enter__`, (ctx, a) => {
      checkNames('read_prefetched_results', a, ['keys'], ['keys'])
      const keys = keysOf('read_prefetched_results', a.keys)
      const c = ctx.target.model.readPrefetchedResults(keys)
      c.enter()
      const id = keyTupleId(keys)
      const queues = contexts(ctx)
      const q = queues.get(id)
      if (q) q.push(c)
      else queues.set(id, [c])
    })
    d.register(`${SM}.read_prefetched_results.__exit__`, (ctx, a) => {
      checkNames('read_prefetched_results', a, ['keys'], ['keys'])
      const keys = keysOf('read_prefetched_results', a.keys)
      const id = keyTupleId(keys)
      const queues = contexts(ctx)
      const q = queues.get(id)
      if (!q || q.length === 0) {
        ctx.target.model.readContexts.unmatched_exits++
        ctx.env.warn(
          'unmatched_exit',
          id,
          `read_prefetched_results.__exit__ with no matching __enter__ (keys=${keys.length}); ignoring`,
        )
        return
      }
      const c = q.shift() as ReadContext
      if (q.length === 0) queues.delete(id)
      c.exit()
    })
    return d
  },

  finalSweep(ctx) {
    for (const q of contexts(ctx).values()) {
      for (const c of q) {
        try {
          c.exit()
        } catch (err) {
          ctx.env.warn(
            'final_sweep',
            String(err),
            `closing a read context at the end of the trace failed: ${(err as Error).message}`,
          )
        }
        ctx.target.model.readContexts.closed_by_final_sweep++
      }
    }
    contexts(ctx).clear()
  },

  finalize(target) {
    target.final = target.model.l1.finalScan()
  },

  observations(target): LevelObservations {
    const m = target.model
    const l1 = m.l1
    const fin = target.final ?? l1.finalScan()
    const json = {
      approximations: m.approximations,
      l1: {
        capacity_bytes: m.config.l1.sizeInBytes,
        align_bytes: m.config.l1.alignBytes,
        used_bytes_peak: l1.peakUsed,
        used_bytes_peak_at_s: new JsonFloat(l1.peakAt),
        used_bytes_final: l1.allocator.used,
        objects_final: l1.entries.size,
        temporary_final: fin.temporary,
        write_locked_final: fin.writeLocked,
        read_locked_final: fin.readLocked,
        ...m.counters,
        leaked_duplicate_bytes: l1.leakedDuplicateBytes,
        ttl_expired_write_locks: l1.expiredWriteLocks,
        ttl_expired_read_locks: l1.expiredReadLocks,
        errors: l1.errors,
      },
      eviction: {policy: m.config.eviction.policy, ...m.eviction.counters},
      read_contexts: m.readContexts,
      prefetch: m.prefetch.counters,
      l2: m.adapters.map((a) => ({
        index: a.index,
        type: a.config.type,
        capacity_bytes: a.config.capacityBytes,
        bandwidth_bytes_per_s: a.config.bandwidthBytesPerS,
        ...a.counters,
        used_bytes_final: a.used,
        objects_final: a.objects.size,
      })),
    }
    const rows: LevelObservations['rows'] = [
      ['Prefetch L1 prefix hits (keys)', m.counters.prefix_hit_keys],
      ['Prefetch L1 prefix misses (keys)', m.counters.prefix_miss_keys],
      ['Reserve OOM (keys)', m.counters.oom_keys],
      ['Evicted keys', m.eviction.counters.evicted_keys],
      ['Evicted bytes', m.eviction.counters.evicted_bytes],
      ['TTL expiries (write/read)', `${l1.expiredWriteLocks}/${l1.expiredReadLocks}`],
      ['L1 peak usage (bytes)', l1.peakUsed],
      ['L1 final usage (bytes)', l1.allocator.used],
    ]
    for (const a of m.adapters) {
      const p = `L2[${a.index}] ${a.config.type}`
      rows.push(
        [`${p} stored keys`, a.counters.stored_keys],
        [`${p} stored bytes`, a.counters.stored_bytes],
        [`${p} loaded keys`, a.counters.loaded_keys],
        [`${p} loaded bytes`, a.counters.loaded_bytes],
      )
    }
    return {json, rows}
  },

  snapshot: (target) => target.model.snapshot(),

  attachRecorder(_target, c, recorder: TraceRecorder) {
    recorder.attachConfig(storageConfigDict(c.config))
  },
}
