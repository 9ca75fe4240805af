// Worker-thread entry of the line mapper: imports the mapper module once, then maps batches of lines.
import {parentPort, workerData} from 'node:worker_threads'
import {pathToFileURL} from 'node:url'
import type {LineMapFunction, LineMapperModule} from './line-mapper.js'
import type {InputLine} from '../jsonl/line-reader.js'
import {settleArrayBufferDetaching} from '../util/array-buffer-detaching.js'

settleArrayBufferDetaching() // this thread transfers buffers: before any hot code is compiled

interface Batch {
  id: number
  lines: InputLine[]
}

const {module, config} = workerData as {module: string; config: unknown}
const url = module.startsWith('file:') ? module : pathToFileURL(module).href
const mod = (await import(url)) as LineMapperModule
const map: LineMapFunction = await mod.createLineMapper(config)

parentPort?.on('message', async (batch: Batch) => {
  try {
    const results: unknown[] = new Array(batch.lines.length)
    for (let i = 0; i < batch.lines.length; i++) results[i] = await map(batch.lines[i])
    parentPort?.postMessage({id: batch.id, result: results})
  } catch (err) {
    parentPort?.postMessage({id: batch.id, error: (err as Error)?.stack ?? String(err)})
  }
})
parentPort?.postMessage({ready: true})
