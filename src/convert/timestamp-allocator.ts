import {closeSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'

/** Intervals an instance holds in memory before its oldest ones move to a spilled run. */
const DEFAULT_SPILL_THRESHOLD = 1 << 16
/** the share of an instance's intervals, the newest by value, that a spill keeps in memory */
const KEPT_SHARE = 4
/** intervals per leaf of the in-memory set (a leaf splits at twice this) */
const LEAF = 128
/** intervals per page of a spilled run: one read, one entry of the run's page index */
const PAGE = 512
/** spilled pages held in memory, over all instances (PAGE × 16 bytes each) */
const CACHED_PAGES = 512
/** intervals per buffer when runs are merged */
const MERGE_BUFFER = 1 << 15
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Index of the last element ≤ t in an increasing array, or −1. */
function lastAtMost(a: ArrayLike<bigint>, t: bigint): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] <= t) lo = mid + 1
    else hi = mid
  }
  return lo - 1
}

/** One leaf of {@link IntervalSet}: intervals [lo[i], hi[i]] in increasing order. */
interface Leaf {
  lo: bigint[]
  hi: bigint[]
}

/**
 * A set of integers as disjoint, non-adjacent closed intervals in increasing order, kept in leaves of at most
 * 2 × LEAF intervals under a sorted index of their first values: finding the interval that holds a value is two
 * binary searches, and adding a value or a range touches one leaf (a split or an emptied leaf also the index).
 * Timestamps used in a row (a request's get and write, a storm of equal ones) are one interval, whatever their number.
 */
export class IntervalSet {
  private leaves: Leaf[] = []
  /** mins[k] = leaves[k].lo[0] */
  private mins: bigint[] = []
  /** number of intervals */
  size = 0

  /** The largest value in the set. */
  get max(): bigint | undefined {
    const leaf = this.leaves[this.leaves.length - 1]
    return leaf === undefined ? undefined : leaf.hi[leaf.hi.length - 1]
  }

  /** The smallest value in the set. */
  get min(): bigint | undefined {
    return this.mins[0]
  }

  /** The interval holding t, as [lo, hi], or undefined. */
  covering(t: bigint): [bigint, bigint] | undefined {
    const k = lastAtMost(this.mins, t)
    if (k < 0) return undefined
    const leaf = this.leaves[k]
    const i = lastAtMost(leaf.lo, t)
    return leaf.hi[i] >= t ? [leaf.lo[i], leaf.hi[i]] : undefined
  }

  /** Adds every integer of [a, b] (a ≤ b), merging the intervals it overlaps or touches. */
  addRange(a: bigint, b: bigint): void {
    const last = this.leaves[this.leaves.length - 1]
    if (last === undefined) {
      this.leaves.push({lo: [a], hi: [b]})
      this.mins.push(a)
      this.size = 1
      return
    }
    const n = last.hi.length
    const lastHi = last.hi[n - 1]
    if (a > lastHi) {
      // above everything: the usual case for time-sorted input
      if (a === lastHi + 1n) last.hi[n - 1] = b
      else {
        last.lo.push(a)
        last.hi.push(b)
        this.size++
        if (last.lo.length > 2 * LEAF) this.split(this.leaves.length - 1)
      }
      return
    }
    // the first interval that can merge with [a, b]: the last one starting at or below a − 1, if it reaches a − 1
    let k = lastAtMost(this.mins, a - 1n)
    let i: number
    if (k < 0) {
      k = 0
      i = 0
    } else {
      const leaf = this.leaves[k]
      i = lastAtMost(leaf.lo, a - 1n)
      if (leaf.hi[i] < a - 1n) i++
      if (i === leaf.lo.length) {
        k++
        i = 0
      }
    }
    const leaf = this.leaves[k]
    if (leaf === undefined || leaf.lo[i] > b + 1n) {
      // touches nothing: a new interval at (k, i), or at the end of the leaf before when k ran past the last leaf
      if (leaf === undefined) {
        const prev = this.leaves[k - 1]
        prev.lo.push(a)
        prev.hi.push(b)
        this.size++
        if (prev.lo.length > 2 * LEAF) this.split(k - 1)
        return
      }
      leaf.lo.splice(i, 0, a)
      leaf.hi.splice(i, 0, b)
      if (i === 0) this.mins[k] = a
      this.size++
      if (leaf.lo.length > 2 * LEAF) this.split(k)
      return
    }
    // merge: [a, b] takes in (k, i) and every following interval that starts at or below b + 1
    const lo = leaf.lo[i] < a ? leaf.lo[i] : a
    let hi = leaf.hi[i] > b ? leaf.hi[i] : b
    leaf.lo[i] = lo
    if (i === 0) this.mins[k] = lo
    for (;;) {
      let nk = k
      let ni = i + 1
      if (ni === this.leaves[nk].lo.length) {
        nk++
        ni = 0
      }
      const next = this.leaves[nk]
      if (next === undefined || next.lo[ni] > hi + 1n) break
      if (next.hi[ni] > hi) hi = next.hi[ni]
      this.removeAt(nk, ni)
    }
    this.leaves[k].hi[i] = hi
  }

