// The gets of a publisher log waiting for a write: each write is paired with the most recently added get of its
// instance whose keys (all but the last) prefix the write's keys. Young gets are objects in lists indexed by first
// key; a get still pending SLAB_GRACE_BATCHES batches after its own goes cold (publisher-cold-gets.ts) when the run
// has a spill folder, so that memory follows the young gets, not the input's length.
import {KeyList, pythonEquals, pythonHashKey} from 'lmt'
import {type AgedKeys, type Keys, type LoadedKeys, SLAB_GRACE_BATCHES} from './aged-keys.js'
import {ColdGets, type GetTail} from './cold-gets.js'
import {SpilledKeys} from './key-spill.js'
import {PrefixHashes} from './prefix-fingerprint.js'

/** What emitting a get needs, young or cold. */
export interface WaitingGet extends GetTail {
  seq: number
  instance: string
  ts: bigint
  keys: Keys
  inputLen: bigint
}

/** A young pending get. */
export interface PendingGet extends WaitingGet {
  bucket: PendingGet[]
  /** the first-key index holding `bucket`, and its key there (the bucket leaves the index once empty) */
  index: Map<string, PendingGet[]> | undefined
  indexKey: string
  /** still waiting as this object (false once matched, gone cold, or its write session ended) */
  live: boolean
}

/** A get as the converter hands it over. */
export type NewGet = Omit<PendingGet, 'seq' | 'bucket' | 'index' | 'indexKey' | 'live'> & {keys: LoadedKeys}

function keysEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b
  return pythonEquals(a, b)
}

function keyAt(keys: LoadedKeys, i: number): unknown {
  return keys instanceof KeyList ? keys.at(i) : keys[i]
}

const INT_HASH_KEY = /^n:-?\d+$/

/** The int64 a first key stands for in the index (its hash key `n:<integer>`), if any: cold rows are int64 only. */
function int64FirstKey(writeKeys: LoadedKeys, hashKey: string): bigint | undefined {
  if (writeKeys instanceof KeyList) return writeKeys.words()[0]
  if (!INT_HASH_KEY.test(hashKey)) return undefined
  const v = BigInt(hashKey.slice(2))
  return BigInt.asIntN(64, v) === v ? v : undefined
}

/** The pending gets of one input, indexed per instance by first key so that matching does not scan them all. */
export class PendingGets {
  private seq = 0
  /** the prefix hashes of the write being matched, reset to it when a spilled get is first met (see PrefixHashes) */
  private readonly writeHashes = new PrefixHashes()
  private writeHashed = false
  /** gets too old to stay young, when the run has a spill folder */
  private readonly cold: ColdGets | undefined
  /** the young gets that may go cold, per batch, the current batch last */
  private readonly recent: PendingGet[][] = [[]]

  /** instance → first-key hash → gets with ≥ 2 keys, oldest first */
  private readonly byFirstKey = new Map<string, Map<string, PendingGet[]>>()
  /** instance → gets with one key (they match any write), oldest first */
  private readonly oneKey = new Map<string, PendingGet[]>()
  /** instance → gets whose first key is unhashable (array/object), oldest first */
  private readonly unhashable = new Map<string, PendingGet[]>()
  /** gets with no keys never match; kept only for the final flush */
  private readonly keyless: PendingGet[] = []

  /** `cold: false` keeps every get young (the tests compare both). */
  constructor(
    private readonly aged: AgedKeys,
    {cold = true}: {cold?: boolean} = {},
  ) {
    const spill = aged.spill
    this.cold = cold && spill !== undefined ? new ColdGets(spill) : undefined
  }

  /** A get whose keys are in memory (it has just been read). */
  add(get: NewGet): PendingGet {
    const pending: PendingGet = {
      seq: this.seq++,
      instance: get.instance,
      ts: get.ts,
      keys: get.keys,
      inputLen: get.inputLen,
      queryType: get.queryType,
      blockMask: get.blockMask,
      swSize: get.swSize,
      locationSpecNames: get.locationSpecNames,
      bucket: this.keyless,
      index: undefined,
      indexKey: '',
      live: true,
    }
    const n = get.keys.length
    const h = n >= 2 ? pythonHashKey(keyAt(get.keys, 0)) : undefined
    if (n === 0) this.keyless.push(pending)
    else if (n === 1) pending.bucket = appendTo(this.oneKey, get.instance, pending)
    else if (h === undefined) pending.bucket = appendTo(this.unhashable, get.instance, pending)
    else {
      let m = this.byFirstKey.get(get.instance)
      if (!m) this.byFirstKey.set(get.instance, (m = new Map()))
      pending.bucket = appendTo(m, h, pending)
      pending.index = m
      pending.indexKey = h
      if (this.cold) this.recent[this.recent.length - 1].push(pending)
    }
    return pending
  }

  /**
   * A batch is done: the gets of the batch that aged out (as AgedKeys counts them), if still pending and of the
   * usual shape, go cold. Called before AgedKeys.endBatch, which then leaves their keys alone.
   */
  endBatch(): void {
    if (!this.cold) return
    this.recent.push([])
    if (this.recent.length <= SLAB_GRACE_BATCHES) return
    for (const g of this.recent.shift() as PendingGet[]) if (g.live) this.goCold(g, this.cold)
  }

