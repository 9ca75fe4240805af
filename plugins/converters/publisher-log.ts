import {
  BaseConverter,
  JsonFloat,
  pythonEquals,
  pythonHashKey,
  pythonInt,
  pythonTruthy,
} from '../../src/index.js'
import type {InputContext, InputLine, JsonObject, Trace} from '../../src/index.js'
import {parseRow} from './_shared/rows.js'

const FLUSH_DELAY_NS = 100_000_000n // an unfinished write is assumed done 100 ms after its start

interface PendingGet {
  seq: number
  instance: string
  ts: bigint
  keys: unknown[]
  inputLen: bigint
  queryType: unknown
  blockMask: unknown
  swSize: unknown
  locationSpecNames: unknown
  bucket: PendingGet[]
}

interface PendingWrite {
  instance: string
  ts: bigint
  keys: unknown[]
  startLine: InputLine
}

/** `trigger_time_us` → ns: integers exact, floats truncated toward zero first, integer strings accepted. */
function triggerTimeNs(value: unknown): bigint | undefined {
  if (value === undefined) return 0n
  if (typeof value === 'string') {
    const n = pythonInt(value)
    return n === undefined ? undefined : n * 1000n
  }
  if (value instanceof JsonFloat && !Number.isFinite(value.value)) return undefined
  if (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean' ||
    value instanceof JsonFloat
  ) {
    return (pythonInt(value) as bigint) * 1000n
  }
  return undefined
}

function keysEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  return pythonEquals(a, b)
}

/** The pending gets of one input, indexed per instance by first key so that matching does not scan them all. */
class PendingGets {
  private seq = 0
  /** instance → first-key hash → gets with ≥ 2 keys, oldest first */
  private readonly byFirstKey = new Map<string, Map<string, PendingGet[]>>()
  /** instance → gets with one key (they match any write), oldest first */
  private readonly oneKey = new Map<string, PendingGet[]>()
  /** instance → gets whose first key is unhashable (array/object), oldest first */
  private readonly unhashable = new Map<string, PendingGet[]>()
  /** gets with no keys never match; kept only for the final flush */
  private readonly keyless: PendingGet[] = []

  add(get: Omit<PendingGet, 'seq' | 'bucket'>): void {
    let bucket: PendingGet[]
    if (get.keys.length === 0) bucket = this.keyless
    else if (get.keys.length === 1) bucket = listOf(this.oneKey, get.instance)
    else {
      const h = pythonHashKey(get.keys[0])
      if (h === undefined) bucket = listOf(this.unhashable, get.instance)
      else {
        let m = this.byFirstKey.get(get.instance)
        if (!m) this.byFirstKey.set(get.instance, (m = new Map()))
        bucket = listOf(m, h)
      }
    }
    bucket.push({...get, seq: this.seq++, bucket})
  }

  /** Removes and returns the most recently added get that matches the write, if any. */
  takeMatch(instance: string, ts: bigint, writeKeys: unknown[]): PendingGet | undefined {
    const candidates: Array<PendingGet[] | undefined> = [
      this.oneKey.get(instance),
      this.unhashable.get(instance),
    ]
    if (writeKeys.length > 0) {
      const h = pythonHashKey(writeKeys[0])
      if (h !== undefined) candidates.push(this.byFirstKey.get(instance)?.get(h))
    }
    let best: PendingGet | undefined
    let bestIndex = -1
    for (const list of candidates) {
      if (!list) continue
      for (let i = list.length - 1; i >= 0; i--) {
        const g = list[i]
        if (best && g.seq < best.seq) break
        if (g.ts > ts || !prefixMatches(g.keys, writeKeys)) continue
        best = g
        bestIndex = i
        break
      }
    }
    if (best) best.bucket.splice(bestIndex, 1)
    return best
  }

  /** Every remaining get in the order it was added; empties the index. */
  drain(): PendingGet[] {
    const all: PendingGet[] = [...this.keyless]
    for (const l of this.oneKey.values()) all.push(...l)
    for (const l of this.unhashable.values()) all.push(...l)
    for (const m of this.byFirstKey.values()) for (const l of m.values()) all.push(...l)
    this.keyless.length = 0
    this.oneKey.clear()
    this.unhashable.clear()
    this.byFirstKey.clear()
    return all.sort((a, b) => a.seq - b.seq)
  }
}

