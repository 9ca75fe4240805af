import type {KeyList} from '../hash/key-list.js'
import {serializeAsFields} from '../formats/json/serialize.js'

export type Keys = readonly unknown[] | KeyList

/** Shared defaults of a get record: frozen, so the record encoder can recognise them by identity. */
export const NO_BLOCK_MASK: readonly unknown[] = Object.freeze([])
export const NO_LOCATION_SPEC_NAMES: readonly unknown[] = Object.freeze([])

/**
 * A get record as `BaseConverter.createGetTrace` builds it: the original's field order, frozen so that its shape is
 * known and the framework may encode it without walking it (copy it, `{...get}`, to change a field).
 */
export class GetRecord {
  readonly type = 'get' as const
  readonly instance_id: string
  readonly trace_id: string
  readonly timestamp_ns: bigint
  readonly keys: Keys
  readonly input_len: bigint | number
  readonly query_type: unknown
  readonly block_mask: unknown
  readonly sw_size: unknown
  readonly location_spec_names: unknown

  constructor(
    instanceId: string,
    ts: bigint,
    keys: Keys,
    inputLen: bigint | number,
    queryType: unknown,
    blockMask: unknown,
    swSize: unknown,
    locationSpecNames: unknown,
  ) {
    this.instance_id = instanceId
    this.trace_id = `trace_${instanceId}_${ts}`
    this.timestamp_ns = ts
    this.keys = keys
    this.input_len = inputLen
    this.query_type = queryType
    this.block_mask = blockMask
    this.sw_size = swSize
    this.location_spec_names = locationSpecNames
    Object.freeze(this)
  }
}

/** A write record as `BaseConverter.createWriteTrace` builds it (frozen, like {@link GetRecord}). */
export class WriteRecord {
  readonly type = 'write' as const
  readonly instance_id: string
  readonly trace_id: string
  readonly timestamp_ns: bigint
  readonly keys: Keys

  constructor(instanceId: string, ts: bigint, keys: Keys) {
    this.instance_id = instanceId
    this.trace_id = `trace_${instanceId}_${ts}`
    this.timestamp_ns = ts
    this.keys = keys
    Object.freeze(this)
  }
}

// serializeJson writes a record as its fields (as it writes a plain object)
serializeAsFields(GetRecord)
serializeAsFields(WriteRecord)
