// Worker-thread entry of the threaded trace reader: reads and decodes frames, posts batches as the replay asks.
import {parentPort, workerData} from 'node:worker_threads'
import {LctError} from '../errors.js'
import {readTapes} from './reader.js'
import {settleArrayBufferDetaching} from '../util/array-buffer-detaching.js'

settleArrayBufferDetaching() // this thread transfers buffers: before any hot code is compiled

const {file, maxFrameBytes, name, batchRecords, batchBytes} = workerData as {
  file: string
  maxFrameBytes?: number
  name?: string
  batchRecords?: number
  batchBytes?: number
}
const port = parentPort
if (!port) throw new Error('tape-worker runs in a worker thread')

// batches the replay is ready to take (it asks for another as it starts on one): decoding may run up to six batches
// ahead, which absorbs the pauses of either thread (a collection, a burst of evictions)
let credits = 6
let wake: (() => void) | undefined
port.on('message', () => {
  credits++
  wake?.()
  wake = undefined
})

try {
  for await (const batch of readTapes(file, {maxFrameBytes, name, batchRecords, batchBytes})) {
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve))
    credits--
    const buffers = [
      batch.nums.buffer,
      batch.ints.buffer,
      batch.bytes.buffer,
      batch.defs.buffer,
    ] as ArrayBuffer[]
    port.postMessage({batch}, buffers)
  }
  port.postMessage({done: true})
} catch (err) {
  port.postMessage({
    error:
      err instanceof LctError
        ? {
            lct: true,
            kind: err.kind,
            source: err.source,
            detail: err.detail,
            offset: err.offset,
            suggestions: [...err.suggestions],
          }
        : {message: (err as Error)?.message ?? String(err), name: (err as Error)?.name ?? 'Error'},
  })
}
