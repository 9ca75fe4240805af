import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const DEFAULT_SPILL_THRESHOLD = 1 << 16
const MAX_RELOADS = 8
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Used timestamps of one instance id, with entries far in the past spilled to disk. */
class InstanceSlots {
  readonly used = new Set<bigint>()
  /** Entries below the floor live only in the spill file. */
  floor: bigint | undefined
  maxBase: bigint | undefined
  maxUsed: bigint | undefined
  reloads = 0
  threshold: number

  constructor(
    readonly spillFile: string | undefined,
    threshold: number,
  ) {
    this.threshold = threshold
  }
}

/**
 * `allocateTimestamp` of the converter contract: per instance id, the smallest free `t ≥ base`, shared by gets and
 * writes for the whole run. Exact, yet bounded in memory for time-sorted input: when a set grows past a threshold,
 * entries below the largest base seen (minus one) move to an append-only spill file; a later request below that
 * floor first reloads the spilled entries it could collide with. After a few reloads an instance stops spilling.
 */
export class TimestampAllocator {
  private readonly slots = new Map<string, InstanceSlots>()

  constructor(
    private readonly spillDir?: string,
    private readonly spillThreshold = DEFAULT_SPILL_THRESHOLD,
  ) {}

  allocate(instanceId: string, base: bigint): bigint {
    let s = this.slots.get(instanceId)
    if (s === undefined) {
      const file = this.spillDir ? join(this.spillDir, `slots-${this.slots.size}.bin`) : undefined
      s = new InstanceSlots(file, this.spillThreshold)
      this.slots.set(instanceId, s)
    }
    let t = base
    if (s.maxUsed !== undefined && base <= s.maxUsed) {
      if (s.floor !== undefined && base < s.floor) this.reload(s, base)
      while (s.used.has(t)) t++
    }
    // else: above everything used so far (the common case for time-sorted input), free without a lookup
    s.used.add(t)
    if (s.maxUsed === undefined || t > s.maxUsed) s.maxUsed = t
    if (s.maxBase === undefined || base > s.maxBase) s.maxBase = base
    if (s.used.size > s.threshold && s.spillFile !== undefined && s.reloads < MAX_RELOADS) this.spill(s)
    return t
  }

  /** Number of timestamps held in memory (all instances); for tests and diagnostics. */
  get inMemory(): number {
    let n = 0
    for (const s of this.slots.values()) n += s.used.size
    return n
  }

  private spill(s: InstanceSlots): void {
    const floor = (s.maxBase as bigint) - 1n
    const out: bigint[] = []
    for (const t of s.used) {
      if (t < floor) {
        if (t < INT64_MIN || t > INT64_MAX) {
          s.reloads = MAX_RELOADS // a timestamp beyond int64: keep this instance in memory
          return
        }
        out.push(t)
      }
    }
    for (const t of out) s.used.delete(t)
    if (out.length > 0) {
      appendFileSync(s.spillFile as string, new Uint8Array(BigInt64Array.from(out).buffer))
      s.floor = s.floor === undefined || floor > s.floor ? floor : s.floor
    }
    // most entries at or above the floor: spilling again soon would gain nothing
    if (s.used.size > s.threshold / 2) s.threshold *= 2
  }

  private reload(s: InstanceSlots, base: bigint): void {
    const kept: bigint[] = []
    const bytes = readFileSync(s.spillFile as string)
    const spilled = new BigInt64Array(new Uint8Array(bytes).buffer) // copied: aligned for 8-byte access
    for (const t of spilled) {
      if (t >= base) s.used.add(t)
      else kept.push(t)
    }
    writeFileSync(s.spillFile as string, new Uint8Array(BigInt64Array.from(kept).buffer))
    s.floor = kept.length > 0 ? base : undefined
    s.reloads++
  }
}
