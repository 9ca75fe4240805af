import {dtypeItemSize} from './dtypes.js'

/** Value classes of the argument codecs (docs/lct.md §5.3); instances are frozen. */

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') // native, lowercase
}

/** LMCache's ObjectKey; two keys are equal iff their `id`s are equal (all five fields, salt included). */
export class ObjectKey {
  readonly #hash: Uint8Array
  #id: string | undefined
  // a value one owner caches on this instance (the replay model's per-key state): interned keys recur, and a field
  // read is cheaper than a lookup by id; private fields stay writable on a frozen instance
  #memoOwner: object | undefined
  #memoValue: unknown
  #fingerprint = -1
  #tuplePart: string | undefined

  constructor(
    chunkHash: Uint8Array,
    readonly modelName: string,
    readonly kvRank: number | bigint,
    readonly objectGroupId: number = 0,
    readonly cacheSalt: string = '',
  ) {
    this.#hash = chunkHash
    Object.freeze(this)
  }

  /** LMCache's `chunk_hash` (bytes) */
  get chunkHash(): Uint8Array {
    return this.#hash
  }

  /** `hex(chunk_hash):kv_rank:object_group_id:len(model_name):model_name:cache_salt` (docs/lct.md §5.5) */
  get id(): string {
    this.#id ??= `${hex(this.#hash)}:${this.kvRank}:${this.objectGroupId}:${this.modelName.length}:${this.modelName}:${this.cacheSalt}`
    return this.#id
  }

  /** `len(id):id`, this key's part of a {@link keyTupleId} (read contexts are paired by it, twice per context) */
  get tuplePart(): string {
    this.#tuplePart ??= `${this.id.length}:${this.id}`
    return this.#tuplePart
  }

  /** A non-negative 31-bit hash of the chunk hash: keys with equal ids have equal fingerprints. */
  get fingerprint(): number {
    if (this.#fingerprint < 0) {
      const b = this.#hash
      let h = 0x811c9dc5 ^ b.length
      for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193)
      this.#fingerprint = (h ^ (h >>> 16)) & 0x7fffffff
    }
    return this.#fingerprint
  }

  /** What `owner` cached on this instance with {@link setMemo} (undefined for any other owner). */
  memo(owner: object): unknown {
    return this.#memoOwner === owner ? this.#memoValue : undefined
  }

  setMemo(owner: object, value: unknown): void {
    this.#memoOwner = owner
    this.#memoValue = value
  }
}

/** Identity of a tuple of keys (pairs context-manager enter/exit records). */
export function keyTupleId(keys: readonly ObjectKey[]): string {
  let out = ''
  for (let i = 0; i < keys.length; i++) out += keys[i].tuplePart
  return out
}

export class MemoryLayoutDesc {
  constructor(
    readonly shapes: readonly (readonly number[])[],
    readonly dtypes: readonly string[],
  ) {
    Object.freeze(this.shapes)
    Object.freeze(this.dtypes)
    Object.freeze(this)
  }

  /** Σ product(shape_i) × itemSize(dtype_i) */
  rawSizeBytes(): number {
    let total = 0
    for (let i = 0; i < this.shapes.length; i++) {
      let n = 1
      for (const d of this.shapes[i]) n *= d
      total += n * (dtypeItemSize(this.dtypes[i]) ?? 0)
    }
    return total
  }
}

export class TorchSize {
  constructor(readonly dims: readonly number[]) {
    Object.freeze(this.dims)
    Object.freeze(this)
  }
}

export class TorchDtype {
  constructor(readonly name: string) {
    Object.freeze(this)
  }
}

/** A Python tuple. */
export class PyTuple {
  constructor(readonly items: readonly unknown[]) {
    Object.freeze(this.items)
    Object.freeze(this)
  }
}

/** A Python set, in file order. */
export class PySet {
  constructor(readonly items: readonly unknown[]) {
    Object.freeze(this.items)
    Object.freeze(this)
  }
}

export class TrimPolicy {
  static readonly PREFIX = new TrimPolicy('PREFIX')
  static readonly SEGMENTED_PREFIX = new TrimPolicy('SEGMENTED_PREFIX')
  static readonly SPARSE = new TrimPolicy('SPARSE')

  private constructor(readonly name: 'PREFIX' | 'SEGMENTED_PREFIX' | 'SPARSE') {
    Object.freeze(this)
  }

  static byName(name: string): TrimPolicy | undefined {
    return name === 'PREFIX'
      ? TrimPolicy.PREFIX
      : name === 'SEGMENTED_PREFIX'
        ? TrimPolicy.SEGMENTED_PREFIX
        : name === 'SPARSE'
          ? TrimPolicy.SPARSE
          : undefined
  }
}

export class PrefetchMode {
  static readonly LOOKUP = new PrefetchMode('LOOKUP')
  static readonly WARM = new PrefetchMode('WARM')

  private constructor(readonly name: 'LOOKUP' | 'WARM') {
    Object.freeze(this)
  }

  static byName(name: string): PrefetchMode | undefined {
    return name === 'LOOKUP' ? PrefetchMode.LOOKUP : name === 'WARM' ? PrefetchMode.WARM : undefined
  }
}

export class AttnWindowDesc {
  constructor(
    readonly numChunksInSw: readonly number[] = [-1],
    readonly worldSize: number = 1,
  ) {
    Object.freeze(this.numChunksInSw)
    Object.freeze(this)
  }
}

export class PrefetchHandle {
  constructor(
    readonly prefetchRequestId: number | bigint,
    readonly externalRequestId: string,
    readonly l1FoundIndices: readonly number[],
    readonly l1HitChunks: number,
    readonly totalRequestedKeys: number,
    readonly submitTime: number,
    readonly l2OrigIndices: readonly number[] = [],
    readonly generation: number = 0,
  ) {
    Object.freeze(this.l1FoundIndices)
    Object.freeze(this.l2OrigIndices)
    Object.freeze(this)
  }
}

export class PrefetchRequestSpec {
  constructor(
    readonly keys: readonly ObjectKey[],
    readonly groupLayoutDescs: ReadonlyMap<number, MemoryLayoutDesc>,
    readonly numKvReaders: number,
    readonly policy: TrimPolicy,
    readonly attnDesc: AttnWindowDesc,
    readonly mode: PrefetchMode,
    readonly generation: number = 0,
  ) {
    Object.freeze(this.keys)
    Object.freeze(this)
  }
}
