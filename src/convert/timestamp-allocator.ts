import {appendFileSync, closeSync, openSync, readSync} from 'node:fs'
import {join} from 'node:path'

const DEFAULT_SPILL_THRESHOLD = 1 << 16
/** the share of an instance's entries, the newest by value, that a spill keeps in memory */
const KEPT_SHARE = 4
/** spilled chunks held in memory for lookups below the floor */
const CACHED_CHUNKS = 4
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Index of the first element ≥ t in an increasing array. */
function lowerBound(a: ArrayLike<bigint>, t: bigint): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A sorted run of spilled entries in an instance's spill file. */
interface Chunk {
  /** byte offset in the file */
  offset: number
  count: number
  min: bigint
  max: bigint
}

/**
 * Used timestamps of one instance id. Allocations above everything used so far (nearly all of them for time-sorted
 * input) are appended to an increasing array, which costs no hashing; the others go to a set. Entries below the
 * floor may live in the spill file instead, as sorted chunks that lookups below the floor search.
 */
class InstanceSlots {
  ascending: bigint[] = []
  others = new Set<bigint>()
  /** every used entry ≥ floor is in memory; one below it is in memory or in a chunk */
  floor: bigint | undefined
  readonly chunks: Chunk[] = []
  private fileBytes = 0
  private readonly cache: Array<{chunk: Chunk; data: BigInt64Array}> = []
  /** false once an entry beyond int64 was seen (it cannot be spilled): the instance then stays in memory */
  spillable: boolean
  threshold: number

  constructor(
    readonly spillFile: string | undefined,
    threshold: number,
  ) {
    this.threshold = threshold
    this.spillable = spillFile !== undefined
  }

  get size(): number {
    return this.ascending.length + this.others.size
  }

  get maxUsed(): bigint | undefined {
    return this.ascending.length > 0 ? this.ascending[this.ascending.length - 1] : undefined
  }

  has(t: bigint): boolean {
    const a = this.ascending
    if (a.length > 0 && t <= a[a.length - 1]) {
      const i = lowerBound(a, t)
      if (a[i] === t) return true
    }
    if (this.others.size > 0 && this.others.has(t)) return true
    return this.floor !== undefined && t < this.floor && this.spilledHas(t)
  }

  add(t: bigint): void {
    const a = this.ascending
    if (a.length === 0 || t > a[a.length - 1]) a.push(t)
    else this.others.add(t)
  }

  /**
   * Moves the entries below a new floor to a chunk of the spill file: the floor keeps the newest entries by value
   * (a share of them) in memory, so requests a little in the past (a get allocated when its write finishes) stay
   * in memory; it never goes down.
   */
  spill(): void {
    // the ascending entries are sorted already: time-sorted input has no others, and no sort to pay
    const all =
      this.others.size === 0
        ? this.ascending
        : this.ascending.concat([...this.others]).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    if (all[0] < INT64_MIN || all[all.length - 1] > INT64_MAX) {
      this.spillable = false // a timestamp beyond int64: keep this instance in memory
      return
    }
    const quantile = all[all.length - Math.ceil(all.length / KEPT_SHARE)]
    const floor = this.floor !== undefined && this.floor > quantile ? this.floor : quantile
    const cut = lowerBound(all, floor)
    if (cut > 0) {
      const out = BigInt64Array.from(all.slice(0, cut))
      appendFileSync(this.spillFile as string, new Uint8Array(out.buffer))
      this.chunks.push({offset: this.fileBytes, count: cut, min: out[0], max: out[cut - 1]})
      this.fileBytes += out.byteLength
      this.ascending = this.ascending.slice(lowerBound(this.ascending, floor))
      const others = new Set<bigint>()
      for (const t of this.others) if (t >= floor) others.add(t)
      this.others = others
      this.floor = floor
    }
    // most entries at or above the floor: spilling again soon would gain nothing
    if (this.size > this.threshold / 2) this.threshold *= 2
  }

  /** Whether a spilled chunk holds `t`. */
  private spilledHas(t: bigint): boolean {
    for (const chunk of this.chunks) {
      if (t < chunk.min || t > chunk.max) continue
      const data = this.chunkData(chunk)
      const i = lowerBound(data, t)
      if (i < data.length && data[i] === t) return true
    }
    return false
  }

  private chunkData(chunk: Chunk): BigInt64Array {
    const k = this.cache.findIndex((c) => c.chunk === chunk)
    if (k >= 0) return this.cache[k].data
    const data = new BigInt64Array(chunk.count)
    const fd = openSync(this.spillFile as string, 'r')
    try {
      readSync(fd, new Uint8Array(data.buffer), 0, data.byteLength, chunk.offset)
    } finally {
      closeSync(fd)
    }
    if (this.cache.length >= CACHED_CHUNKS) this.cache.shift()
    this.cache.push({chunk, data})
    return data
  }
}

/**
 * `allocateTimestamp` of the converter contract: per instance id, the smallest free `t ≥ base`, shared by gets and
 * writes for the whole run. Exact, yet bounded in memory: when an instance holds more than a threshold of entries,
 * all but its newest ones by value move to an append-only spill file as a sorted chunk; a later request below the
 * floor looks its candidates up in the chunks that span them (a few chunks cached), and what it allocates stays in
 * memory until the next spill.
 */
export class TimestampAllocator {
  private readonly slots = new Map<string, InstanceSlots>()
  private lastId: string | undefined
  private last: InstanceSlots | undefined

  constructor(
    private readonly spillDir?: string,
    private readonly spillThreshold = DEFAULT_SPILL_THRESHOLD,
  ) {}

  allocate(instanceId: string, base: bigint): bigint {
    let s = instanceId === this.lastId ? this.last : this.slots.get(instanceId)
    if (s === undefined) {
      const file = this.spillDir ? join(this.spillDir, `slots-${this.slots.size}.bin`) : undefined
      s = new InstanceSlots(file, this.spillThreshold)
      this.slots.set(instanceId, s)
    }
    this.lastId = instanceId
    this.last = s
    const maxUsed = s.maxUsed
    let t = base
    // above everything used (spilled entries included, which lie below the in-memory maximum): free
    if (maxUsed !== undefined && base <= maxUsed) while (s.has(t)) t++
    s.add(t)
    if (s.size > s.threshold && s.spillable) s.spill()
    return t
  }

  /**
   * The run base, base + 1, …, base + n − 1 when it lies above every timestamp the instance used (so each is what
   * {@link allocate} would give in turn): marks them used and returns true; otherwise marks nothing, false.
   */
  allocateRun(instanceId: string, base: bigint, n: number): boolean {
    const s = instanceId === this.lastId ? this.last : this.slots.get(instanceId)
    if (s === undefined) return false // its first allocation goes the usual way (it makes the instance's slots)
    const maxUsed = s.maxUsed
    if (maxUsed !== undefined && base <= maxUsed) return false
    this.lastId = instanceId
    this.last = s
    for (let k = 0; k < n; k++) {
      s.ascending.push(k === 0 ? base : base + BigInt(k))
      if (s.size > s.threshold && s.spillable) s.spill()
    }
    return true
  }

  /** Number of timestamps held in memory (all instances); for tests and diagnostics. */
  get inMemory(): number {
    let n = 0
    for (const s of this.slots.values()) n += s.size
    return n
  }
}
