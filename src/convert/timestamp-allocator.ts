import {closeSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import type SortedBtree from 'sorted-btree'

// CommonJS with its class as `default`: required, so that Node and the test runner load the same thing
const {default: BTree} = createRequire(import.meta.url)('sorted-btree') as typeof SortedBtree

/** Intervals an instance holds in memory before its oldest ones move to a spilled run. */
const DEFAULT_SPILL_THRESHOLD = 1 << 16
/** the share of an instance's intervals, the newest by value, that a spill keeps in memory */
const KEPT_SHARE = 4
/** intervals per page of a spilled run: one read, one entry of the run's page index */
const PAGE = 512
/** intervals a run is written and merged by at a time (one buffer) */
const CHUNK = 64 * PAGE
/** spilled pages held in memory, over all instances (PAGE × 16 bytes each) */
const CACHED_PAGES = 512
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Index of the last element ≤ t in an increasing array (of every `stride`-th element), or −1. */
function lastAtMost(a: ArrayLike<bigint>, t: bigint, stride = 1): number {
  let lo = 0
  let hi = a.length / stride
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid * stride] <= t) lo = mid + 1
    else hi = mid
  }
  return lo - 1
}

const byValue = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A set of integers as disjoint, non-adjacent closed intervals [lo, hi] in a B+ tree keyed by lo: finding the
 * interval that holds a value, and adding a value or a range, cost O(log n). Timestamps used in a row (a request's
 * get and write, a storm of equal ones) are one interval, whatever their number.
 */
export class IntervalSet {
  private readonly tree = new BTree<bigint, bigint>(undefined, byValue)
  /** the pair a lookup of addRange reads (one array for all of them) */
  private readonly pair: [bigint, bigint] = [0n, 0n]

  /** number of intervals */
  get size(): number {
    return this.tree.size
  }

  /** The largest value in the set. */
  get max(): bigint | undefined {
    const lo = this.tree.maxKey()
    return lo === undefined ? undefined : this.tree.get(lo)
  }

  /** The smallest value in the set. */
  get min(): bigint | undefined {
    return this.tree.minKey()
  }

  /** The interval holding t, as [lo, hi], or undefined. */
  covering(t: bigint): [bigint, bigint] | undefined {
    const p = this.tree.getPairOrNextLower(t)
    return p !== undefined && p[1] >= t ? p : undefined
  }

  /** Adds every integer of [a, b] (a ≤ b), merging the intervals it overlaps or touches. */
  addRange(a: bigint, b: bigint): void {
    // the intervals that overlap or touch [a, b] are the last ones starting at or below b + 1: taken from the
    // right, each widens [a, b] and goes, but one starting at or below a, which becomes the union
    for (let p = this.tree.getPairOrNextLower(b + 1n); p !== undefined && p[1] >= a - 1n;) {
      const [lo, hi] = p
      if (hi > b) b = hi
      if (lo <= a) {
        this.tree.set(lo, b)
        return
      }
      this.tree.delete(lo)
      p = this.tree.getPairOrNextLower(b + 1n, this.pair)
    }
    this.tree.set(a, b)
  }

  /** Removes the intervals below `floor` (an interval across it keeps its part from floor up); returns them. */
  takeBelow(floor: bigint): {lo: bigint[]; hi: bigint[]} {
    const lo: bigint[] = []
    const hi: bigint[] = []
    let across: bigint | undefined // the end of an interval across the floor
    for (const [l, h] of this.tree.entries()) {
      if (l >= floor) break
      lo.push(l)
      hi.push(h < floor ? h : floor - 1n)
      if (h >= floor) across = h
    }
    if (lo.length > 0) this.tree.deleteRange(lo[0], floor, false)
    if (across !== undefined) this.tree.set(floor, across)
    return {lo, hi}
  }

  /** The value of the interval at rank r from the top (0 = the last interval's start). */
  startFromTop(r: number): bigint {
    for (const [lo] of this.tree.entriesReversed()) if (r-- === 0) return lo
    return this.tree.minKey() as bigint
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
  /** the page read last, and its data (sequential lookups stay on one page) */
  lastPage: number
  lastData: BigInt64Array
}

/** Writes a run's intervals (given in increasing order, disjoint and non-adjacent) through one buffer. */
class RunWriter {
  private readonly fd: number
  private readonly buf = new BigInt64Array(2 * CHUNK)
  private used = 0
  private readonly run: Run
  private readonly starts: bigint[] = []

  constructor(id: number, dir: string) {
    const path = join(dir, `slots-${id}.bin`)
    const none = new BigInt64Array(0)
    this.run = {id, path, count: 0, min: 0n, max: 0n, pageStarts: none, lastPage: -1, lastData: none}
    this.fd = openSync(path, 'wx')
  }

  push(lo: bigint, hi: bigint): void {
    const run = this.run
    if (run.count % PAGE === 0) this.starts.push(lo)
    if (run.count++ === 0) run.min = lo
    run.max = hi
    this.buf[this.used++] = lo
    this.buf[this.used++] = hi
    if (this.used === this.buf.length) this.flush()
  }

