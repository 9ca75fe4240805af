// The storage level (docs/storage-replay.md §5, §6): LMCache's StorageManager replayed against lmt's model. It is
// core, not a plugin: `lmt replay`'s --help and `lmt convert --mode lct` depend on its flags and configuration, so
// it is registered as the built-in level "storage" from here (docs/architecture.md).
import {JsonFloat} from '../../formats/json/json-float.js'
import type {TraceRecorder} from '../../formats/lct/recorder.js'
import type {LctHeader} from '../../formats/lct/types.js'
import type {LevelObservations, ReplayLevel} from '../level.js'
import {
  buildConfig,
  flagsFromHeader,
  storageConfigDict,
  storageConfigDigest,
  type StorageConfig,
} from './config.js'
import {StorageManagerModel} from './model.js'
import {storageFlags, storageFlagValues} from './storage-flags.js'
import {buildStorageDispatcher, exitOpenReadContexts, type StorageTarget} from './storage-handlers.js'

export {normalizeEvictionPolicy} from './storage-flags.js'

export const storageLevel: ReplayLevel<StorageTarget, StorageConfig> = {
  name: 'storage',
  description:
    "LMCache's StorageManager: L1 with TTL locks, LRU eviction, mock L2, store and prefetch controllers",
  flags: storageFlags,
  replayableSchemaVersions: [2],

  parseConfig(flags, header: LctHeader, warn) {
    let f = storageFlagValues(flags)
    if (flags['config-from-header']) f = flagsFromHeader(header.smConfigJson, f, warn)
    return buildConfig(f)
  },

  configDigest: (c) => storageConfigDigest(c.config),

  createTarget(c, env) {
    return {model: new StorageManagerModel(c.config, c.options, env.scheduler, env.warn), env}
  },

  buildDispatcher: buildStorageDispatcher,

  finalSweep: exitOpenReadContexts,

  finalize(target) {
    target.final = target.model.l1.finalScan()
  },

  observations: storageObservations,

  snapshot: (target) => target.model.snapshot(),

  attachRecorder(_target, c, recorder: TraceRecorder) {
    recorder.attachConfig(storageConfigDict(c.config))
  },
}

/** The Model section (§6.14): the JSON of the summary document and the rows of the table. */
function storageObservations(target: StorageTarget): LevelObservations {
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
}
