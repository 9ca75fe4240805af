// The StorageManager model: L1, eviction, L2 adapters and controllers, with LMCache's public methods (§6.12).
import {createHash} from 'node:crypto'
import {installTracing, isTracingEnabled, publishCallEvent} from '../../formats/lct/capture.js'
import {STORAGE_MANAGER_QUALNAME} from '../../formats/lct/constants.js'
import {
  type MemoryLayoutDesc,
  type ObjectKey,
  PrefetchHandle,
  PrefetchMode,
  type PrefetchRequestSpec,
  TrimPolicy,
} from '../../formats/lct/values.js'
import {pyJsonDumps} from '../../formats/json/py-json.js'
import type {Scheduler} from '../scheduler.js'
import type {ModelOptions, StorageManagerConfig} from './config.js'
import {EvictionController, type EvictionPolicy, LruPolicy, NoopPolicy} from './eviction.js'
import {KeySlots} from './key-slots.js'
import {L1, type L1Code} from './l1.js'
import {MockL2} from './mock-l2.js'
import {PrefetchController, StoreController} from './controllers.js'

/** LMCache's StorageManager class, the prefix of the qualnames the storage level handles */
export const SM = STORAGE_MANAGER_QUALNAME

export interface ReadContext {
  enter(): void
  exit(): void
}

/** `[from, from + 1, …, to - 1]` (Array.from with a map function was ~2 % of the replaying thread) */
function positions(from: number, to: number): number[] {
  const out: number[] = []
  for (let i = from; i < to; i++) out.push(i)
  return out
}

/**
 * The keys a prefetch leaves for L2 after its L1 step: SPARSE, every key that did not succeed; else every key after
 * the hit prefix. `codes` undefined (WARM took no locks): the keys after the prefix.
 */
function restOf(keys: ObjectKey[], hit: number, codes: L1Code[] | undefined, sparse: boolean): ObjectKey[] {
  if (sparse && codes !== undefined) return keys.filter((_, i) => codes[i] !== 'SUCCESS')
  return keys.slice(hit)
}

export class StorageManagerModel {
  readonly l1: L1
  readonly policy: EvictionPolicy
  readonly eviction: EvictionController
  readonly adapters: MockL2[]
  readonly prefetch: PrefetchController
  readonly counters = {
    prefetch_calls: 0,
    prefix_hit_keys: 0,
    prefix_miss_keys: 0,
    reserve_write_calls: 0,
    reserve_write_keys: 0,
    reserved_keys: 0,
    oom_keys: 0,
    oom_calls: 0,
    not_writable_keys: 0,
  }
  readonly readContexts = {entered: 0, not_ready: 0, exited: 0, unmatched_exits: 0, closed_by_final_sweep: 0}
  readonly approximations: Record<string, number> = {}

  constructor(
    readonly config: StorageManagerConfig,
    readonly options: ModelOptions,
    readonly scheduler: Scheduler,
    warn: (code: string, key: string, message: string) => void,
  ) {
    const slots = new KeySlots()
    this.l1 = new L1({
      slots,
      sizeInBytes: config.l1.sizeInBytes,
      alignBytes: config.l1.alignBytes,
      writeTtl: config.l1.writeTtlSeconds,
      readTtl: config.l1.readTtlSeconds,
      allocMode: options.allocMode,
      writePendingReadable: options.writePending,
      now: () => scheduler.now(),
      warn,
    })
    this.policy =
      config.eviction.policy === 'LRU'
        ? new LruPolicy(options.lruOrder === 'reversed', slots)
        : new NoopPolicy()
    this.adapters = config.l2Adapters.map((c, i) => new MockL2(i, c, scheduler))
    this.l1.listeners.push(this.policy, new StoreController(this.l1, this.adapters, scheduler))
    this.eviction = new EvictionController(
      this.l1,
      this.policy,
      config.eviction.triggerWatermark,
      config.eviction.evictionRatio,
      scheduler,
    )
    this.prefetch = new PrefetchController(
      this.l1,
      this.adapters,
      scheduler,
      config.prefetchMaxInFlight,
      (n) => this.approximate(n),
    )
  }