  /** Removes the intervals below `floor` (an interval across it keeps its part from floor up); returns them. */
  takeBelow(floor: bigint): {lo: bigint[]; hi: bigint[]} {
    const lo: bigint[] = []
    const hi: bigint[] = []
    let k = 0
    while (k < this.leaves.length) {
      const leaf = this.leaves[k]
      const m = leaf.lo.length
      let i = 0
      while (i < m && leaf.hi[i] < floor) {
        lo.push(leaf.lo[i])
        hi.push(leaf.hi[i])
        i++
      }
      if (i < m && leaf.lo[i] < floor) {
        lo.push(leaf.lo[i])
        hi.push(floor - 1n)
        leaf.lo[i] = floor
      }
      if (i === m) {
        k++
        continue
      }
      leaf.lo.splice(0, i)
      leaf.hi.splice(0, i)
      this.mins[k] = leaf.lo[0]
      break
    }
    this.leaves.splice(0, k)
    this.mins.splice(0, k)
    this.size = this.count()
    return {lo, hi}
  }

  /** The value of the interval at rank r from the top (0 = the last interval's start). */
  startFromTop(r: number): bigint {
    for (let k = this.leaves.length - 1; k >= 0; k--) {
      const leaf = this.leaves[k]
      if (r < leaf.lo.length) return leaf.lo[leaf.lo.length - 1 - r]
      r -= leaf.lo.length
    }
    return this.mins[0]
  }

  private count(): number {
    let n = 0
    for (const leaf of this.leaves) n += leaf.lo.length
    return n
  }

  private removeAt(k: number, i: number): void {
    const leaf = this.leaves[k]
    leaf.lo.splice(i, 1)
    leaf.hi.splice(i, 1)
    this.size--
    if (leaf.lo.length === 0) {
      this.leaves.splice(k, 1)
      this.mins.splice(k, 1)
    } else if (i === 0) this.mins[k] = leaf.lo[0]
  }

  private split(k: number): void {
    const leaf = this.leaves[k]
    const right: Leaf = {lo: leaf.lo.splice(LEAF), hi: leaf.hi.splice(LEAF)}
    this.leaves.splice(k + 1, 0, right)
    this.mins.splice(k + 1, 0, right.lo[0])
  }
}

/** A spilled run: disjoint, non-adjacent intervals in increasing order, as (lo, hi) int64 pairs in its own file. */
interface Run {
  /** unique within the allocator (names the file, keys the page cache) */
  id: number
  path: string
  count: number
  min: bigint
  max: bigint
  /** the first value of each page */
  pageStarts: BigInt64Array
  /** the page read last (sequential lookups stay on one page) */
  lastPage: number
  lastData: BigInt64Array | undefined
}

/** Writes a run's intervals (given in increasing order, disjoint and non-adjacent) through one buffer. */
class RunWriter {
  private readonly fd: number
  private readonly buf: BigInt64Array
  private used = 0
  private offset = 0
  private count = 0
  private min = 0n
  private max = 0n
  private readonly starts: bigint[] = []

  /** `expected`: the number of intervals about to be written (sizes the buffer) */
  constructor(
    private readonly id: number,
    private readonly path: string,
    expected: number,
  ) {
    this.buf = new BigInt64Array(2 * Math.max(1, Math.min(MERGE_BUFFER, expected)))
    this.fd = openSync(path, 'wx')
  }

  push(lo: bigint, hi: bigint): void {
    if (this.count % PAGE === 0) this.starts.push(lo)
    if (this.count === 0) this.min = lo
    this.max = hi
    this.count++
    this.buf[this.used++] = lo
    this.buf[this.used++] = hi
    if (this.used === this.buf.length) this.flush()
  }

  finish(): Run {
    try {
      this.flush()
    } finally {
      closeSync(this.fd)
    }
    const {id, path, count, min, max} = this
    return {
      id,
      path,
      count,
      min,
      max,
      pageStarts: BigInt64Array.from(this.starts),
      lastPage: -1,
      lastData: undefined,
    }
  }

  abandon(): void {
    closeSync(this.fd)
  }

