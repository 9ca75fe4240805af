// Store and prefetch controllers: the threads of LMCache's StorageManager as scheduler events (§6.10, §6.11).
import {type MemoryLayoutDesc, type ObjectKey, PrefetchMode, TrimPolicy} from '../../formats/lct/values.js'
import type {Scheduler} from '../scheduler.js'
import type {L1, L1Listener} from './l1.js'
import type {MockL2} from './mock-l2.js'

export class StoreController implements L1Listener {
  private pending: ObjectKey[] = []
  private scheduled = false

  constructor(
    private readonly l1: L1,
    private readonly adapters: MockL2[],
    private readonly scheduler: Scheduler,
  ) {}

  writeFinished(keys: ObjectKey[]): void {
    for (const k of keys) this.pending.push(k) // not spread: a batch may hold more keys than a call takes arguments
    if (this.scheduled) return
    this.scheduled = true
    this.scheduler.after(0, 'store_step', () => this.step())
  }

  private step(): void {
    this.scheduled = false
    const keys = this.pending
    this.pending = []
    for (const adapter of this.adapters) {
      const r = this.l1.reserveRead(keys, 0)
      const ok = keys.filter((_, i) => r[i] === 'SUCCESS')
      if (ok.length === 0) continue
      const sizes = ok.map((k) => this.l1.entryOf(k)?.rawSize ?? 0)
      adapter.submitStore(ok, sizes, () => {
        this.l1.finishRead(ok, 0)
      })
    }
  }
}

interface Request {
  keys: ObjectKey[]
  layouts: ReadonlyMap<number, MemoryLayoutDesc>
  extra: number
  policy: TrimPolicy
  mode: PrefetchMode
}

/** The positions kept by a trim policy: PREFIX keeps the leading run, every other policy all. */
function trim(policy: TrimPolicy, n: number, present: (i: number) => boolean): number[] {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    if (present(i)) out.push(i)
    else if (policy === TrimPolicy.PREFIX) break
  }
  return out
}

export class PrefetchController {
  readonly counters = {
    requests: 0,
    max_pending: 0,
    l2_prefix_hit_keys: 0,
    loaded_keys: 0,
    failed_keys: 0,
    oom_keys: 0,
  }
  private nextId = 0
  private inFlight = 0
  private readonly queue: Request[] = []
  private startScheduled = false

  constructor(
    private readonly l1: L1,
    private readonly adapters: MockL2[],
    private readonly scheduler: Scheduler,
    private readonly maxInFlight: number,
    private readonly onApproximation: (name: string) => void,
  ) {}

  submit(
    keys: ObjectKey[],
    layouts: ReadonlyMap<number, MemoryLayoutDesc>,
    extra: number,
    policy: TrimPolicy,
    mode: PrefetchMode,
  ): number {
    const id = this.nextId++
    this.counters.requests++
    this.queue.push({keys, layouts, extra, policy, mode})
    if (this.queue.length > this.counters.max_pending) this.counters.max_pending = this.queue.length
    if (!this.startScheduled) {
      this.startScheduled = true
      this.scheduler.after(0, 'prefetch_start', () => this.start())
    }
    return id
  }

