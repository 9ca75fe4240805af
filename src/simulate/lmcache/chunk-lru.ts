// The chunk cache of LMCache's cache simulator: a flat LRU of chunk keys counted in chunks (every chunk costs the
// same), one for all models. Keys are small integers (the run interns the hash strings), so the list lives in typed
// arrays indexed by key id; with `ranks`, the LRU rank of a key (0 = most recent) is answered in O(log n) by a
// Fenwick tree over the entries' access stamps.
import {grown} from '../../util/grown.js'
import {Fenwick} from '../oracles/stack-pass.js'

const NONE = -1
/** `prev` of a key that is not cached */
const ABSENT = -2

export class ChunkLru {
  /** towards the least recent end, and towards the most recent end; `prev[k] === ABSENT` when k is not cached */
  private prev = new Int32Array(1024).fill(ABSENT)
  private next = new Int32Array(1024).fill(NONE)
  /** least and most recent keys */
  private head = NONE
  private tail = NONE
  size = 0
  evictions = 0
  private readonly rankTree: RankTree | undefined

  constructor(
    readonly capacity: number,
    ranks = false,
  ) {
    if (!(capacity >= 1)) throw new RangeError(`capacity must be at least one chunk (got ${capacity})`)
    this.rankTree = ranks ? new RankTree() : undefined
  }

  has(key: number): boolean {
    return key < this.prev.length && this.prev[key] !== ABSENT
  }

  /** The LRU rank of a cached key: 0 for the most recent, size − 1 for the least. */
  rank(key: number): number {
    if (!this.rankTree) throw new Error('ChunkLru: ranks were not asked for')
    return this.rankTree.newerThan(key, this.size)
  }

  /** A cached key becomes the most recent. */
  touch(key: number): void {
    if (this.tail !== key) {
      this.unlink(key)
      this.append(key)
    }
    this.rankTree?.restamp(key, this)
  }

  /** A key is inserted as the most recent (a cached one is refreshed); a full cache first evicts its least recent. */
  insert(key: number): void {
    if (this.has(key)) return this.touch(key)
    if (this.size >= this.capacity) {
      const lru = this.head
      this.unlink(lru)
      this.prev[lru] = ABSENT
      this.rankTree?.drop(lru)
      this.size--
      this.evictions++
    }
    if (key >= this.prev.length) {
      const size = Math.max(key + 1, this.prev.length * 2)
      this.prev = grown(this.prev, size).fill(ABSENT, this.prev.length)
      this.next = grown(this.next, size).fill(NONE, this.next.length)
    }
    this.append(key)
    this.size++
    this.rankTree?.restamp(key, this)
  }

  /** The cached keys from the least recent to the most recent. */
  *keysFromLeastRecent(): Generator<number> {
    for (let k = this.head; k !== NONE; k = this.next[k]) yield k
  }

  private unlink(key: number): void {
    const p = this.prev[key]
    const n = this.next[key]
    if (p === NONE) this.head = n
    else this.next[p] = n
    if (n === NONE) this.tail = p
    else this.prev[n] = p
  }

  private append(key: number): void {
    this.prev[key] = this.tail
    this.next[key] = NONE
    if (this.tail === NONE) this.head = key
    else this.next[this.tail] = key
    this.tail = key
  }
}

/**
 * Access stamps of the cached keys in a Fenwick tree: the number of cached keys newer than a key is the count of
 * stamps above its own. Stamps grow with every access; when they reach the tree's end, the cached keys are stamped
 * again 1…size in recency order and the tree is rebuilt (amortised O(1) per access).
 */
class RankTree {
  private tree = new Fenwick(4096)
  private stamps = new Float64Array(1024)
  private clock = 0

  newerThan(key: number, size: number): number {
    return size - this.tree.prefix(this.stamps[key])
  }

  drop(key: number): void {
    this.tree.add(this.stamps[key], -1)
    this.stamps[key] = 0
  }

  restamp(key: number, lru: ChunkLru): void {
    if (key >= this.stamps.length) this.stamps = grown(this.stamps, Math.max(key + 1, this.stamps.length * 2))
    if (this.stamps[key] > 0) this.tree.add(this.stamps[key], -1)
    if (this.clock >= this.tree.n) this.rebuild(lru, key)
    this.stamps[key] = ++this.clock
    this.tree.add(this.clock, 1)
  }

  /** Stamps 1…n for the cached keys but `except` (about to be stamped), in recency order; a tree with room. */
  private rebuild(lru: ChunkLru, except: number): void {
    this.tree = new Fenwick(Math.max(4096, 4 * lru.size))
    this.clock = 0
    for (const k of lru.keysFromLeastRecent()) {
      if (k === except) continue
      this.stamps[k] = ++this.clock
      this.tree.add(this.clock, 1)
    }
    this.stamps[except] = 0
  }
}
