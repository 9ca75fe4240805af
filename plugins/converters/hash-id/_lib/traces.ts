// The traces of a converter over hash-id rows (Qwen-Bailian, Mooncake): a get and a write per row, in input order,
// each row's line counted as converted when the trace after its write is asked for (or skipped, with its reason).
// An async iterator written out, not an async generator: a generator's yield costs several promise turns per
// trace (two traces a row, 100k rows: ~0.1 s of the main thread); this one hands each trace of a decoded batch over
// in a settled promise and awaits only the next batch.
import type {GetTrace, InputContext, Trace} from 'lmt'
import {type HashIdRows, hashIdRowBatches} from './input.js'
import type {HashIdRowConfig} from './rows.js'

/** How a row's traces are made (the converter's methods: timestamps are allocated as they are called). */
export interface HashIdTraceMaker {
  get(rows: HashIdRows): GetTrace
  write(rows: HashIdRows, get: GetTrace): Trace
}

const DONE: IteratorReturnResult<undefined> = {done: true, value: undefined}

class HashIdTraces implements AsyncIterableIterator<Trace> {
  /** the batch being read, undefined between batches */
  private rows: HashIdRows | undefined
  /** the current row's get, when its write is the next trace */
  private get: GetTrace | undefined
  /** the current row's write was handed over: its line is counted before the next row is read */
  private written = false
  private finished = false
  private readonly batches: AsyncGenerator<HashIdRows>

  constructor(
    private readonly ctx: InputContext,
    private readonly config: HashIdRowConfig,
    private readonly make: HashIdTraceMaker,
  ) {
    this.batches = hashIdRowBatches(ctx, config) // a generator: nothing is read until it is asked for a batch
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<Trace>> {
    if (this.finished) return Promise.resolve(DONE)
    let trace: Trace | undefined
    try {
      trace = this.nextOfBatch()
    } catch (err) {
      return this.fail(err)
    }
    return trace ? Promise.resolve({done: false, value: trace}) : this.nextBatch()
  }

  /** The consumer stopped early: the row decoders are shut down. */
  async return(): Promise<IteratorResult<Trace>> {
    this.finished = true
    await this.batches.return(undefined)
    return DONE
  }

  /** The next trace of the batch being read; undefined when it has none left. */
  private nextOfBatch(): Trace | undefined {
    const rows = this.rows
    if (!rows) return undefined
    if (this.get) {
      const write = this.make.write(rows, this.get)
      this.get = undefined
      this.written = true
      return write
    }
    if (this.written) this.ctx.converted(rows.line())
    this.written = false
    while (rows.next()) {
      if (rows.problem) {
        this.ctx.skip(rows.line(), rows.problem.skip, rows.problem.message)
        continue
      }
      this.get = this.make.get(rows)
      return this.get
    }
    this.rows = undefined
    return undefined
  }

  /** The first trace of the next batch that has one, or the end. */
  private async nextBatch(): Promise<IteratorResult<Trace>> {
    try {
      for (;;) {
        const batch = await this.batches.next()
        if (batch.done) {
          this.finished = true
          return DONE
        }
        this.rows = batch.value
        const trace = this.nextOfBatch()
        if (trace) return {done: false, value: trace}
      }
    } catch (err) {
      return this.fail(err)
    }
  }

  /** An error while reading or making traces: the row decoders are shut down, then the error goes on. */
  private async fail(err: unknown): Promise<never> {
    this.finished = true
    await this.batches.return(undefined).catch(() => {}) // as a loop left by an error: that error is the one
    throw err
  }
}

/** The traces of the input's hash-id rows, made by `make`. */
export function hashIdTraces(
  ctx: InputContext,
  config: HashIdRowConfig,
  make: HashIdTraceMaker,
): AsyncIterableIterator<Trace> {
  return new HashIdTraces(ctx, config, make)
}
