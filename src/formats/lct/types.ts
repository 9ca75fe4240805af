import type {RawMap} from './msgpack.js'

export interface LctHeader {
  magic: Uint8Array
  formatVersion: number
  level: string
  traceSchemaVersion: number
  tMonoStart: number
  tWallStart: number
  smConfigJson: string
  smConfigDigest: string
  /** {} when absent */
  levelMeta: RawMap
  /** smConfigJson === '' && smConfigDigest === '' */
  isPlaceholder: boolean
}

/** A record body's fields (args built, not codec-decoded). */
export interface DecodedRecordFields {
  tMono: number
  tWall: number
  qualname: string
  /** the arguments as the reader decoded the msgpack: codec-decode them with `recordArgs(record)` */
  args: RawMap
}

export interface LctRecord extends DecodedRecordFields {
  /** byte offset of the frame's length prefix */
  offset: number
  /** body length */
  length: number
  /** 0-based number among the records yielded */
  index: number
}

export interface LctFrame {
  index: number
  offset: number
  length: number
  body?: Uint8Array
  kind: 'record' | 'malformed' | 'oversized'
  error?: string
}

export interface LctWarning {
  code: string
  offset: number
  message: string
}

export interface LctReadState {
  records: number
  framesSkipped: number
  truncated: boolean
  endOffset: number
  /** the first 1000 */
  warnings: LctWarning[]
  warningCount: number
}

export interface LctReadOptions {
  maxFrameBytes?: number
  /** shown in messages; default: the path, or "<stream>" */
  name?: string
  onWarning?: (w: LctWarning) => void
  /** how record bodies are decoded and counted (default: the plain way, `plainDecoding` in record-decoding.ts) */
  decoding?: RecordDecoding
}

export interface TraceCount extends Pick<
  LctReadState,
  'framesSkipped' | 'truncated' | 'warnings' | 'warningCount'
> {
  header: LctHeader
  totalRecords: number
  byQualname: Map<string, number>
  maxTMono: number
  bytesRead: number
}

export interface RecordDecoding {
  /** A decoder for the record bodies of one trace, in order (it may keep what it learnt from earlier records). */
  decoder(): (body: Uint8Array, start: number, end: number) => DecodedRecordFields
  /** A tally for the count-only pass over one trace. */
  tally(): RecordTally
}

export interface RecordTally {
  /** Counts the record whose body is `body[start, end)`; a malformed one throws and is not counted. */
  add(body: Uint8Array, start: number, end: number): void
  /** the largest t_mono counted so far (0 before any) */
  readonly maxTMono: number
  /** records per qualname so far */
  byQualname(): Map<string, number>
}
