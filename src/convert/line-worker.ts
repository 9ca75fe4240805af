// Worker-thread entry of the line mapper: imports the mapper module once, then maps batches of lines.
import {workerData} from 'node:worker_threads'
import type {LineMapFunction, LineMapperModule} from './line-mapper.js'
import type {InputLine} from '../formats/json/line-reader.js'
import {serveJobs} from '../util/workers/serve-jobs.js'

const {module, config} = workerData as {module: string; config: unknown}
const mod = (await import(module)) as LineMapperModule // a file: URL (mapperPool)
const map: LineMapFunction = await mod.createLineMapper(config)

serveJobs(async ({lines}: {lines: InputLine[]}) => {
  const results: unknown[] = new Array(lines.length)
  for (let i = 0; i < lines.length; i++) results[i] = await map(lines[i])
  return {result: results}
})