function listOf<K>(map: Map<K, PendingGet[]>, key: K): PendingGet[] {
  let l = map.get(key)
  if (!l) map.set(key, (l = []))
  return l
}

/** All keys of the get but its last are a prefix of the write's keys. */
function prefixMatches(getKeys: unknown[], writeKeys: unknown[]): boolean {
  const m = getKeys.length - 1
  if (writeKeys.length < m) return false
  for (let i = 0; i < m; i++) if (!keysEqual(writeKeys[i], getKeys[i])) return false
  return true
}

/** Session ids that mean "no session" in the original (Python falsy scalars and empty containers). */
function sessionKey(value: unknown): {none: true} | {invalid: true} | {key: string} {
  if (value === undefined || !pythonTruthy(value)) return {none: true}
  const h = pythonHashKey(value)
  return h === undefined ? {invalid: true} : {key: h}
}

/**
 * The KVCM event-publisher log: GetCacheLocation events become gets, and a StartWriteCache/FinishWriteCache pair
 * becomes a write paired with the most recent earlier get whose keys (all but the last) prefix the written keys.
 */
export class PublisherLogConverter extends BaseConverter {
  static description = 'KVCM event-publisher log (GetCacheLocation / StartWriteCache / FinishWriteCache)'

  private readonly warnedFallback = new Set<string>()

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const gets = new PendingGets()
    const writes = new Map<string, PendingWrite>()
    for await (const line of ctx.lines()) {
      const event = parseRow(line, ctx)
      if (event === undefined) continue
      const type = event.get('type')
      if (type === 'GetCacheLocation') this.onGet(event, line, ctx, gets)
      else if (type === 'StartWriteCache') this.onStart(event, line, ctx, writes)
      else if (type === 'FinishWriteCache') yield* this.onFinish(event, line, ctx, gets, writes)
      else if (type === 'StartWriteCacheWithMinReplica') ctx.drop(line, 'min_replica_event')
      else ctx.drop(line, 'unknown_event_type')
    }
    // end of input: unfinished writes (assumed done 100 ms after their start), then gets never written
    for (const w of writes.values()) {
      const ts = w.ts + FLUSH_DELAY_NS
      const get = gets.takeMatch(w.instance, ts, w.keys)
      if (get) yield* this.emitPair(get, ts)
      else yield this.createWriteTrace(ts, w.keys, w.instance)
      ctx.converted(w.startLine)
    }
    writes.clear()
    for (const g of gets.drain()) yield this.emitGet(g)
  }

  private source(event: JsonObject, line: InputLine, ctx: InputContext): string | undefined {
    if (!event.has('source')) return this.defaultInstanceId
    const s = event.get('source')
    if (typeof s === 'string') return s
    ctx.skip(line, 'invalid_source', 'source is not a string')
    return undefined
  }

  private time(event: JsonObject, line: InputLine, ctx: InputContext): bigint | undefined {
    const ts = triggerTimeNs(event.get('trigger_time_us'))
    if (ts === undefined)
      ctx.skip(line, 'invalid_trigger_time', 'trigger_time_us is not an integer or a finite number')
    return ts
  }

  private keys(event: JsonObject, line: InputLine, ctx: InputContext): unknown[] | undefined {
    const keys = event.has('keys') ? event.get('keys') : []
    if (Array.isArray(keys)) return keys
    ctx.skip(line, 'invalid_keys', 'keys is not an array')
    return undefined
  }

  private onGet(event: JsonObject, line: InputLine, ctx: InputContext, gets: PendingGets): void {
    const instance = this.source(event, line, ctx)
    if (instance === undefined) return
    this.registerInstance(instance)
    const ts = this.time(event, line, ctx)
    if (ts === undefined) return
    const keys = this.keys(event, line, ctx)
    if (keys === undefined) return
    const inputLen = this.inputLen(event, line, ctx, instance, keys)
    if (inputLen === undefined) return
    gets.add({
      instance,
      ts,
      keys,
      inputLen,
      queryType: event.get('query_type'),
      blockMask: event.get('block_mask'),
      swSize: event.get('sw_size'),
      locationSpecNames: event.get('location_spec_names'),
    })
    ctx.converted(line) // every accepted get is emitted, paired or alone
  }

  private inputLen(
    event: JsonObject,
    line: InputLine,
    ctx: InputContext,
    instance: string,
    keys: unknown[],
  ): bigint | undefined {
    for (const field of ['input_len', 'input_length', 'input_tokens']) {
      if (!event.has(field)) continue
      const n = pythonInt(event.get(field))
      if (n === undefined) {
        ctx.skip(line, 'invalid_input_length', `${field} is not an integer`)
        return undefined
      }
      if (n <= 0n) {
        ctx.skip(line, 'nonpositive_input_length', `${field} must be positive (got ${n})`)
        return undefined
      }
      return n
    }
    const tokens = event.get('tokens')
    if (pythonTruthy(tokens)) {
      if (Array.isArray(tokens)) return BigInt(tokens.length)
      if (typeof tokens === 'string') return BigInt([...tokens].length)
      if (tokens instanceof Map) return BigInt(tokens.size)
      ctx.skip(line, 'invalid_tokens', 'tokens is not a list')
      return undefined
    }
    if (keys.length > 0) {
      const bs = this.getBlockSize(instance)
      if (!this.warnedFallback.has(instance)) {
        this.warnedFallback.add(instance)
        ctx.warnLine(
          line,
          'input_len_from_keys',
          `GetCacheLocation for instance ${instance} has no input_len; using len(keys) * block_size (${bs}); ` +
            'token hit rates may overestimate prompts with partial tail blocks',
        )
      }
      ctx.note('input_len_from_keys')
      return BigInt(keys.length) * BigInt(bs)
    }
    ctx.skip(
      line,
      'missing_input_length',
      'GetCacheLocation has no input_len, input_length, input_tokens, tokens or keys',
    )
    return undefined
  }

  private onStart(
    event: JsonObject,
    line: InputLine,
    ctx: InputContext,
    writes: Map<string, PendingWrite>,
  ): void {
    const instance = this.source(event, line, ctx)
    if (instance === undefined) return
    this.registerInstance(instance)
    const ts = this.time(event, line, ctx)
    if (ts === undefined) return
    const keys = this.keys(event, line, ctx)
    if (keys === undefined) return
    const session = sessionKey(event.get('write_session_id'))
    if ('none' in session) return ctx.drop(line, 'start_without_session')
    if ('invalid' in session)
      return ctx.skip(line, 'invalid_write_session_id', 'write_session_id is not a string or number')
    const mapKey = `${instance}\u0000${session.key}`
    const previous = writes.get(mapKey)
    if (previous) ctx.drop(previous.startLine, 'start_superseded')
    writes.set(mapKey, {instance, ts, keys, startLine: {lineNo: line.lineNo, text: ''}})
  }

  private *onFinish(
    event: JsonObject,
    line: InputLine,
    ctx: InputContext,
    gets: PendingGets,
    writes: Map<string, PendingWrite>,
  ): Generator<Trace> {
    const instance = this.source(event, line, ctx)
    if (instance === undefined) return
    const session = sessionKey(event.get('write_session_id'))
    if ('none' in session) return ctx.drop(line, 'finish_without_session')
    if ('invalid' in session)
      return ctx.skip(line, 'invalid_write_session_id', 'write_session_id is not a string or number')
    const mapKey = `${instance}\u0000${session.key}`
    const write = writes.get(mapKey)
    if (!write) return ctx.drop(line, 'finish_unknown_session')
    writes.delete(mapKey)
    const ts = this.time(event, line, ctx)
    if (ts === undefined) return ctx.drop(write.startLine, 'finish_invalid')
    const get = gets.takeMatch(instance, ts, write.keys)
    if (!get) {
      ctx.drop(write.startLine, 'write_unmatched')
      ctx.drop(line, 'write_unmatched')
      return
    }
    yield* this.emitPair(get, ts)
    ctx.converted(write.startLine)
    ctx.converted(line)
  }

  private emitGet(g: PendingGet) {
    return this.createGetTrace(g.ts, g.keys, g.instance, {
      inputLen: g.inputLen,
      queryType: g.queryType,
      blockMask: g.blockMask,
      swSize: g.swSize,
      locationSpecNames: g.locationSpecNames,
    })
  }

  /** The get, then the write at `ts` carrying the get's truncated keys (not the StartWriteCache keys). */
  private *emitPair(g: PendingGet, ts: bigint): Generator<Trace> {
    const get = this.emitGet(g)
    yield get
    yield this.createWriteTrace(ts, get.keys, g.instance)
  }
}
