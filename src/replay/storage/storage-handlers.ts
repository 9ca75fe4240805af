// The storage level's handlers (docs/storage-replay.md §5): each recorded StorageManager call, its arguments checked
// as Python would check them, reissued on the model; read contexts paired enter-to-exit per key tuple.
import type {DecodedArgs} from '../../formats/lct/codecs.js'
import {
  keyTupleId,
  MemoryLayoutDesc,
  ObjectKey,
  PrefetchRequestSpec,
  PyTuple,
} from '../../formats/lct/values.js'
import {type Handler, MapDispatcher, type ReplayContext, type ReplayEnv} from '../level.js'
import {type ReadContext, SM, type StorageManagerModel} from './model.js'
import {ReadContextQueues} from './read-context-queues.js'

/** The storage level's target: the model, the run's environment, and the locks left at the end (finalize). */
export interface StorageTarget {
  model: StorageManagerModel
  env: ReplayEnv
  final?: {writeLocked: number; readLocked: number; temporary: number}
}

type StorageHandler = Handler<StorageTarget>

// ------------------------------------------------------------------------------------------ argument adapters

function checkNames(
  method: string,
  args: DecodedArgs,
  allowed: readonly string[],
  required: readonly string[],
): void {
  // for…in: no array of names per call (decoded args are null-prototype, so nothing is inherited)
  for (const k in args)
    if (!allowed.includes(k)) throw new TypeError(`${method}() got an unexpected argument '${k}'`)
  for (const k of required)
    if (!(k in args)) throw new TypeError(`${method}() missing required argument '${k}'`)
}

function keysOf(method: string, v: unknown): ObjectKey[] {
  const list = v instanceof PyTuple ? v.items : v
  let ok = Array.isArray(list)
  for (let i = 0; ok && i < (list as unknown[]).length; i++) ok = (list as unknown[])[i] instanceof ObjectKey
  if (!ok) throw new TypeError(`${method}() argument 'keys' must be a list of ObjectKey`)
  return list as ObjectKey[]
}

function layoutOf(method: string, v: unknown): MemoryLayoutDesc {
  if (!(v instanceof MemoryLayoutDesc))
    throw new TypeError(`${method}() argument 'layout_desc' must be a MemoryLayoutDesc`)
  return v
}

function intOf(method: string, name: string, v: unknown): number {
  if (typeof v === 'bigint') return Number(v)
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new TypeError(`${method}() argument '${name}' must be an integer`)
  return v
}

function strOf(method: string, name: string, v: unknown): string {
  if (typeof v !== 'string') throw new TypeError(`${method}() argument '${name}' must be a string`)
  return v
}

// ------------------------------------------------------------------------------------------ writes

const reserveWrite: StorageHandler = ({target}, a) => {
  const m = 'reserve_write'
  checkNames(m, a, ['keys', 'layout_desc', 'mode'], ['keys', 'layout_desc'])
  const keys = keysOf(m, a.keys)
  const layout = layoutOf(m, a.layout_desc)
  const mode = 'mode' in a ? strOf(m, 'mode', a.mode) : 'all'
  target.model.reserveWrite(keys, layout, mode)
}

const finishWrite: StorageHandler = ({target}, a) => {
  checkNames('finish_write', a, ['keys'], ['keys'])
  target.model.finishWrite(keysOf('finish_write', a.keys))
}

const abortWrite: StorageHandler = ({target}, a) => {
  checkNames('abort_write', a, ['keys'], ['keys'])
  target.model.abortWrite(keysOf('abort_write', a.keys))
}

// ------------------------------------------------------------------------------------------ prefetches

/** `submit_prefetch_task`: the newer spec form, or the design-era keys and layout (§5.2). */
const submitPrefetchTask: StorageHandler = ({target}, a) => {
  const m = 'submit_prefetch_task'
  if ('spec' in a) {
    checkNames(m, a, ['spec', 'external_request_id', 'skip_l2'], ['spec'])
    if (!(a.spec instanceof PrefetchRequestSpec))
      throw new TypeError(`${m}() argument 'spec' must be a PrefetchRequestSpec`)
    const ext = 'external_request_id' in a ? strOf(m, 'external_request_id', a.external_request_id) : ''
    if ('skip_l2' in a && typeof a.skip_l2 !== 'boolean')
      throw new TypeError(`${m}() argument 'skip_l2' must be a bool`)
    target.model.submitPrefetchTaskSpec(a.spec, ext, (a.skip_l2 as boolean | undefined) ?? false)
    return
  }
  checkNames(m, a, ['keys', 'layout_desc', 'extra_count', 'external_request_id'], ['keys', 'layout_desc'])
  const keys = keysOf(m, a.keys)
  const layout = layoutOf(m, a.layout_desc)
  const extra = 'extra_count' in a ? intOf(m, 'extra_count', a.extra_count) : 0
  const ext = 'external_request_id' in a ? strOf(m, 'external_request_id', a.external_request_id) : ''
  target.model.submitPrefetchTask(keys, layout, extra, ext)
}

