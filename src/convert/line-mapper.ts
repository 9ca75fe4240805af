import type {InputLine} from '../formats/json/line-reader.js'
import type {LineBatch} from '../formats/json/line-batch.js'

/**
 * A line mapper runs a pure function over an input's lines, possibly on worker threads: the module named by `module`
 * exports `createLineMapper(config)` returning `(line) => result`. Results must be structured-cloneable; they come
 * back in input order. Converters use it for the expensive, order-independent part of a line (parsing, hashing,
 * tokenizing) and keep everything order-dependent (timestamps, pairing) on the main thread.
 */
export interface LineMapperSpec {
  /** URL (file:) or absolute path of the mapper module */
  module: string
  /** passed to `createLineMapper`; structured-cloneable */
  config: unknown
  /** worker threads to use; 0 runs the mapper inline on the main thread */
  workers?: number
  /** inputs smaller than this run inline (a worker's start-up would cost more); default 4 MiB */
  inlineBelowBytes?: number
  /** a batch sent to a worker closes at 512 lines or at this many characters of text, whichever comes first */
  batchChars?: number
  /**
   * Byte batches only: the consumer is done with a batch's lines (their texts read, no line kept) once it asks for
   * the next batch; the buffers are then reused for a later batch instead of being left to the garbage collector.
   */
  linesDoneAtNext?: boolean
}

export interface MappedLine<R> {
  line: InputLine
  result: R
}

export type LineMapFunction<R = unknown> = (line: InputLine) => R | Promise<R>

/** A batch of lines (as bytes) with what a batch mapper made of it, in input order. */
export interface MappedBatch<R> {
  lines: LineBatch
  result: R
}

/**
 * Maps a whole byte batch at once (see {@link LineMapperModule.createLineBatchMapper}); the buffers in `transfer`
 * move to the main thread instead of being copied.
 */
export type LineBatchMapFunction<R = unknown> = (
  lines: LineBatch,
) => {result: R; transfer?: ArrayBuffer[]} | Promise<{result: R; transfer?: ArrayBuffer[]}>

export interface LineBatchMapperModule<R = unknown> {
  /**
   * For `BatchInput.mapLineBatches` (the fast lane, `ctx.fast`): returns the function that maps one batch of lines, given as bytes
   * (`lines.text(i)` decodes one), to one result for the whole batch — typically columns in typed arrays, which
   * cross threads as a few buffers instead of an object per line.
   */
  createLineBatchMapper(config: unknown): LineBatchMapFunction<R> | Promise<LineBatchMapFunction<R>>
}

export interface LineMapperModule<R = unknown> {
  createLineMapper(config: unknown): LineMapFunction<R> | Promise<LineMapFunction<R>>
}