  approximate(name: string): void {
    this.approximations[name] = (this.approximations[name] ?? 0) + 1
  }

  reserveWrite(keys: ObjectKey[], layoutDesc: MemoryLayoutDesc, mode: string): L1Code[] {
    const r = this.l1.reserveWrite(
      keys,
      keys.map(() => false),
      layoutDesc,
      mode,
    )
    const c = this.counters
    c.reserve_write_calls++
    c.reserve_write_keys += keys.length
    let oom = 0
    for (const code of r) {
      if (code === 'SUCCESS') c.reserved_keys++
      else if (code === 'OUT_OF_MEMORY') oom++
      else if (code === 'KEY_NOT_WRITABLE') c.not_writable_keys++
    }
    c.oom_keys += oom
    if (oom > 0) c.oom_calls++
    return r
  }

  finishWrite(keys: ObjectKey[]): void {
    this.l1.finishWrite(keys)
  }

  abortWrite(keys: ObjectKey[]): void {
    this.l1.finishWriteAndDelete(keys)
  }

  /**
   * The L1 prefix step of a prefetch: the number of leading hits, and the codes of the keys (undefined for WARM) from
   * which {@link restOf} makes the keys left for L2 (only when there is an L2 to ask).
   */
  private l1Step(
    keys: ObjectKey[],
    extra: number,
    policy: TrimPolicy,
    warm: boolean,
  ): {hit: number; codes: L1Code[] | undefined} {
    this.counters.prefetch_calls++
    if (warm) {
      // WARM takes no read locks: count the readable prefix only (approximation)
      let hit = 0
      while (hit < keys.length) {
        const e = this.l1.entryOf(keys[hit])
        if (!e || this.l1.writeLocked(e)) break
        hit++
      }
      this.counters.prefix_hit_keys += hit
      this.counters.prefix_miss_keys += keys.length - hit
      return {hit, codes: undefined}
    }
    const r = this.l1.reserveRead(keys, extra)
    let hit = 0
    while (hit < keys.length && r[hit] === 'SUCCESS') hit++
    this.counters.prefix_hit_keys += hit
    this.counters.prefix_miss_keys += keys.length - hit
    if (policy !== TrimPolicy.SPARSE) {
      // the read locks taken past the prefix are given back (no array unless there are some)
      let after: ObjectKey[] | undefined
      for (let i = hit; i < keys.length; i++) if (r[i] === 'SUCCESS') (after ??= []).push(keys[i])
      if (after !== undefined) this.l1.finishRead(after, extra)
    }
    return {hit, codes: r}
  }

  submitPrefetchTask(
    keys: ObjectKey[],
    layoutDesc: MemoryLayoutDesc,
    extraCount: number,
    externalRequestId: string,
  ): PrefetchHandle {
    const {hit, codes} = this.l1Step(keys, extraCount, TrimPolicy.PREFIX, false)
    let id = -1
    if (hit < keys.length && this.adapters.length > 0)
      id = this.prefetch.submit(
        restOf(keys, hit, codes, false),
        new Map([[0, layoutDesc]]),
        extraCount,
        TrimPolicy.PREFIX,
        PrefetchMode.LOOKUP,
      )
    return this.handle(id, externalRequestId, hit, keys.length, id >= 0 ? positions(hit, keys.length) : [], 0)
  }

  submitPrefetchTaskSpec(
    spec: PrefetchRequestSpec,
    externalRequestId: string,
    skipL2: boolean,
  ): PrefetchHandle {
    const extra = spec.numKvReaders - 1
    const keys = [...spec.keys]
    if (spec.groupLayoutDescs.size > 1)
      for (const k of keys)
        if (!spec.groupLayoutDescs.has(k.objectGroupId))
          throw new Error(`no layout for object_group_id ${k.objectGroupId}`)
    if (spec.policy === TrimPolicy.SEGMENTED_PREFIX) this.approximate('segmented_prefix_l1_step')
    const warm = spec.mode === PrefetchMode.WARM
    if (warm) this.approximate('warm_l1_step')
    const sparse = spec.policy === TrimPolicy.SPARSE
    const {hit, codes} = this.l1Step(keys, extra, sparse ? TrimPolicy.SPARSE : TrimPolicy.PREFIX, warm)
    let id = -1
    if (!skipL2 && this.adapters.length > 0) {
      const rest = restOf(keys, hit, codes, sparse)
      if (rest.length > 0)
        id = this.prefetch.submit(rest, spec.groupLayoutDescs, extra, spec.policy, spec.mode)
    }
    return this.handle(id, externalRequestId, hit, keys.length, [], spec.generation)
  }

