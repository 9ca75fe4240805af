import {BaseConverter, type FormatSample, type InputContext, type InputLine, type Trace} from 'lmt'
import {
  FINISH,
  FINISH_BAD_TIME,
  GET,
  GET_FROM_KEYS,
  PROBLEM,
  type PublisherEventConfig,
  START,
  TIME_PROBLEM,
} from './_lib/events.js'
import {type PublisherBatch, publisherEventBatches} from './_lib/input.js'
import {AgedKeys, type Keys} from './_lib/aged-keys.js'
import {type PendingGet, PendingGets, type WaitingGet} from './_lib/pending-gets.js'

const FLUSH_DELAY_NS = 100_000_000n // an unfinished write is assumed done 100 ms after its start
/** pending events flushed at the end of the input handed over together */
const FLUSH_BATCH = 512

interface PendingWrite {
  instance: string
  ts: bigint
  keys: Keys
  startLine: InputLine
  live: boolean
}

/** the event types of a publisher log: a line of one of them with a trigger time looks like one */
const PUBLISHER_EVENTS = new Set([
  'GetCacheLocation',
  'StartWriteCache',
  'FinishWriteCache',
  'StartWriteCacheWithMinReplica',
])

/**
 * The KVCM event-publisher log: GetCacheLocation events become gets, and a StartWriteCache/FinishWriteCache pair
 * becomes a write paired with the most recent earlier get whose keys (all but the last) prefix the written keys.
 */
export class PublisherLogConverter extends BaseConverter {
  static description = 'KVCM event-publisher log (GetCacheLocation / StartWriteCache / FinishWriteCache)'

