// The storage level's configuration: flags → StorageManagerConfig → config dict and digest (§6.1).
import {JsonFloat} from '../../formats/json/json-float.js'
import {lmtError} from '../../errors.js'
import {nestsDeeperThan} from '../../formats/json/json-depth.js'
import {MAX_JSON_DEPTH} from '../../formats/json/parse.js'
import {configDigest} from '../../formats/lct/recorder.js'
import type {PyJsonValue} from '../../formats/json/py-json.js'

export interface StorageFlags {
  'l1-size-gb'?: number
  'l1-use-lazy'?: boolean
  'l1-init-size-gb'?: number
  'l1-align-bytes'?: number
  'l1-write-ttl-seconds'?: number
  'l1-read-ttl-seconds'?: number
  'eviction-policy'?: string
  'eviction-trigger-watermark'?: number
  'eviction-ratio'?: number
  'l2-store-policy'?: string
  'l2-prefetch-policy'?: string
  'l2-prefetch-max-in-flight'?: number
  'l2-adapter'?: string[]
  'model-l1-alloc'?: string
  'model-lru-order'?: string
  'model-write-pending'?: boolean
  'config-from-header'?: boolean
}

const GB = 2 ** 30

function configError(message: string): Error {
  return lmtError('REPLAY_CONFIG', message)
}

