// Reading an input through its fast lane (InputContext.fast, byte batches) with the plain line reader behind it:
// a converter written against these helpers runs on any InputContext, and both ways give it the same batches'
// lines (docs/convert.md §4.5).
import type {InputLine} from '../formats/json/line-reader.js'
import {type LineBatch, LineBatchBuilder} from '../formats/json/line-batch.js'
import type {LineMapperSpec, MappedBatch} from './line-mapper.js'
import {mapLineBatches} from './line-pool.js'
import type {InputContext} from './types.js'

/** The plain way: the context's lines, gathered into byte batches as the fast lane would hand them over. */
async function* batchesOfLines(lines: AsyncIterable<InputLine>): AsyncGenerator<LineBatch> {
  const builder = new LineBatchBuilder()
  for await (const line of lines) {
    builder.addText(line.lineNo, line.text)
    yield* builder.take()
  }
  builder.seal()
  yield* builder.take()
}

/** The input's lines as byte batches: `ctx.fast.lineBatches()`, or `ctx.lines()` batched when there is no fast lane. */
export function lineBatchesOf(ctx: InputContext): AsyncIterable<LineBatch> {
  return ctx.fast ? ctx.fast.lineBatches() : batchesOfLines(ctx.lines())
}

/**
 * The input's byte batches mapped by `spec` (a module exporting `createLineBatchMapper`), one result per batch in
 * input order: `ctx.fast.mapLineBatches(spec)` (worker threads for large inputs), or, when the context has no fast
 * lane, `ctx.lines()` batched and mapped on this thread.
 */
export function mapInputBatches<R>(ctx: InputContext, spec: LineMapperSpec): AsyncIterable<MappedBatch<R>> {
  if (ctx.fast) return ctx.fast.mapLineBatches<R>(spec)
  return mapLineBatches<R>(batchesOfLines(ctx.lines()), {...spec, workers: 0}, 0)
}