  static looksLike(sample: FormatSample): boolean {
    const r = sample.record as Record<string, unknown> | null
    return (
      r !== null && typeof r === 'object' && PUBLISHER_EVENTS.has(r.type as string) && 'trigger_time_us' in r
    )
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
   * Until then it is out of order only by how long a write takes to finish (a get is written when its write
   * finishes): a window of 2 MiB of lines (~3,500 traces) absorbs that, and a longer wait makes the sorter spill
   * early (the same bytes, more slowly). The usual 8 MiB held four times the lines, and their sort entries, all run.
   */
  readonly sortWindowBytes = 2 << 20

  /** The traces: every batch's events paired at once, then what is still pending at the end of the input. */
  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const aged = new AgedKeys(this.options.spillDir)
    try {
      for await (const traces of this.convertEvents(ctx, aged)) yield* traces
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
    for await (const batch of publisherEventBatches(ctx, config)) {
      const out: Trace[] = []
      const {lines} = batch
      for (let i = 0; i < lines.count; i++) {
        switch (batch.kind(i)) {
          case PROBLEM: {
            const p = batch.problem(i)
            if (p.reg !== undefined) this.registerInstance(p.reg)
            if (p.k === 'skip') ctx.skip(lines.line(i), p.code, p.message)
            else ctx.drop(lines.line(i), p.code)
            break
          }
          case GET:
          case GET_FROM_KEYS:
            aged.add(this.onGet(batch, i, ctx, gets))
            break
          case START:
            aged.add(this.onStart(batch, i, ctx, writes))
            break
          case FINISH:
          case FINISH_BAD_TIME:
            this.onFinish(batch, i, ctx, aged, gets, writes, out)
        }
      }
      gets.endBatch() // before the keys age: a get that goes cold takes its keys from its batch
      aged.endBatch()
      if (out.length > 0) yield out
    }
    // end of input: unfinished writes (assumed done 100 ms after their start), then gets never written, handed over
    // FLUSH_BATCH of them at a time
    let flushed = 0
    const out: Trace[] = []
    for (const w of writes.values()) {
      const ts = w.ts + FLUSH_DELAY_NS
      const keys = aged.load(w.keys)
      const get = gets.takeMatch(w.instance, ts, keys)
      if (get) this.emitPair(get, ts, aged, out)
      else out.push(this.createWriteTrace(ts, keys, w.instance))
      ctx.converted(w.startLine)
      if (++flushed % FLUSH_BATCH === 0) yield out.splice(0)
    }
    writes.clear()
    for (const g of gets.drain()) {
      out.push(this.emitGet(g, aged))
      if (++flushed % FLUSH_BATCH === 0) yield out.splice(0)
    }
    if (out.length > 0) yield out
  }

  private onGet(batch: PublisherBatch, i: number, ctx: InputContext, gets: PendingGets): PendingGet {
    const {lines} = batch
    const inst = batch.inst(i)
    this.registerInstance(inst)
    if (batch.kind(i) === GET_FROM_KEYS) {
      if (!this.warnedFallback.has(inst)) {
        this.warnedFallback.add(inst)
        ctx.warnLine(
          lines.line(i),
          'input_len_from_keys',
          `GetCacheLocation for instance ${inst} has no input_len; using len(keys) * block_size (${this.getBlockSize(inst)}); ` +
            'token hit rates may overestimate prompts with partial tail blocks',
        )
      }
      ctx.note('input_len_from_keys')
    }
    ctx.converted(lines.line(i)) // every accepted get is emitted, paired or alone
    return gets.add({
      instance: inst,
      ts: batch.ts(i),
      keys: batch.keys(i),
      inputLen: batch.inputLen(i),
      ...batch.tail(i),
    })
  }

  private onStart(
    batch: PublisherBatch,
    i: number,
    ctx: InputContext,
    writes: Map<string, PendingWrite>,
  ): PendingWrite {
    const inst = batch.inst(i)
    this.registerInstance(inst)
    const mapKey = `${inst}\u0000${batch.session(i)}`
    const previous = writes.get(mapKey)
    if (previous) {
      previous.live = false
      ctx.drop(previous.startLine, 'start_superseded')
    }
    const write: PendingWrite = {
      instance: inst,
      ts: batch.ts(i),
      keys: batch.keys(i),
      startLine: {lineNo: batch.lines.lineNos[i], text: ''},
      live: true,
    }
    writes.set(mapKey, write)
    return write
  }

  private onFinish(
    batch: PublisherBatch,
    i: number,
    ctx: InputContext,
    aged: AgedKeys,
    gets: PendingGets,
    writes: Map<string, PendingWrite>,
    out: Trace[],
  ): void {
    const line = batch.lines.line(i)
    const inst = batch.inst(i)
    const mapKey = `${inst}\u0000${batch.session(i)}`
    const write = writes.get(mapKey)
    if (!write) return ctx.drop(line, 'finish_unknown_session')
    writes.delete(mapKey)
    write.live = false
    if (batch.kind(i) === FINISH_BAD_TIME) {
      ctx.skip(line, 'invalid_trigger_time', TIME_PROBLEM)
      return ctx.drop(write.startLine, 'finish_invalid')
    }
    const ts = batch.ts(i)
    const get = gets.takeMatch(inst, ts, aged.load(write.keys))
    if (!get) {
      ctx.drop(write.startLine, 'write_unmatched')
      ctx.drop(line, 'write_unmatched')
      return
    }
    this.emitPair(get, ts, aged, out)
    ctx.converted(write.startLine)
    ctx.converted(line)
  }

  private emitGet(g: WaitingGet, aged: AgedKeys) {
    return this.createGetTrace(g.ts, aged.load(g.keys), g.instance, {
      inputLen: g.inputLen,
      queryType: g.queryType,
      blockMask: g.blockMask,
      swSize: g.swSize,
      locationSpecNames: g.locationSpecNames,
    })
  }

  /** The get, then the write at `ts` carrying the get's truncated keys (not the StartWriteCache keys). */
  private emitPair(g: WaitingGet, ts: bigint, aged: AgedKeys, out: Trace[]): void {
    const get = this.emitGet(g, aged)
    out.push(get)
    out.push(this.createWriteTrace(ts, get.keys, g.instance))
  }
}