/** `finish_read_prefetched`: the extra reads from `extra_count`, `shares − 1` or `read_locks − 1` (§5.2). */
const finishReadPrefetched: StorageHandler = ({target}, a) => {
  const m = 'finish_read_prefetched'
  checkNames(m, a, ['keys', 'extra_count', 'shares', 'read_locks'], ['keys'])
  for (const other of ['shares', 'read_locks'])
    if ('extra_count' in a && other in a) throw new TypeError(`${m}() got both 'extra_count' and '${other}'`)
  if ('shares' in a && 'read_locks' in a)
    throw new TypeError(`${m}() got an unexpected argument 'read_locks'`)
  const keys = keysOf(m, a.keys)
  let extra = 0
  if ('extra_count' in a) extra = intOf(m, 'extra_count', a.extra_count)
  else if ('shares' in a) extra = intOf(m, 'shares', a.shares) - 1
  else if ('read_locks' in a) extra = intOf(m, 'read_locks', a.read_locks) - 1
  target.model.finishReadPrefetched(keys, extra)
}

// ------------------------------------------------------------------------------------------ read contexts (§5.3)

const CONTEXTS = 'read_contexts'

/** The open read contexts of the run, queued per key tuple in order of entry. */
function contexts(ctx: ReplayContext<StorageTarget>): ReadContextQueues<ReadContext> {
  let m = ctx.scratch.get(CONTEXTS) as ReadContextQueues<ReadContext> | undefined
  if (!m) ctx.scratch.set(CONTEXTS, (m = new ReadContextQueues()))
  return m
}

const enterReadContext: StorageHandler = (ctx, a) => {
  checkNames('read_prefetched_results', a, ['keys'], ['keys'])
  const keys = keysOf('read_prefetched_results', a.keys)
  const c = ctx.target.model.readPrefetchedResults(keys)
  c.enter()
  contexts(ctx).push(keys, c)
}

/** Exits the oldest open context of the key tuple; with none open, a warning (the record is still OK). */
const exitReadContext: StorageHandler = (ctx, a) => {
  checkNames('read_prefetched_results', a, ['keys'], ['keys'])
  const keys = keysOf('read_prefetched_results', a.keys)
  const c = contexts(ctx).shift(keys)
  if (!c) {
    ctx.target.model.readContexts.unmatched_exits++
    ctx.env.warn(
      'unmatched_exit',
      keyTupleId(keys),
      `read_prefetched_results.__exit__ with no matching __enter__ (keys=${keys.length}); ignoring`,
    )
    return
  }
  c.exit()
}

/** At the end of the trace: every context still open is exited, queues in order of their first enter. */
export function exitOpenReadContexts(ctx: ReplayContext<StorageTarget>): void {
  for (const q of contexts(ctx).queues()) {
    for (const c of q) {
      try {
        c.exit()
      } catch (err) {
        ctx.env.warn(
          'final_sweep',
          String(err),
          `closing a read context at the end of the trace failed: ${(err as Error).message}`,
        )
      }
      ctx.target.model.readContexts.closed_by_final_sweep++
    }
  }
  contexts(ctx).clear()
}

// ------------------------------------------------------------------------------------------ the dispatcher

/** The handled StorageManager methods (§5.1), by qualname; every other call is skipped as having no handler. */
export function buildStorageDispatcher(): MapDispatcher<StorageTarget> {
  const d = new MapDispatcher<StorageTarget>()
  d.register(`${SM}.reserve_write`, reserveWrite)
  d.register(`${SM}.finish_write`, finishWrite)
  d.register(`${SM}.abort_write`, abortWrite)
  d.register(`${SM}.submit_prefetch_task`, submitPrefetchTask)
  d.register(`${SM}.finish_read_prefetched`, finishReadPrefetched)
  d.register(`${SM}.read_prefetched_results.__enter__`, enterReadContext)
  d.register(`${SM}.read_prefetched_results.__exit__`, exitReadContext)
  return d
}
