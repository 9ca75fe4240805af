import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const DEFAULT_SPILL_THRESHOLD = 1 << 16
const MAX_RELOADS = 8
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Index of the first element ≥ t in an increasing array. */
function lowerBound(a: readonly bigint[], t: bigint): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Used timestamps of one instance id. Allocations above everything used so far (nearly all of them for time-sorted
 * input) are appended to an increasing array, which costs no hashing; the others go to a set. Entries far in the
 * past are spilled to disk.
 */
class InstanceSlots {
  readonly ascending: bigint[] = []
  readonly others = new Set<bigint>()
  /** Entries below the floor live only in the spill file. */
  floor: bigint | undefined
  maxBase: bigint | undefined
  reloads = 0
  threshold: number

  constructor(
    readonly spillFile: string | undefined,
    threshold: number,
  ) {
    this.threshold = threshold
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
    return this.others.size > 0 && this.others.has(t)
  }

  add(t: bigint): void {
    const a = this.ascending
    if (a.length === 0 || t > a[a.length - 1]) a.push(t)
    else this.others.add(t)
  }
}

/**
 * `allocateTimestamp` of the converter contract: per instance id, the smallest free `t ≥ base`, shared by gets and
 * writes for the whole run. Exact, yet bounded in memory for time-sorted input: when an instance holds more than a
 * threshold of entries, those below the largest base seen (minus one) move to an append-only spill file; a later
 * request below that floor first reloads the spilled entries it could collide with. After a few reloads an
 * instance stops spilling.
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
    if (maxUsed !== undefined && base <= maxUsed) {
      if (s.floor !== undefined && base < s.floor) this.reload(s, base)
      while (s.has(t)) t++
    }
    s.add(t)
    if (s.maxBase === undefined || base > s.maxBase) s.maxBase = base
    if (s.size > s.threshold && s.spillFile !== undefined && s.reloads < MAX_RELOADS) this.spill(s)
    return t
  }

  /** Number of timestamps held in memory (all instances); for tests and diagnostics. */
  get inMemory(): number {
    let n = 0
    for (const s of this.slots.values()) n += s.size
    return n
  }

  private spill(s: InstanceSlots): void {
    const floor = (s.maxBase as bigint) - 1n
    const cut = lowerBound(s.ascending, floor)
    const out: bigint[] = s.ascending.slice(0, cut)
    for (const t of s.others) if (t < floor) out.push(t)
    for (const t of out) {
      if (t < INT64_MIN || t > INT64_MAX) {
        s.reloads = MAX_RELOADS // a timestamp beyond int64: keep this instance in memory
        return
      }
    }
    if (out.length > 0) {
      s.ascending.splice(0, cut)
      for (const t of s.others) if (t < floor) s.others.delete(t)
      appendFileSync(s.spillFile as string, new Uint8Array(BigInt64Array.from(out).buffer))
      s.floor = s.floor === undefined || floor > s.floor ? floor : s.floor
    }
    // most entries at or above the floor: spilling again soon would gain nothing
    if (s.size > s.threshold / 2) s.threshold *= 2
  }

  private reload(s: InstanceSlots, base: bigint): void {
    const kept: bigint[] = []
    const bytes = readFileSync(s.spillFile as string)
    const spilled = new BigInt64Array(new Uint8Array(bytes).buffer) // copied: aligned for 8-byte access
    for (const t of spilled) {
      if (t >= base) s.others.add(t)
      else kept.push(t)
    }
    writeFileSync(s.spillFile as string, new Uint8Array(BigInt64Array.from(kept).buffer))
    s.floor = kept.length > 0 ? base : undefined
    s.reloads++
  }
}
