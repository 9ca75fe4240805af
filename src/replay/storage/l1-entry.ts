// One object in L1: below both the L1 (which holds entries) and the key slots (which point at them).
import type {ObjectKey} from '../../formats/lct/values.js'
import type {Block} from './allocator.js'
import type {TtlLock} from './ttl-lock.js'

export interface L1Entry {
  key: ObjectKey
  block: Block
  rawSize: number
  writeLock: TtlLock
  readLock: TtlLock
  temporary: boolean
  writePending: boolean
}