  /** The run written, once its last page is (the file is closed whatever happens). */
  finish(): Run {
    try {
      this.flush()
    } finally {
      closeSync(this.fd)
    }
    this.run.pageStarts = BigInt64Array.from(this.starts)
    return this.run
  }

  /** Closes the file of a run that failed (its folder is removed with the conversion's). */
  abandon(): void {
    closeSync(this.fd)
  }

  private flush(): void {
    const bytes = new Uint8Array(this.buf.buffer, 0, this.used * 8)
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done)
    this.used = 0
  }
}

/** `n` intervals of a run from its `first`, as (lo, hi) pairs. */
function readIntervals(run: Run, first: number, n: number): BigInt64Array {
  const data = new BigInt64Array(2 * n)
  const into = new Uint8Array(data.buffer)
  const fd = openSync(run.path, 'r')
  try {
    for (let done = 0; done < into.length;) {
      const got = readSync(fd, into, done, into.length - done, first * 16 + done)
      if (got === 0) throw new Error('timestamp spill file is shorter than written')
      done += got
    }
  } finally {
    closeSync(fd)
  }
  return data
}

/** Reads a run's intervals in order, a chunk at a time. */
class RunCursor {
  private read = 0
  private data: BigInt64Array = new BigInt64Array(0)
  private i = 0
  lo = 0n
  hi = 0n
  done = false

  constructor(private readonly run: Run) {
    this.next()
  }

  next(): void {
    if (this.i === this.data.length) {
      const n = Math.min(CHUNK, this.run.count - this.read)
      if (n === 0) {
        this.done = true
        return
      }
      this.data = readIntervals(this.run, this.read, n)
      this.read += n
      this.i = 0
    }
    this.lo = this.data[this.i++]
    this.hi = this.data[this.i++]
  }
}

/** Used timestamps of one instance id. */
interface InstanceSlots {
  /** every used timestamp ≥ floor is here; one below it is here or in a run */
  mem: IntervalSet
  floor: bigint | undefined
  /** spilled runs, oldest (largest) first */
  runs: Run[]
  /** the largest timestamp used */
  maxUsed: bigint | undefined
  /** false once a timestamp beyond int64 was seen (it cannot be spilled): the instance then stays in memory */
  spillable: boolean
  threshold: number
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
  /** pages of spilled runs held in memory over all instances, least recently used first (run id × 2³² + page) */
  private readonly pages = new Map<number, BigInt64Array>()
  private files = 0

  constructor(
    private readonly spillDir?: string,
    private readonly spillThreshold = DEFAULT_SPILL_THRESHOLD,
  ) {}

  allocate(instanceId: string, base: bigint): bigint {
    let s = instanceId === this.lastId ? this.last : this.slots.get(instanceId)
    if (s === undefined) {
      s = {
        mem: new IntervalSet(),
        floor: undefined,
        runs: [],
        maxUsed: undefined,
        spillable: this.spillDir !== undefined,
        threshold: this.spillThreshold,
      }
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
    if (run.lastPage !== p) {
      const key = run.id * 2 ** 32 + p
      let data = this.pages.get(key)
      if (data !== undefined) this.pages.delete(key)
      else {
        data = readIntervals(run, p * PAGE, Math.min(PAGE, run.count - p * PAGE))
        if (this.pages.size >= CACHED_PAGES) this.pages.delete(this.pages.keys().next().value as number)
      }
      this.pages.set(key, data)
      run.lastPage = p
      run.lastData = data
    }
    const data = run.lastData
    // the last interval of the page starting at or below t (the page's first one does)
    const i = lastAtMost(data, t, 2)
    return data[2 * i + 1] >= t ? [data[2 * i], data[2 * i + 1]] : undefined
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
      s.runs.push(this.writeRun((w) => below.lo.forEach((lo, i) => w.push(lo, below.hi[i]))))
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

  /** A new run of the intervals `fill` pushes (in increasing order, disjoint and non-adjacent). */
  private writeRun(fill: (w: RunWriter) => void): Run {
    const w = new RunWriter(this.files++, this.spillDir as string)
    try {
      fill(w)
    } catch (error) {
      w.abandon()
      throw error
    }
    return w.finish()
  }

  /** The union of two runs as one run (overlapping or touching intervals joined); their files are removed. */
  private merge(a: Run, b: Run): Run {
    const x = new RunCursor(a)
    const y = new RunCursor(b)
    const next = () => (y.done || (!x.done && x.lo <= y.lo) ? x : y)
    const run = this.writeRun((w) => {
      let c = next()
      let lo = c.lo
      let hi = c.hi
      for (c.next(); !x.done || !y.done; c.next()) {
        c = next()
        if (c.lo <= hi + 1n) {
          if (c.hi > hi) hi = c.hi
        } else {
          w.push(lo, hi)
          lo = c.lo
          hi = c.hi
        }
      }
      w.push(lo, hi)
    })
    for (const old of [a, b]) {
      for (let p = 0; p < old.pageStarts.length; p++) this.pages.delete(old.id * 2 ** 32 + p)
      rmSync(old.path, {force: true})
    }
    return run
  }
}