  private flush(): void {
    const bytes = new Uint8Array(this.buf.buffer, 0, this.used * 8)
    let done = 0
    while (done < bytes.length)
      done += writeSync(this.fd, bytes, done, bytes.length - done, this.offset + done)
    this.offset += bytes.length
    this.used = 0
  }
}

/** Reads a run's intervals in order, a buffer at a time. */
class RunCursor {
  private readonly fd: number
  private readonly buf: BigInt64Array
  private len = 0
  private pos = 0
  private read = 0
  lo = 0n
  hi = 0n
  done = false

  constructor(private readonly run: Run) {
    this.buf = new BigInt64Array(2 * Math.max(1, Math.min(MERGE_BUFFER, run.count)))
    this.fd = openSync(run.path, 'r')
    this.next()
  }

  next(): void {
    if (this.pos === this.len) {
      const n = Math.min(this.buf.length >>> 1, this.run.count - this.read)
      if (n === 0) {
        this.done = true
        return
      }
      readExactly(this.fd, new Uint8Array(this.buf.buffer, 0, n * 16), this.read * 16)
      this.read += n
      this.len = 2 * n
      this.pos = 0
    }
    this.lo = this.buf[this.pos++]
    this.hi = this.buf[this.pos++]
  }

  close(): void {
    closeSync(this.fd)
  }
}

function readExactly(fd: number, into: Uint8Array, position: number): void {
  let done = 0
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done)
    if (n === 0) throw new Error('timestamp spill file is shorter than written')
    done += n
  }
}

/** Pages of spilled runs held in memory, least recently used out, over all instances of an allocator. */
class PageCache {
  private readonly pages = new Map<number, BigInt64Array>()

  page(run: Run, p: number): BigInt64Array {
    if (run.lastPage === p) return run.lastData as BigInt64Array
    const key = run.id * 2 ** 32 + p
    let data = this.pages.get(key)
    if (data !== undefined) {
      this.pages.delete(key)
      this.pages.set(key, data)
    } else {
      const n = Math.min(PAGE, run.count - p * PAGE)
      data = new BigInt64Array(2 * n)
      const fd = openSync(run.path, 'r')
      try {
        readExactly(fd, new Uint8Array(data.buffer), p * PAGE * 16)
      } finally {
        closeSync(fd)
      }
      if (this.pages.size >= CACHED_PAGES) this.pages.delete(this.pages.keys().next().value as number)
      this.pages.set(key, data)
    }
    run.lastPage = p
    run.lastData = data
    return data
  }

  drop(run: Run): void {
    for (let p = 0; p < run.pageStarts.length; p++) this.pages.delete(run.id * 2 ** 32 + p)
  }
}

/** Used timestamps of one instance id. */
class InstanceSlots {
  /** every used timestamp ≥ floor is here; one below it is here or in a run */
  readonly mem = new IntervalSet()
  floor: bigint | undefined
  /** spilled runs, oldest (largest) first */
  runs: Run[] = []
  /** the largest timestamp used */
  maxUsed: bigint | undefined
  /** false once a timestamp beyond int64 was seen (it cannot be spilled): the instance then stays in memory */
  spillable: boolean

  constructor(
    spillable: boolean,
    public threshold: number,
  ) {
    this.spillable = spillable
  }
}

/**
 * `allocateTimestamp` of the converter contract: per instance id, the smallest free `t ≥ base`, shared by gets and
 * writes for the whole run (docs/convert.md §4.3).
 *
 * Used timestamps are kept as intervals, so a run of taken ones (equal timestamps bumped one after another, a request's
 * get and write) is one entry and is stepped over in one lookup: an allocation costs O(log n) lookups whatever the
 * collisions. Bounded in memory: when an instance holds more than a threshold of intervals, all but its newest quarter
 * by value move to a spilled run (a file with a page index); runs of similar size are merged, so an instance has
 * O(log n) of them. Below the floor a lookup steps through memory and the runs that span it, reading pages through a
 * shared cache, and the stretch of used timestamps it stepped over is added to memory as one interval together with
 * the one it allocates, so a later request in that stretch finds its end in memory at once.
 */
export class TimestampAllocator {
  private readonly slots = new Map<string, InstanceSlots>()
  private lastId: string | undefined
  private last: InstanceSlots | undefined
  private readonly cache = new PageCache()
  private files = 0

  constructor(
    private readonly spillDir?: string,
    private readonly spillThreshold = DEFAULT_SPILL_THRESHOLD,
  ) {}

