import {
  BaseConverter,
  collectGarbage,
  holdYoungGeneration,
  KeyList,
  pythonEquals,
  pythonHashKey,
} from '../../src/index.js'
import {type EncodedTraceSource, encodedTraceSource, TraceBatch} from '../../src/scan.js'
import type {FormatSample, InputContext, InputLine, Trace} from '../../src/index.js'
import {looksLikePublisherLog} from './_shared/format-samples.js'
import type {FinishEvent, GetEvent, PublisherEventConfig, StartEvent} from './_shared/publisher-events.js'
import {type PublisherBatch, publisherEventBatches} from './_shared/publisher-input.js'
import {AgedKeys, type Keys, type LoadedKeys} from './_shared/publisher-aged-keys.js'
import {SpilledKeys} from './_shared/publisher-key-spill.js'
import {PrefixHashes} from './_shared/publisher-prefix-hash.js'

const FLUSH_DELAY_NS = 100_000_000n // an unfinished write is assumed done 100 ms after its start
/**
 * Batches (of 512 lines) and, at the end of the input, pending events emitted between two full collections. A
 * batch's key slabs come from the worker and are freed only when this thread's collector finds them dead, which V8
 * does at some 64 MB of them; as do the keys read back from the spill file. A collection of this heap takes ~10 ms.
 */
const BATCHES_PER_COLLECTION = 64
const FLUSHED_PER_COLLECTION = 8192
/** pending events flushed at the end of the input handed over together (a divisor of FLUSHED_PER_COLLECTION) */
const FLUSH_BATCH = 512

interface PendingGet {
  seq: number
  instance: string
  ts: bigint
  keys: Keys
  inputLen: bigint
  queryType: unknown
  blockMask: unknown
  swSize: unknown
  locationSpecNames: unknown
  bucket: PendingGet[]
  /** the first-key index holding `bucket`, and its key there (the bucket leaves the index once empty) */
  index: Map<string, PendingGet[]> | undefined
  indexKey: string
  /** still waiting (false once matched, or once its write session ended) */
  live: boolean
}

interface PendingWrite {
  instance: string
  ts: bigint
  keys: Keys
  startLine: InputLine
  live: boolean
}

function keysEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b
  return pythonEquals(a, b)
}

function keyAt(keys: LoadedKeys, i: number): unknown {
  return keys instanceof KeyList ? keys.at(i) : keys[i]
}

/** The pending gets of one input, indexed per instance by first key so that matching does not scan them all. */
class PendingGets {
  private seq = 0
  /** the prefix hashes of the write being matched, reset to it when a spilled get is first met (see PrefixHashes) */
  private readonly writeHashes = new PrefixHashes()
  private writeHashed = false

  constructor(private readonly aged: AgedKeys) {}

  /** instance → first-key hash → gets with ≥ 2 keys, oldest first */
  private readonly byFirstKey = new Map<string, Map<string, PendingGet[]>>()
  /** instance → gets with one key (they match any write), oldest first */
  private readonly oneKey = new Map<string, PendingGet[]>()
  /** instance → gets whose first key is unhashable (array/object), oldest first */
  private readonly unhashable = new Map<string, PendingGet[]>()
  /** gets with no keys never match; kept only for the final flush */
  private readonly keyless: PendingGet[] = []

