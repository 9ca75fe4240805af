// The byte-batch mapper on worker threads, an accelerator of the line pool (line-pool.ts maps the same batches on
// the main thread): for an input of millions of lines, its row decoding runs beside the converter. A qwen_bailian
// conversion of 100k rows (68 MB) takes 1.55x less CPU time and 1.5x less wall time with it and its row scanner
// than on the plain paths.
import {LineBatch, type LineBatchData, type LineBatchSpares} from '../../formats/json/line-batch.js'
import {OrderedJobs} from '../../util/workers/ordered-jobs.js'
import type {LineMapperSpec, MappedBatch} from '../line-mapper.js'
import {IN_FLIGHT_PER_WORKER, mapperPool} from '../line-pool.js'

/**
 * The byte-batch mapper on `count` worker threads. A batch's buffers move to the worker and come back with its result
 * (transferred both ways: no line is copied between threads).
 */
export async function* mapBatchesOnWorkers<R>(
  batches: AsyncIterable<LineBatch>,
  spec: LineMapperSpec,
  count: number,
  spares: LineBatchSpares | undefined,
): AsyncGenerator<MappedBatch<R>> {
  const workers = mapperPool<{batch: LineBatchData}, {result: R; batch: LineBatchData}>(
    new URL('./line-batch-worker.js', import.meta.url),
    spec,
    count,
  )
  const pool = new OrderedJobs(workers, IN_FLIGHT_PER_WORKER)
  try {
    const take = async (): Promise<MappedBatch<R>> => {
      const {result, batch} = await pool.next()
      return {lines: LineBatch.of(batch), result}
    }
    // yields a batch; once the consumer asks for the next, its buffers may be reused
    async function* handOut(): AsyncGenerator<MappedBatch<R>> {
      const mapped = await take()
      yield mapped
      spares?.give(mapped.lines)
    }
    for await (const lines of batches) {
      pool.submit({batch: lines.data()}, lines.buffers())
      while (pool.full) yield* handOut()
    }
    while (pool.pending > 0) yield* handOut()
  } finally {
    await workers.close()
  }
}
