import {pathToFileURL} from 'node:url'
import {WorkerPool} from '../util/workers/worker-pool.js'
import {OrderedJobs} from '../util/workers/ordered-jobs.js'
import type {InputLine} from '../formats/json/line-reader.js'
import type {LineBatch, LineBatchSpares} from '../formats/json/line-batch.js'
import {accelerators} from './seams.js'
import type {
  LineBatchMapperModule,
  LineMapFunction,
  LineMapperModule,
  LineMapperSpec,
  MappedBatch,
  MappedLine,
} from './line-mapper.js'

const BATCH_LINES = 512
// one batch mapped while the consumer takes the one before: more in flight only holds memory (publisher_log's peak)
export const IN_FLIGHT_PER_WORKER = 2

/** Whether a mapper runs on the main thread: no worker asked for, or an input too small to pay for one. */
function runsInline(spec: LineMapperSpec, inputBytes: number): boolean {
  // a worker's start-up only pays off on inputs of a few MB
  return (spec.workers ?? 1) < 1 || inputBytes < (spec.inlineBelowBytes ?? 4 << 20)
}

export function moduleUrl(spec: LineMapperSpec): string {
  return spec.module.startsWith('file:') ? spec.module : pathToFileURL(spec.module).href
}

/** `count` threads running the mapper module of `spec` in the worker `entry`. */
export function mapperPool<J, R>(entry: URL, spec: LineMapperSpec, count: number): WorkerPool<J, R> {
  return new WorkerPool<J, R>({
    name: 'line mapper',
    entry,
    workerData: {module: moduleUrl(spec), config: spec.config},
    count,
    // a mapper's garbage is short-lived: a small young generation keeps the worker's footprint small
    resourceLimits: {maxYoungGenerationSizeMb: 8},
  })
}

/** Runs the mapper on the main thread (small inputs, tests, one worker requested). */
async function* mapInline<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
): AsyncGenerator<MappedLine<R>> {
  const mod = (await import(moduleUrl(spec))) as LineMapperModule<R>
  const map: LineMapFunction<R> = await mod.createLineMapper(spec.config)
  for await (const lines of batches) for (const line of lines) yield {line, result: await map(line)}
}

/**
 * Maps lines on `spec.workers` worker threads in batches, yielding results in input order with a bounded number of
 * batches in flight (memory stays bounded however large the input).
 */
async function* mapOnWorkers<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
  count: number,
): AsyncGenerator<MappedLine<R>> {
  const workers = mapperPool<{lines: InputLine[]}, unknown[]>(
    new URL('./line-worker.js', import.meta.url),
    spec,
    count,
  )
  const pool = new OrderedJobs(workers, IN_FLIGHT_PER_WORKER)
  try {
    const queue: InputLine[][] = []
    let batch: InputLine[] = []
    let chars = 0
    const maxChars = spec.batchChars ?? Infinity
    const send = (): void => {
      pool.submit({lines: batch})
      queue.push(batch)
      batch = []
      chars = 0
    }
    for await (const lines of batches) {
      for (let k = 0; k < lines.length; k++) {
        batch.push(lines[k])
        chars += lines[k].text.length
        if (batch.length < BATCH_LINES && chars < maxChars) continue
        send()
        while (pool.full) {
          const head = queue.shift() as InputLine[]
          const results = await pool.next()
          for (let i = 0; i < head.length; i++) yield {line: head[i], result: results[i] as R}
        }
      }
    }
    if (batch.length > 0) send()
    while (queue.length > 0) {
      const head = queue.shift() as InputLine[]
      const results = await pool.next()
      for (let i = 0; i < head.length; i++) yield {line: head[i], result: results[i] as R}
    }
  } finally {
    await workers.close()
  }
}

/**
 * Maps an input's lines, given in batches as the reader read them, with `spec`, inline or on worker threads (see
 * {@link LineMapperSpec}); results come one line at a time.
 */
export function mapLines<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
  inputBytes: number,
): AsyncIterable<MappedLine<R>> {
  if (runsInline(spec, inputBytes)) return mapInline<R>(batches, spec)
  return mapOnWorkers<R>(batches, spec, spec.workers ?? 1)
}

/** The byte-batch mapper on the main thread. */
async function* mapBatchesInline<R>(
  batches: AsyncIterable<LineBatch>,
  spec: LineMapperSpec,
  spares: LineBatchSpares | undefined,
): AsyncGenerator<MappedBatch<R>> {
  const mod = (await import(moduleUrl(spec))) as LineBatchMapperModule<R>
  if (typeof mod.createLineBatchMapper !== 'function')
    throw new Error(`${spec.module} does not export createLineBatchMapper(config)`)
  const map = await mod.createLineBatchMapper(spec.config)
  for await (const lines of batches) {
    yield {lines, result: (await map(lines)).result}
    spares?.give(lines) // the consumer asked for the next batch: done with this one
  }
}

/**
 * Maps an input's lines as byte batches with `spec` (a module exporting `createLineBatchMapper`), inline or on
 * worker threads (an accelerator, seams.ts); one result per batch, in input order.
 */
export function mapLineBatches<R>(
  batches: AsyncIterable<LineBatch>,
  spec: LineMapperSpec,
  inputBytes: number,
  spares?: LineBatchSpares,
): AsyncIterable<MappedBatch<R>> {
  const onWorkers = accelerators().batchWorkers
  if (runsInline(spec, inputBytes) || onWorkers === undefined)
    return mapBatchesInline<R>(batches, spec, spares)
  return onWorkers<R>(batches, spec, spec.workers ?? 1, spares)
}
