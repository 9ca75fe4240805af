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

export interface LctRecord {
  tMono: number
  tWall: number
  qualname: string
  /** the arguments as the reader decoded the msgpack: codec-decode them with `recordArgs(record)` */
  args: RawMap
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
  /** decode ObjectKey wrappers straight to interned ObjectKeys (the replay hot path) */
  internObjectKeys?: boolean
}

export interface TraceCount {
  header: LctHeader
  totalRecords: number
  byQualname: Map<string, number>
  maxTMono: number
  framesSkipped: number
  truncated: boolean
  warnings: LctWarning[]
  warningCount: number
  bytesRead: number
}