  /** A get whose keys are in memory (it has just been read). */
  add(
    get: Omit<PendingGet, 'seq' | 'bucket' | 'index' | 'indexKey' | 'live'> & {keys: LoadedKeys},
  ): PendingGet {
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
    }
    return pending
  }

  /** Removes and returns the most recently added get that matches the write, if any. */
  takeMatch(instance: string, ts: bigint, writeKeys: LoadedKeys): PendingGet | undefined {
    this.writeHashed = false
    const candidates: Array<PendingGet[] | undefined> = [
      this.oneKey.get(instance),
      this.unhashable.get(instance),
    ]
    if (writeKeys.length > 0) {
      const h = pythonHashKey(keyAt(writeKeys, 0))
      if (h !== undefined) candidates.push(this.byFirstKey.get(instance)?.get(h))
    }
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
    if (best) {
      best.live = false
      best.bucket.splice(bestIndex, 1)
      // an emptied first-key bucket leaves its index: memory follows the pending gets, not the keys ever seen
      if (best.bucket.length === 0 && best.index !== undefined) best.index.delete(best.indexKey)
    }
    if (this.writeHashed) this.writeHashes.release() // it held a view of the write's keys
    return best
  }

  /** All keys of the get but its last are a prefix of the write's keys (spilled keys read back only if needed). */
  private prefixMatches(getKeys: Keys, writeKeys: LoadedKeys): boolean {
    const m = getKeys.length - 1
    if (writeKeys.length < m) return false
    if (m <= 0) return true
    if (getKeys instanceof SpilledKeys && writeKeys instanceof KeyList) {
      // a differing prefix is rejected without reading the get's keys back
      if (!this.writeHashed) this.writeHashes.reset(writeKeys)
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

  /** Every remaining get in the order it was added; empties the index. */
  drain(): PendingGet[] {
    const all: PendingGet[] = [...this.keyless]
    // element by element: a spread of a long list as call arguments overflows the stack
    const take = (l: PendingGet[]) => {
      for (const g of l) all.push(g)
    }
    for (const l of this.oneKey.values()) take(l)
    for (const l of this.unhashable.values()) take(l)
    for (const m of this.byFirstKey.values()) for (const l of m.values()) take(l)
    this.keyless.length = 0
    this.oneKey.clear()
    this.unhashable.clear()
    this.byFirstKey.clear()
    return all.sort((a, b) => a.seq - b.seq)
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

/**
 * The KVCM event-publisher log: GetCacheLocation events become gets, and a StartWriteCache/FinishWriteCache pair
 * becomes a write paired with the most recent earlier get whose keys (all but the last) prefix the written keys.
 */
export class PublisherLogConverter extends BaseConverter {
  static description = 'KVCM event-publisher log (GetCacheLocation / StartWriteCache / FinishWriteCache)'

  static looksLike(sample: FormatSample): boolean {
    return looksLikePublisherLog(sample)
  }

  private readonly warnedFallback = new Set<string>()

  /** Its records are encoded as they come: one waiting to be sorted holds no batch's key slabs. */
  readonly encodesRecordsAtOnce = true
  /**
   * Its output turns unsorted at the end of the input (gets never written come last, at their own times): the
   * sorter then spills what it held and the rest in chunks of this many bytes, not 32 MiB of lines at a time.
   */
  readonly sortChunkBytes = 8 << 20

  /**
   * The traces: every batch's events paired at once, then what is still pending at the end of the input. The
   * framework takes each batch's traces together (`encodedTraceSource`: no async turn per trace, see
   * docs/performance-notes.md, publisher_log, seventh session); iterating the result gives the same traces one by one.
   */
  convertToTraces(_inputPath: string, ctx: InputContext): AsyncIterable<Trace> & EncodedTraceSource {
    const batches = () => this.traceBatches(ctx)
    return {
      async *[Symbol.asyncIterator]() {
        for await (const traces of batches()) yield* traces
      },
      async *[encodedTraceSource]() {
        for await (const traces of batches()) yield new TraceBatch(traces)
      },
    }
  }

  /** The input's traces, a batch of events' at a time. */
  private async *traceBatches(ctx: InputContext): AsyncGenerator<Trace[]> {
    const aged = new AgedKeys(this.options.spillDir)
    try {
      yield* this.convertEvents(ctx, aged)
    } finally {
      aged.close()
    }
  }

  /** The input's events paired, then what is still pending at its end. */
  private async *convertEvents(ctx: InputContext, aged: AgedKeys): AsyncGenerator<Trace[]> {
    const gets = new PendingGets(aged)
    const writes = new Map<string, PendingWrite>()
    const config: PublisherEventConfig = {
      defaultInstanceId: this.defaultInstanceId,
      blockSizes: [...this.instanceBlockSizes],
      defaultBlockSize: this.defaultBlockSize,
    }
    let batches = 0
    for await (const batch of publisherEventBatches(ctx, config)) {
      // the batches' worker runs by now (starting one resets V8's flags); the conversion run lets go at its end
      if (batches++ === 0) holdYoungGeneration()
      else if (batches % BATCHES_PER_COLLECTION === 0) collectGarbage()
      const out: Trace[] = []
      const {lines, events} = batch
      for (let i = 0; i < lines.count; i++) {
        const e = events[i]
        switch (e.k) {
          case 'skip':
          case 'drop':
            if (e.reg !== undefined) this.registerInstance(e.reg)
            if (e.k === 'skip') ctx.skip(lines.line(i), e.code, e.message)
            else ctx.drop(lines.line(i), e.code)
            break
          case 'get':
            aged.add(this.onGet(e, batch, i, ctx, gets))
            break
          case 'start':
            aged.add(this.onStart(e, batch, i, ctx, writes))
            break
          case 'finish':
            this.onFinish(e, lines.line(i), ctx, aged, gets, writes, out)
        }
      }
      aged.endBatch()
      if (out.length > 0) yield out
    }
    // end of input: unfinished writes (assumed done 100 ms after their start), then gets never written
    let flushed = 0
    let out: Trace[] = []
    for (const w of writes.values()) {
      if (flushed++ % FLUSH_BATCH === 0 && out.length > 0) {
        yield out
        out = []
        if (flushed > FLUSHED_PER_COLLECTION && flushed % FLUSHED_PER_COLLECTION === 1) collectGarbage()
      }
      const ts = w.ts + FLUSH_DELAY_NS
      const keys = aged.load(w.keys)
      const get = gets.takeMatch(w.instance, ts, keys)
      if (get) this.emitPair(get, ts, aged, out)
      else out.push(this.createWriteTrace(ts, keys, w.instance))
      ctx.converted(w.startLine)
    }
    writes.clear()
    for (const g of gets.drain()) {
      if (flushed++ % FLUSH_BATCH === 0 && out.length > 0) {
        yield out
        out = []
        if (flushed > FLUSHED_PER_COLLECTION && flushed % FLUSHED_PER_COLLECTION === 1) collectGarbage()
      }
      out.push(this.emitGet(g, aged))
    }
    if (out.length > 0) yield out
  }

  private onGet(
    e: GetEvent,
    batch: PublisherBatch,
    i: number,
    ctx: InputContext,
    gets: PendingGets,
  ): PendingGet {
    const {lines} = batch
    this.registerInstance(e.inst)
    if (e.fromKeys) {
      if (!this.warnedFallback.has(e.inst)) {
        this.warnedFallback.add(e.inst)
        ctx.warnLine(
          lines.line(i),
          'input_len_from_keys',
          `GetCacheLocation for instance ${e.inst} has no input_len; using len(keys) * block_size (${this.getBlockSize(e.inst)}); ` +
            'token hit rates may overestimate prompts with partial tail blocks',
        )
      }
      ctx.note('input_len_from_keys')
    }
    ctx.converted(lines.line(i)) // every accepted get is emitted, paired or alone
    return gets.add({
      instance: e.inst,
      ts: e.ts,
      keys: batch.keys(e.keys),
      inputLen: e.inputLen,
      queryType: batch.value(e.qt),
      blockMask: batch.value(e.bm),
      swSize: batch.value(e.sw),
      locationSpecNames: batch.value(e.ls),
    })
  }

  private onStart(
    e: StartEvent,
    batch: PublisherBatch,
    i: number,
    ctx: InputContext,
    writes: Map<string, PendingWrite>,
  ): PendingWrite {
    this.registerInstance(e.inst)
    const mapKey = `${e.inst}\u0000${e.session}`
    const previous = writes.get(mapKey)
    if (previous) {
      previous.live = false
      ctx.drop(previous.startLine, 'start_superseded')
    }
    const write: PendingWrite = {
      instance: e.inst,
      ts: e.ts,
      keys: batch.keys(e.keys),
      startLine: {lineNo: batch.lines.lineNos[i], text: ''},
      live: true,
    }
    writes.set(mapKey, write)
    return write
  }

  private onFinish(
    e: FinishEvent,
    line: InputLine,
    ctx: InputContext,
    aged: AgedKeys,
    gets: PendingGets,
    writes: Map<string, PendingWrite>,
    out: Trace[],
  ): void {
    const mapKey = `${e.inst}\u0000${e.session}`
    const write = writes.get(mapKey)
    if (!write) return ctx.drop(line, 'finish_unknown_session')
    writes.delete(mapKey)
    write.live = false
    if (e.ts === undefined) {
      ctx.skip(line, 'invalid_trigger_time', e.timeProblem as string)
      return ctx.drop(write.startLine, 'finish_invalid')
    }
    const get = gets.takeMatch(e.inst, e.ts, aged.load(write.keys))
    if (!get) {
      ctx.drop(write.startLine, 'write_unmatched')
      ctx.drop(line, 'write_unmatched')
      return
    }
    this.emitPair(get, e.ts, aged, out)
    ctx.converted(write.startLine)
    ctx.converted(line)
  }

  private emitGet(g: PendingGet, aged: AgedKeys) {
    return this.createGetTrace(g.ts, aged.load(g.keys), g.instance, {
      inputLen: g.inputLen,
      queryType: g.queryType,
      blockMask: g.blockMask,
      swSize: g.swSize,
      locationSpecNames: g.locationSpecNames,
    })
  }

  /** The get, then the write at `ts` carrying the get's truncated keys (not the StartWriteCache keys). */
  private emitPair(g: PendingGet, ts: bigint, aged: AgedKeys, out: Trace[]): void {
    const get = this.emitGet(g, aged)
    out.push(get)
    out.push(this.createWriteTrace(ts, get.keys, g.instance))
  }
}
