import {KeyList} from '../hash/key-list.js'
import {JsonFloat} from '../formats/json/json-float.js'
import {GetRecord, type Keys, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES, WriteRecord} from './records.js'
import {TimestampAllocator} from './timestamp-allocator.js'

export type {Keys}
import type {ConverterOptions, Logger} from './types.js'

/** Optional fields of a get trace; `undefined` means absent (the default applies), anything else passes through. */
export interface GetTraceExtra {
  inputLen: unknown
  queryType?: unknown
  blockMask?: unknown
  swSize?: unknown
  locationSpecNames?: unknown
}

export type GetTrace = GetRecord
export type WriteTrace = WriteRecord

const silentLogger: Logger = {warn() {}, info() {}}

function toTimestamp(value: bigint | number): bigint {
  if (typeof value === 'bigint') return value
  if (!Number.isSafeInteger(value)) throw new TypeError(`timestamp must be an integer (got ${value})`)
  return BigInt(value)
}

function toInputLen(value: unknown): bigint {
  if (typeof value === 'bigint') return value
  const n = value instanceof JsonFloat ? value.value : value
  if (typeof n === 'boolean') return n ? 1n : 0n
  if (typeof n === 'number' && Number.isFinite(n)) return BigInt(Math.trunc(n))
  throw new TypeError(`optimizer get trace input_len must be an integer (got ${String(value)})`)
}

/**
 * Helpers shared by converters: block sizes per instance, collision-free timestamps per instance, and the two
 * record builders with the original converter's field order and defaults. Defines no output method.
 */
export class BaseConverter<Settings = unknown> {
  readonly defaultInstanceId: string
  readonly mode: string
  readonly instanceBlockSizes: Map<string, number>
  readonly options: Partial<ConverterOptions<Settings>>
  readonly logger: Logger
  /** Block size of instances not named in `instanceBlockSizes`. */
  defaultBlockSize = 16
  private readonly allocator: TimestampAllocator
  private readonly instances = new Set<string>()

  constructor(options: Partial<ConverterOptions<Settings>> = {}) {
    this.options = options
    this.defaultInstanceId = options.defaultInstanceId ?? 'instance'
    this.mode = options.mode ?? 'optimizer'
    const sizes = options.instanceBlockSizes ?? new Map<string, number>()
    this.instanceBlockSizes = new Map(sizes instanceof Map ? sizes : Object.entries(sizes))
    this.logger = options.logger ?? silentLogger
    this.allocator = new TimestampAllocator(options.spillDir)
  }

  getBlockSize(instanceId: string): number {
    return this.instanceBlockSizes.get(instanceId) ?? this.defaultBlockSize
  }

  /** Records an instance id for the summary (also done by every timestamp allocation). */
  registerInstance(instanceId: string): void {
    this.instances.add(instanceId)
  }

  knownInstanceIds(): Iterable<string> {
    return this.instances
  }

  /** The smallest `t ≥ baseNs` not yet used by this instance id in this run; marks it used. */
  allocateTimestamp(instanceId: string, baseNs: bigint | number): bigint {
    this.instances.add(instanceId)
    return this.allocator.allocate(instanceId, toTimestamp(baseNs))
  }

  /** The first ⌊inputLen / blockSize⌋ keys (a new array; a KeyList is immutable and may be returned as is). */
  truncateKeysToFullBlocks<K extends Keys>(keys: K, inputLen: bigint | number, instanceId: string): K {
    const bs = this.getBlockSize(instanceId)
    if (!(bs > 0)) throw new Error(`block_size must be positive for instance ${instanceId}`)
    let full: number
    if (typeof inputLen === 'number' && Number.isSafeInteger(inputLen) && Number.isSafeInteger(bs))
      full = inputLen <= 0 ? 0 : Math.min(Math.floor(inputLen / bs), keys.length) // exact: both safe integers
    else {
      const len = BigInt(inputLen)
      full =
        len <= 0n
          ? 0
          : Number(len / BigInt(bs) < BigInt(keys.length) ? len / BigInt(bs) : BigInt(keys.length))
    }
    if (keys instanceof KeyList) return keys.head(full) as K
    return (keys as readonly unknown[]).slice(0, full) as unknown as K
  }

  createGetTrace(
    timestampNs: bigint | number,
    keys: Keys,
    instanceId: string | undefined,
    extra: GetTraceExtra,
  ): GetTrace {
    const id = instanceId ?? this.defaultInstanceId
    const ts = this.allocateTimestamp(id, timestampNs) // before validation: a rejected get still uses its slot
    if (extra.inputLen === undefined) throw new Error('optimizer get trace requires input_len')
    const raw = extra.inputLen
    // a safe integer stays a number (the usual case: no BigInt on the way); anything else is converted exactly
    const inputLen = typeof raw === 'number' && Number.isSafeInteger(raw) ? raw : toInputLen(raw)
    if (inputLen <= 0) throw new Error('optimizer get trace input_len must be positive')
    const kept = this.truncateKeysToFullBlocks(keys, inputLen, id)
    let blockMask = extra.blockMask === undefined ? NO_BLOCK_MASK : extra.blockMask
    if (Array.isArray(blockMask) && blockMask.length > kept.length)
      blockMask = blockMask.slice(0, kept.length)
    return new GetRecord(
      id,
      ts,
      kept,
      typeof inputLen === 'number' || inputLen > 9007199254740991n ? inputLen : Number(inputLen),
      extra.queryType === undefined ? 'prefix_match' : extra.queryType,
      blockMask,
      extra.swSize === undefined ? 0 : extra.swSize,
      extra.locationSpecNames === undefined ? NO_LOCATION_SPEC_NAMES : extra.locationSpecNames,
    )
  }

  createWriteTrace(timestampNs: bigint | number, keys: Keys, instanceId?: string): WriteTrace {
    const id = instanceId ?? this.defaultInstanceId
    return new WriteRecord(id, this.allocateTimestamp(id, timestampNs), keys)
  }
}
