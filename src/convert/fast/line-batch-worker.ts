// Worker-thread entry of the byte-batch mapper (BatchInput.mapLineBatches, the fast lane): imports the mapper module once, then
// maps each batch of lines it is sent to one result.
import {workerData} from 'node:worker_threads'
import type {LineBatchMapFunction, LineBatchMapperModule} from '../line-mapper.js'
import {LineBatch, type LineBatchData} from '../../formats/json/line-batch.js'
import {serveJobs} from '../../util/workers/serve-jobs.js'

const {module, config} = workerData as {module: string; config: unknown}
const mod = (await import(module)) as LineBatchMapperModule // a file: URL (mapperPool)
if (typeof mod.createLineBatchMapper !== 'function')
  throw new Error(`${module} does not export createLineBatchMapper(config)`)
const map: LineBatchMapFunction = await mod.createLineBatchMapper(config)

serveJobs(async ({batch}: {batch: LineBatchData}) => {
  const lines = LineBatch.of(batch)
  const {result, transfer} = await map(lines)
  // the batch goes back with its result (its buffers were moved here, not copied)
  const back = new Set([...(transfer ?? []), ...lines.buffers()])
  return {result: {result, batch: lines.data()}, transfer: [...back]}
})
