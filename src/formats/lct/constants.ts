/** The `.lct` constants of LMCache's trace format (docs/lct.md §2.1). */
export const LCT_MAGIC = Uint8Array.from([0x4c, 0x4d, 0x43, 0x54]) // "LMCT"
export const LCT_FORMAT_VERSION = 1
export const LCT_WRITE_SCHEMA_VERSION = 2
export const LCT_READABLE_SCHEMA_VERSIONS: ReadonlySet<number> = new Set([1, 2])
/** Ours: a frame body larger than this is never buffered (a corrupt prefix can declare 4 GiB). */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
export const MIN_MAX_FRAME_BYTES = 1024
/** Ours: the largest frame limit accepted (a frame is buffered whole; one of 1 GiB is already far from any trace). */
export const MAX_MAX_FRAME_BYTES = 1024 * 1024 * 1024
export const WRAP_KEY = '__t__'
export const VALUE_KEY = 'v'
export const MAX_NESTING = 64
/** The class whose calls a `storage`-level trace records: its records' qualnames are `<this>.<method>`. */
export const STORAGE_MANAGER_QUALNAME = 'lmcache.v1.distributed.storage_manager.StorageManager'