  /** Removes and returns the most recently added get that matches the write, if any. */
  takeMatch(instance: string, ts: bigint, writeKeys: LoadedKeys): WaitingGet | undefined {
    this.writeHashed = false
    const candidates: Array<PendingGet[] | undefined> = [
      this.oneKey.get(instance),
      this.unhashable.get(instance),
    ]
    const h = writeKeys.length > 0 ? pythonHashKey(keyAt(writeKeys, 0)) : undefined
    if (h !== undefined) candidates.push(this.byFirstKey.get(instance)?.get(h))
    let best: PendingGet | undefined
    let bestIndex = -1
    for (const list of candidates) {
      if (!list) continue
      for (let i = list.length - 1; i >= 0; i--) {
        const g = list[i]
        if (best && g.seq < best.seq) break
        if (g.ts > ts || !this.prefixMatches(g.keys, writeKeys)) continue
        best = g
        bestIndex = i
        break
      }
    }
    const coldRow = h === undefined ? -1 : this.coldMatch(instance, ts, writeKeys, h, best?.seq ?? -1)
    let taken: WaitingGet | undefined = best
    if (coldRow >= 0) taken = (this.cold as ColdGets).take(coldRow)
    else if (best) {
      best.live = false
      best.bucket.splice(bestIndex, 1)
      // an emptied first-key bucket leaves its index: memory follows the pending gets, not the keys ever seen
      if (best.bucket.length === 0 && best.index !== undefined) best.index.delete(best.indexKey)
    }
    if (this.writeHashed) this.writeHashes.release() // it held a view of the write's keys
    return taken
  }

  /** Every remaining get, young and cold, in the order it was added; empties the store as it goes. */
  *drain(): Generator<WaitingGet> {
    const young: PendingGet[] = [...this.keyless]
    // element by element: a spread of a long list as call arguments overflows the stack
    const take = (l: PendingGet[]) => {
      for (const g of l) young.push(g)
    }
    for (const l of this.oneKey.values()) take(l)
    for (const l of this.unhashable.values()) take(l)
    for (const m of this.byFirstKey.values()) for (const l of m.values()) take(l)
    this.keyless.length = 0
    this.oneKey.clear()
    this.unhashable.clear()
    this.byFirstKey.clear()
    this.recent.length = 0
    this.recent.push([])
    young.sort((a, b) => a.seq - b.seq)
    const cold = this.cold?.drain()
    let c = cold?.next()
    for (const g of young) {
      for (; c !== undefined && !c.done && c.value.seq < g.seq; c = cold?.next()) yield c.value
      yield g
    }
    for (; c !== undefined && !c.done; c = cold?.next()) yield c.value
  }

  /** The newest live cold get newer than `newerThan` that matches the write, or -1. */
  private coldMatch(
    instance: string,
    ts: bigint,
    writeKeys: LoadedKeys,
    hashKey: string,
    newerThan: number,
  ): number {
    const cold = this.cold
    if (cold === undefined || cold.size === 0) return -1
    const first = int64FirstKey(writeKeys, hashKey)
    if (first === undefined) return -1
    return cold.match(instance, first, ts, newerThan, (keys) => this.prefixMatches(keys, writeKeys))
  }

  /** Moves a young get to the cold rows if it can go cold. */
  private goCold(g: PendingGet, cold: ColdGets): void {
    if (!cold.tryAdd(g, g.keys as LoadedKeys)) return
    g.bucket.splice(g.bucket.indexOf(g), 1)
    if (g.bucket.length === 0 && g.index !== undefined) g.index.delete(g.indexKey)
    g.live = false
  }

  /** All keys of the get but its last are a prefix of the write's keys (spilled keys read back only if needed). */
  private prefixMatches(getKeys: Keys, writeKeys: LoadedKeys): boolean {
    const m = getKeys.length - 1
    if (writeKeys.length < m) return false
    if (m <= 0) return true
    if (getKeys instanceof SpilledKeys && writeKeys instanceof KeyList) {
      // a differing prefix is rejected without reading the get's keys back
      if (!this.writeHashed) this.writeHashes.reset(writeKeys.words())
      this.writeHashed = true
      if (this.writeHashes.of(m) !== getKeys.prefixHash) return false
    }
    const a = this.aged.load(getKeys)
    if (a instanceof KeyList && writeKeys instanceof KeyList) {
      const aw = a.words()
      const bw = writeKeys.words()
      for (let i = 0; i < m; i++) if (aw[i] !== bw[i]) return false // int64 values: equal words, equal integers
      return true
    }
    for (let i = 0; i < m; i++) if (!keysEqual(keyAt(writeKeys, i), keyAt(a, i))) return false
    return true
  }
}

/** Appends the get to the list of `key` (a new list holds just it: most first-key buckets hold one get). */
function appendTo<K>(map: Map<K, PendingGet[]>, key: K, get: PendingGet): PendingGet[] {
  const l = map.get(key)
  if (l !== undefined) {
    l.push(get)
    return l
  }
  const one = [get]
  map.set(key, one)
  return one
}