  private start(): void {
    this.startScheduled = false
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      this.inFlight++
      this.lookup(this.queue.shift() as Request)
    }
  }

  private complete(): void {
    this.inFlight--
    this.start()
  }

  private lookup(req: Request): void {
    const found: boolean[][] = new Array(this.adapters.length)
    let waiting = this.adapters.length
    this.adapters.forEach((a, ai) =>
      a.submitLookupAndLock(req.keys, (f) => {
        found[ai] = f
        if (--waiting === 0) this.plan(req, found)
      }),
    )
  }

  /** With the adapters' lookups in: which adapter serves each key, what L1 can take, then the loads. */
  private plan(req: Request, found: boolean[][]): void {
    const n = req.keys.length
    const plan: number[] = req.keys.map((_, i) => found.findIndex((f) => f[i]))
    const unlockLookups = (keep: (ai: number, i: number) => boolean) =>
      this.adapters.forEach((a, ai) =>
        a.submitUnlock(req.keys.filter((_, i) => found[ai][i] && !keep(ai, i))),
      )
    let retained = trim(req.policy, n, (i) => plan[i] >= 0)
    if (retained.length === 0) {
      unlockLookups(() => false)
      return this.complete()
    }
    const reserved = this.reserveInL1(req, retained)
    retained = trim(req.policy, n, (i) => reserved.has(i) && plan[i] >= 0)
    const inPlan = new Set(retained)
    unlockLookups((ai, i) => inPlan.has(i) && plan[i] === ai)
    const reservedKeys = [...reserved].sort((a, b) => a - b).map((i) => req.keys[i])
    if (retained.length === 0) {
      this.l1.finishWrite(reservedKeys)
      this.l1.delete(reservedKeys)
      return this.complete()
    }
    this.counters.l2_prefix_hit_keys += trim(TrimPolicy.PREFIX, n, (i) => inPlan.has(i)).length
    this.load(
      req,
      reserved,
      this.adapters.map((_, ai) => retained.filter((i) => plan[i] === ai)),
    )
  }

  /** Reserves the retained keys in L1, per object group (ascending), temporary unless WARM; the positions reserved. */
  private reserveInL1(req: Request, retained: number[]): Set<number> {
    const temporary = req.mode !== PrefetchMode.WARM
    const reserved = new Set<number>()
    const byGroup = new Map<number, number[]>()
    for (const i of retained) {
      const g = req.layouts.size === 1 ? -1 : req.keys[i].objectGroupId
      let list = byGroup.get(g)
      if (!list) byGroup.set(g, (list = []))
      list.push(i)
    }
    if (byGroup.size > 1) this.onApproximation('multi_group_layouts')
    for (const g of [...byGroup.keys()].sort((a, b) => a - b)) {
      const idx = byGroup.get(g) as number[]
      const layout = g === -1 ? [...req.layouts.values()][0] : (req.layouts.get(g) as MemoryLayoutDesc)
      const keys = idx.map((i) => req.keys[i])
      const r = this.l1.reserveWrite(
        keys,
        keys.map(() => temporary),
        layout,
        'new',
      )
      idx.forEach((i, j) => {
        const code = r[j]
        if (code === 'SUCCESS') reserved.add(i)
        else if (code === 'OUT_OF_MEMORY') this.counters.oom_keys++
      })
    }
    return reserved
  }

  /** Loads each adapter's share of the keys (positions `perAdapter[ai]`); when all are in, {@link finishLoads}. */
  private load(req: Request, reserved: Set<number>, perAdapter: number[][]): void {
    const loaded = new Set<number>()
    let waiting = 0
    this.adapters.forEach((a, ai) => {
      const idx = perAdapter[ai]
      if (idx.length === 0) return
      waiting++
      a.submitLoad(
        idx.map((i) => req.keys[i]),
        (bits) => {
          idx.forEach((i, j) => bits[j] && loaded.add(i))
          if (--waiting === 0) this.finishLoads(req, reserved, loaded, perAdapter)
        },
      )
    })
  }

  /** The loads done: adapters unlocked, loaded keys readable (read-locked unless WARM), the rest deleted. */
  private finishLoads(
    req: Request,
    reserved: Set<number>,
    loaded: Set<number>,
    perAdapter: number[][],
  ): void {
    const n = req.keys.length
    this.adapters.forEach((a, ai) => a.submitUnlock(perAdapter[ai].map((i) => req.keys[i])))
    const loadedIdx = [...loaded].sort((a, b) => a - b)
    const loadedKeys = loadedIdx.map((i) => req.keys[i])
    const failed = [...reserved]
      .filter((i) => !loaded.has(i))
      .sort((a, b) => a - b)
      .map((i) => req.keys[i])
    if (req.mode === PrefetchMode.WARM) this.l1.finishWrite(loadedKeys)
    else this.l1.finishWriteAndReserveRead(loadedKeys, req.extra)
    if (failed.length > 0) {
      this.l1.finishWrite(failed)
      this.l1.delete(failed)
    }
    const kept = new Set(trim(req.policy, n, (i) => loaded.has(i)))
    const outside = loadedIdx.filter((i) => !kept.has(i)).map((i) => req.keys[i])
    if (outside.length > 0 && req.mode !== PrefetchMode.WARM) this.l1.finishRead(outside, req.extra)
    this.counters.loaded_keys += loadedKeys.length
    this.counters.failed_keys += failed.length
    this.complete()
  }
}