  allocate(instanceId: string, base: bigint): bigint {
    let s = instanceId === this.lastId ? this.last : this.slots.get(instanceId)
    if (s === undefined) {
      s = new InstanceSlots(this.spillDir !== undefined, this.spillThreshold)
      this.slots.set(instanceId, s)
    }
    this.lastId = instanceId
    this.last = s
    if (s.maxUsed === undefined || base > s.maxUsed) {
      // above everything used: free
      s.mem.addRange(base, base)
      s.maxUsed = base
    } else {
      let t = base
      let from = base // the used stretch [from, t) ends where the search is
      for (;;) {
        const m = s.mem.covering(t)
        if (m !== undefined) {
          if (m[0] < from) from = m[0]
          t = m[1] + 1n
        }
        if (s.floor === undefined || t >= s.floor) break
        let moved = false
        for (const run of s.runs) {
          const r = this.runCovering(run, t)
          if (r === undefined) continue
          if (r[0] < from) from = r[0]
          t = r[1] + 1n
          moved = true
        }
        if (!moved) break
      }
      s.mem.addRange(from, t)
      if (t > s.maxUsed) s.maxUsed = t
      base = t
    }
    if (s.mem.size > s.threshold && s.spillable) this.spill(s)
    return base
  }

  /** Number of intervals held in memory (all instances); for tests and diagnostics. */
  get inMemory(): number {
    let n = 0
    for (const s of this.slots.values()) n += s.mem.size
    return n
  }

  /** Number of spilled runs (all instances); for tests and diagnostics. */
  get spilledRuns(): number {
    let n = 0
    for (const s of this.slots.values()) n += s.runs.length
    return n
  }

  /** The interval of a run that holds t, as [lo, hi], or undefined. */
  private runCovering(run: Run, t: bigint): [bigint, bigint] | undefined {
    if (t < run.min || t > run.max) return undefined
    const p = lastAtMost(run.pageStarts, t)
    const data = this.cache.page(run, p)
    // the last interval of the page starting at or below t (the page's first one does)
    let lo = 0
    let hi = data.length >>> 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (data[2 * mid] <= t) lo = mid + 1
      else hi = mid
    }
    const i = lo - 1
    const end = data[2 * i + 1]
    return end >= t ? [data[2 * i], end] : undefined
  }

  /**
   * Moves the intervals below a new floor to a run: the floor keeps the newest intervals by value (a share of them)
   * in memory, so requests a little in the past (a get allocated when its write finishes) stay in memory; it never
   * goes down. Then merges the newest runs while the older of the last two is at most twice the newer.
   */
  private spill(s: InstanceSlots): void {
    const min = s.mem.min as bigint
    const max = s.mem.max as bigint
    if (min < INT64_MIN || max > INT64_MAX) {
      s.spillable = false // a timestamp beyond int64: keep this instance in memory
      return
    }
    const quantile = s.mem.startFromTop(Math.ceil(s.mem.size / KEPT_SHARE) - 1)
    const floor = s.floor !== undefined && s.floor > quantile ? s.floor : quantile
    const below = s.mem.takeBelow(floor)
    if (below.lo.length > 0) {
      const writer = this.newRun(below.lo.length)
      try {
        for (let i = 0; i < below.lo.length; i++) writer.push(below.lo[i], below.hi[i])
      } catch (error) {
        writer.abandon()
        throw error
      }
      s.runs.push(writer.finish())
      s.floor = floor
      while (s.runs.length >= 2 && s.runs[s.runs.length - 2].count <= 2 * s.runs[s.runs.length - 1].count) {
        const b = s.runs.pop() as Run
        const a = s.runs.pop() as Run
        s.runs.push(this.merge(a, b))
      }
    }
    // most intervals at or above the floor: spilling again soon would gain nothing
    if (s.mem.size > s.threshold / 2) s.threshold *= 2
  }

  private newRun(expected: number): RunWriter {
    const id = this.files++
    return new RunWriter(id, join(this.spillDir as string, `slots-${id}.bin`), expected)
  }

  /** The union of two runs as one run (overlapping or touching intervals joined); their files are removed. */
  private merge(a: Run, b: Run): Run {
    const writer = this.newRun(a.count + b.count)
    const x = new RunCursor(a)
    const y = new RunCursor(b)
    try {
      let lo = 0n
      let hi = 0n
      let open = false
      while (!x.done || !y.done) {
        const c = y.done || (!x.done && x.lo <= y.lo) ? x : y
        if (open && c.lo <= hi + 1n) {
          if (c.hi > hi) hi = c.hi
        } else {
          if (open) writer.push(lo, hi)
          lo = c.lo
          hi = c.hi
          open = true
        }
        c.next()
      }
      if (open) writer.push(lo, hi)
    } catch (error) {
      writer.abandon()
      throw error
    } finally {
      x.close()
      y.close()
    }
    const run = writer.finish()
    for (const old of [a, b]) {
      this.cache.drop(old)
      rmSync(old.path, {force: true})
    }
    return run
  }
}
