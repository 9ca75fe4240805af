// Worker-thread entry of the hit-rate CSV writer (hit-rate-thread.ts): formats the rows it is sent, in order.
import {parentPort, workerData} from 'node:worker_threads'
import {type AccumulatedCounts, newReadRecord} from './hit-rate-csv.js'
import {InlineHitRateSink} from './hit-rate-sink.js'
import {ROW_SLOTS, type RowBatchMessage, type WriterMessage} from './hit-rate-thread.js'
import {settleArrayBufferDetaching} from '../util/array-buffer-detaching.js'

settleArrayBufferDetaching() // this thread transfers buffers: before any hot code is compiled

const {state} = workerData as {state: Int32Array}
const sink = new InlineHitRateSink()
const acc: AccumulatedCounts = {
  read_blocks: 0,
  hit_blocks: 0,
  input_tokens: 0,
  local_hit_tokens: 0,
  remote_hit_tokens: 0,
  hit_tokens: 0,
}
const record = newReadRecord()
let accWrite = 0
const accWriteOf = (): number => accWrite
let failure: string | undefined

function writeRows(m: RowBatchMessage): void {
  const f = new Float64Array(m.numbers)
  const ts = new BigInt64Array(m.timestamps)
  for (let r = 0; r < m.n; r++) {
    const o = r * ROW_SLOTS
    acc.read_blocks = f[o + 8]
    acc.hit_blocks = f[o + 9]
    acc.input_tokens = f[o + 10]
    acc.local_hit_tokens = f[o + 11]
    acc.remote_hit_tokens = f[o + 12]
    acc.hit_tokens = f[o + 13]
    record.cached = f[o + 1]
    record.cachedAll = f[o + 2]
    record.read = f[o + 3]
    record.localHit = f[o + 4]
    record.remoteHit = f[o + 5]
    record.inputTokens = f[o + 6]
    record.bs = f[o + 7]
    sink.row(f[o], ts[r], record, acc)
    accWrite = f[o + 14]
    sink.complete(accWriteOf)
  }
}

parentPort?.on('message', (m: WriterMessage) => {
  try {
    if (failure === undefined) {
      if (m.kind === 'rows') writeRows(m)
      else if (m.kind === 'open') sink.open(m.file, m.path)
    }
  } catch (err) {
    failure = (err as Error)?.message ?? String(err)
    Atomics.store(state, 1, 1)
  }
  if (m.kind === 'rows') {
    Atomics.sub(state, 0, 1)
    Atomics.notify(state, 0)
  } else if (m.kind === 'close') {
    try {
      sink.close(failure === undefined && m.commit)
    } catch (err) {
      failure ??= (err as Error)?.message ?? String(err)
    }
    parentPort?.postMessage({closed: true, error: failure})
  }
})