  /** The handle of a prefetch whose L1 step found the first `hit` of `total` keys, made now. */
  private handle(
    id: number,
    externalRequestId: string,
    hit: number,
    total: number,
    l2: number[],
    generation: number,
  ): PrefetchHandle {
    return new PrefetchHandle(
      id,
      externalRequestId,
      positions(0, hit),
      hit,
      total,
      this.scheduler.now(),
      l2,
      generation,
    )
  }

  readPrefetchedResults(keys: ObjectKey[]): ReadContext {
    let ready = false
    let good: ObjectKey[] = []
    const qualname = `${SM}.read_prefetched_results`
    return {
      enter: () => {
        if (isTracingEnabled()) publishCallEvent(`${qualname}.__enter__`, {keys})
        this.readContexts.entered++
        const r = this.l1.unsafeRead(keys)
        ready = r.every((code) => code === 'SUCCESS')
        if (!ready) {
          good = keys.filter((_, i) => r[i] === 'SUCCESS')
          this.readContexts.not_ready++
        }
      },
      exit: () => {
        try {
          if (!ready) this.l1.finishRead(good, 0)
          this.readContexts.exited++
        } finally {
          if (isTracingEnabled()) publishCallEvent(`${qualname}.__exit__`, {keys})
        }
      },
    }
  }

  finishReadPrefetched(keys: ObjectKey[], extraCount: number): void {
    this.l1.finishRead(keys, extraCount)
  }

  /** Canonical state for the round trip (§6.15) and its SHA-256. */
  snapshot(): {state: unknown; digest: string} {
    const now = this.scheduler.now()
    const lockState = (l: {count: number; expiry: number; expired(n: number): boolean}) =>
      l.count > 0 && !l.expired(now) ? {count: l.count, expiry: l.expiry} : {count: 0, expiry: null}
    // the map's keys are the entries' ids: sorted without a getter call per comparison
    const entries = [...this.l1.entries]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, e]) => {
        const w = lockState(e.writeLock)
        const r = lockState(e.readLock)
        return {
          id: e.key.id,
          offset: e.block.offset,
          alignedSize: e.block.size,
          rawSize: e.rawSize,
          temporary: e.temporary,
          writePending: e.writePending,
          writeCount: w.count,
          writeExpiry: w.expiry,
          readCount: r.count,
          readExpiry: r.expiry,
        }
      })
    const state = {
      now,
      l1: entries,
      free: this.l1.allocator.free.map((b) => [b.offset, b.size]),
      lru: this.policy.order(),
      l2: this.adapters.map((a) => ({
        fifo: a.fifo.map((id) => [id, a.objects.get(id) ?? 0]),
        locks: [...a.locks].sort(),
      })),
    }
    return {
      state,
      digest: createHash('sha256')
        .update(pyJsonDumps(state as never, {sortKeys: true}), 'utf8')
        .digest('hex'),
    }
  }
}

installTracing(StorageManagerModel.prototype, SM, {
  reserveWrite: {method: 'reserve_write', params: ['keys', 'layout_desc', 'mode']},
  finishWrite: {method: 'finish_write', params: ['keys']},
  abortWrite: {method: 'abort_write', params: ['keys']},
  submitPrefetchTask: {
    method: 'submit_prefetch_task',
    params: [
      'keys',
      'layout_desc',
      {name: 'extra_count', default: 0},
      {name: 'external_request_id', default: ''},
    ],
  },
  submitPrefetchTaskSpec: {
    method: 'submit_prefetch_task',
    params: ['spec', {name: 'external_request_id', default: ''}, {name: 'skip_l2', default: false}],
  },
  finishReadPrefetched: {
    method: 'finish_read_prefetched',
    params: ['keys', {name: 'extra_count', default: 0}],
  },
})
