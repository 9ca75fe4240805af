// The storage level's flags (docs/storage-replay.md §1.3): their oclif definitions and their values as StorageFlags.
import {Flags} from '@oclif/core'
import {lmtError} from '../../errors.js'
import {integerFlag, numberFlag, type NumberRange} from '../../util/number-flags.js'
import type {StorageFlags} from './config.js'

const STORAGE = 'STORAGE MANAGER'
const MODEL = 'MODEL OPTIONS'

/** LMCache's spelling of an eviction policy, whatever the case typed (lru → LRU, NOOP → noop); others as given. */
export function normalizeEvictionPolicy(v: string): string {
  return ({lru: 'LRU', noop: 'noop'} as Record<string, string>)[v.toLowerCase()] ?? v
}

export const storageFlags = {
  'l1-size-gb': Flags.string({
    summary: 'L1 size in GiB, 2^30 bytes (required unless --config-from-header).',
    helpGroup: STORAGE,
  }),
  'l1-use-lazy': Flags.boolean({
    summary: 'Lazy L1 growth (enters the config digest only; not modelled).',
    allowNo: true,
    helpGroup: STORAGE,
  }),
  'l1-init-size-gb': integerFlag({
    min: 0,
    summary: 'Initial L1 size in GiB (default 20; enters the config digest only).',
    helpGroup: STORAGE,
  }),
  'l1-align-bytes': integerFlag({
    min: 1,
    summary: 'L1 allocation alignment in bytes, a power of two (default 4096).',
    helpGroup: STORAGE,
  }),
  'l1-write-ttl-seconds': integerFlag({
    min: 0,
    summary: 'Seconds a write lock lasts (default 600).',
    helpGroup: STORAGE,
  }),
  'l1-read-ttl-seconds': integerFlag({
    min: 0,
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
  'l2-prefetch-max-in-flight': integerFlag({
    min: 1,
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

/** A number flag of the level within `range` (shared parsing: the error names the flag), as a configuration error. */
function num(name: string, v: unknown, range: NumberRange): number | undefined {
  if (v === undefined || typeof v === 'number') return v as number | undefined
  try {
    return numberFlag(name, String(v), range)
  } catch (err) {
    throw lmtError('REPLAY_CONFIG', (err as Error).message)
  }
}

/** the flags given as text and checked as numbers here: their ranges (a share of L1 or of the keys: above 0, at most all) */
const SHARE: NumberRange = {min: 0, aboveMin: true, max: 1}
const NUMBER_RANGES: Record<string, NumberRange> = {
  'l1-size-gb': {min: 0},
  'eviction-trigger-watermark': SHARE,
  'eviction-ratio': SHARE,
}

/** The parsed flags as the model's StorageFlags: the ones given (numbers checked), none of the others. */
export function storageFlagValues(flags: Record<string, unknown>): StorageFlags {
  const f: Record<string, unknown> = {}
  for (const k of Object.keys(storageFlags)) {
    if (k === 'config-from-header') continue
    const v = k in NUMBER_RANGES ? num(k, flags[k], NUMBER_RANGES[k]) : flags[k]
    if (v !== undefined) f[k] = v
  }
  return f as StorageFlags
}
