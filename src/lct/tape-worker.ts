// Worker-thread entry of the threaded trace reader: reads and decodes frames; each job it is sent asks for the next
// batch of records (their buffers are transferred, not copied), `{done: true}` once the trace is read.
import {workerData} from 'node:worker_threads'
import {readTapes} from './reader.js'
import {serveJobs} from '../util/workers/serve-jobs.js'
import type {TapeReply} from './threaded-reader.js'

const {file, maxFrameBytes, name, batchRecords, batchBytes} = workerData as {
  file: string
  maxFrameBytes?: number
  name?: string
  batchRecords?: number
  batchBytes?: number
}

const tapes = readTapes(file, {maxFrameBytes, name, batchRecords, batchBytes})

// jobs may overlap: the generator answers its next() calls in turn, so batches leave in the trace's order
serveJobs<null, TapeReply>(async () => {
  const next = await tapes.next()
  if (next.done) return {result: {done: true}}
  const batch = next.value
  const buffers = [
    batch.nums.buffer,
    batch.ints.buffer,
    batch.bytes.buffer,
    batch.defs.buffer,
  ] as ArrayBuffer[]
  return {result: {batch}, transfer: buffers}
})