/** A `mock` L2 adapter from its `--l2-adapter` JSON (`index`: its place among them, from 1, for messages). */
export function parseL2Adapter(text: string, index: number) {
  const bad = (message: string) => configError(`--l2-adapter #${index}: ${message}`)
  // the JSON is kept in the config dict, which is walked recursively (digest, --record header): bounded nesting
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw bad(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    throw bad(`invalid JSON (${(err as Error).message})`)
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('not a JSON object')
  const o = v as Record<string, unknown>
  if (typeof o.type !== 'string') throw bad('missing "type"')
  if (o.type !== 'mock') throw bad(`unsupported L2 adapter type '${o.type}' (this build models: mock)`)
  const size = o.max_size_gb
  if (typeof size !== 'number' || !(size > 0)) throw bad('max_size_gb must be a positive number')
  const bw = o.mock_bandwidth_gb
  if (typeof bw !== 'number' || !(bw > 0)) throw bad('mock_bandwidth_gb must be a positive number')
  return {
    type: 'mock' as const,
    capacityBytes: Math.trunc(size * GB),
    bandwidthBytesPerS: Math.trunc(bw * GB),
    json: o,
  }
}

/** Storage flags from the header's config JSON, for `--config-from-header` (only flags not given). */
export function flagsFromHeader(json: string, given: StorageFlags, warn: (m: string) => void): StorageFlags {
  if (json === '') throw configError('the trace header has no config')
  if (nestsDeeperThan(json, MAX_JSON_DEPTH))
    throw configError(`the trace header config is nested deeper than ${MAX_JSON_DEPTH} levels`)
  let d: Record<string, Record<string, unknown>>
  try {
    d = JSON.parse(json)
  } catch {
    throw configError('the trace header config is not valid JSON')
  }
  const out: StorageFlags = {...given}
  const l1 = (d.l1_manager_config ?? {}) as Record<string, unknown>
  const mem = (l1.memory_config ?? {}) as Record<string, unknown>
  const ev = (d.eviction_config ?? {}) as Record<string, unknown>
  const set = <K extends keyof StorageFlags>(k: K, v: unknown) => {
    if (out[k] === undefined && v !== undefined) out[k] = v as StorageFlags[K]
  }
  if (typeof mem.size_in_bytes === 'number') set('l1-size-gb', mem.size_in_bytes / GB)
  set('l1-use-lazy', mem.use_lazy)
  if (typeof mem.init_size_in_bytes === 'number' && Number.isInteger(mem.init_size_in_bytes / GB))
    set('l1-init-size-gb', mem.init_size_in_bytes / GB)
  set('l1-align-bytes', mem.align_bytes)
  set('l1-write-ttl-seconds', l1.write_ttl_seconds)
  set('l1-read-ttl-seconds', l1.read_ttl_seconds)
  set('eviction-policy', ev.eviction_policy)
  set('eviction-trigger-watermark', ev.trigger_watermark)
  set('eviction-ratio', ev.eviction_ratio)
  set('l2-store-policy', d.store_policy)
  set('l2-prefetch-policy', d.prefetch_policy)
  set('l2-prefetch-max-in-flight', d.prefetch_max_in_flight)
  const adapters = (d.l2_adapter_config as Record<string, unknown> | undefined)?.adapters
  if (out['l2-adapter'] === undefined && Array.isArray(adapters) && adapters.length > 0) {
    const bad = adapters.find(
      (a) => a === null || typeof a !== 'object' || typeof (a as {type?: unknown}).type !== 'string',
    )
    if (bad !== undefined)
      throw configError(
        `cannot take L2 adapters from the trace header (recorded as '${String(bad)}'); pass --l2-adapter`,
      )
    out['l2-adapter'] = adapters.map((a) => JSON.stringify(a))
  }
  const known: Record<string, string[]> = {
    '': [
      'l1_manager_config',
      'eviction_config',
      'l2_adapter_config',
      'store_policy',
      'prefetch_policy',
      'prefetch_max_in_flight',
    ],
    l1_manager_config: ['memory_config', 'write_ttl_seconds', 'read_ttl_seconds'],
    'l1_manager_config.memory_config': ['size_in_bytes', 'use_lazy', 'init_size_in_bytes', 'align_bytes'],
    eviction_config: ['eviction_policy', 'trigger_watermark', 'eviction_ratio'],
    l2_adapter_config: ['adapters'],
  }
  const walk = (obj: Record<string, unknown>, path: string) => {
    for (const k of Object.keys(obj)) {
      const p = path ? `${path}.${k}` : k
      if (!(known[path] ?? []).includes(k)) warn(`config key '${p}' in the trace header is not modelled`)
      else if (known[p] && obj[k] && typeof obj[k] === 'object') walk(obj[k] as Record<string, unknown>, p)
    }
  }
  walk(d, '')
  return out
}

/** Value checks of §1.3 and the config (exit 2 on errors). */
export function buildConfig(f: StorageFlags) {
  const fromHeader = 'or --config-from-header: the configuration the trace was recorded with'
  if (f['l1-size-gb'] === undefined)
    throw lmtError('REPLAY_CONFIG', 'missing required flag --l1-size-gb (or --config-from-header)', {
      suggestions: ['--l1-size-gb 8 for an L1 of 8 GiB', fromHeader],
    })
  if (f['eviction-policy'] === undefined)
    throw lmtError('REPLAY_CONFIG', 'missing required flag --eviction-policy (or --config-from-header)', {
      suggestions: ['--eviction-policy LRU (or noop)', fromHeader],
    })
  const size = f['l1-size-gb']
  if (!(size > 0) || !Number.isFinite(size)) throw configError('--l1-size-gb must be > 0')
  const policy = f['eviction-policy']
  if (policy === 'IsolatedLRU')
    throw configError(
      "eviction policy 'IsolatedLRU' is not yet supported by lmt's StorageManager model (supported: LRU, noop)",
    )
  if (policy !== 'LRU' && policy !== 'noop')
    throw configError(`unknown eviction policy '${policy}' (supported: LRU, noop)`)
  const init = f['l1-init-size-gb'] ?? 20
  if (init < 0) throw configError('--l1-init-size-gb must be ≥ 0')
  const align = f['l1-align-bytes'] ?? 4096
  if (!(align >= 1) || (align & (align - 1)) !== 0 || align > 2 ** 30)
    throw configError('--l1-align-bytes must be a power of two')
  const wttl = f['l1-write-ttl-seconds'] ?? 600
  const rttl = f['l1-read-ttl-seconds'] ?? 300
  if (wttl < 1 || rttl < 1) throw configError('TTLs must be ≥ 1 second')
  const watermark = f['eviction-trigger-watermark'] ?? 0.8
  const ratio = f['eviction-ratio'] ?? 0.2
  if (!Number.isFinite(watermark) || !Number.isFinite(ratio))
    throw configError('--eviction-trigger-watermark and --eviction-ratio must be finite')
  if (
    (f['l2-store-policy'] ?? 'default') !== 'default' ||
    (f['l2-prefetch-policy'] ?? 'default') !== 'default'
  )
    throw configError('only the default L2 store and prefetch policies are modelled')
  const inFlight = f['l2-prefetch-max-in-flight'] ?? 8
  if (inFlight < 1) throw configError('--l2-prefetch-max-in-flight must be ≥ 1')
  const sizeInBytes = Math.trunc(size * GB)
  return {
    config: {
      l1: {
        sizeInBytes,
        useLazy: f['l1-use-lazy'] ?? true,
        initSizeInBytes: Math.min(Math.trunc(init * GB), sizeInBytes),
        alignBytes: align,
        writeTtlSeconds: wttl,
        readTtlSeconds: rttl,
      },
      eviction: {policy, triggerWatermark: watermark, evictionRatio: ratio},
      l2Adapters: (f['l2-adapter'] ?? []).map((t, i) => parseL2Adapter(t, i + 1)),
      storePolicy: 'default',
      prefetchPolicy: 'default',
      prefetchMaxInFlight: inFlight,
    },
    options: {
      allocMode: (f['model-l1-alloc'] ?? 'all-or-nothing') as 'all-or-nothing' | 'largest-prefix',
      lruOrder: (f['model-lru-order'] ?? 'reversed') as 'reversed' | 'forward',
      writePending: f['model-write-pending'] ?? false,
    },
  }
}

/** The storage level's configuration: LMCache's design-era `StorageManagerConfig` (`config`) and lmt's model options. */
export type StorageConfig = ReturnType<typeof buildConfig>
export type MockL2Config = ReturnType<typeof parseL2Adapter>
export type StorageManagerConfig = StorageConfig['config']
export type ModelOptions = StorageConfig['options']

/** LMCache's design-era `StorageManagerConfig` as a dict (floats as JsonFloat). */
export function storageConfigDict(c: StorageManagerConfig): PyJsonValue {
  return {
    l1_manager_config: {
      memory_config: {
        size_in_bytes: c.l1.sizeInBytes,
        use_lazy: c.l1.useLazy,
        init_size_in_bytes: c.l1.initSizeInBytes,
        align_bytes: c.l1.alignBytes,
      },
      write_ttl_seconds: c.l1.writeTtlSeconds,
      read_ttl_seconds: c.l1.readTtlSeconds,
    },
    eviction_config: {
      eviction_policy: c.eviction.policy,
      trigger_watermark: new JsonFloat(c.eviction.triggerWatermark),
      eviction_ratio: new JsonFloat(c.eviction.evictionRatio),
    },
    l2_adapter_config: {adapters: c.l2Adapters.map((a) => a.json as PyJsonValue)},
    store_policy: c.storePolicy,
    prefetch_policy: c.prefetchPolicy,
    prefetch_max_in_flight: c.prefetchMaxInFlight,
  }
}

export function storageConfigDigest(c: StorageManagerConfig): {json: string; digest: string} {
  return configDigest(storageConfigDict(c))
}
