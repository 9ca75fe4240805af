// Worker-thread entry of the parse thread (parse-thread.ts): reads, scans and interns the trace with the row reader
// of the playing thread (and its byte scanner), and answers each job (a slot to fill) with the next batches of rows encoded into that
// slot's shared memory, the progress and statistics the reader reported up to them, and its error or its end.
import {workerData} from 'node:worker_threads'
import {workerErrorData} from '../../util/workers/worker-errors.js'
import {serveJobs} from '../../util/workers/serve-jobs.js'
import {KeyInterner, KeyShards} from '../input/key-interner.js'
import type {TraceRow} from '../input/trace-rows.js'
import {newStats, readTraceRowBatches, type TraceReadStats, useRowScanner} from '../input/trace-source.js'
import {encodeRows} from './row-batch-codec.js'
import {
  type ParsePart,
  type ParseReply,
  type ParseThreadData,
  REPLY_ROWS,
  type StatsSnapshot,
} from './parse-thread.js'
import {RowByteScanner} from './row-scan-bytes.js'
import type {EncodedRows} from './row-batch-codec.js'

useRowScanner(() => new RowByteScanner())
const opts = workerData as ParseThreadData
const stats = newStats(opts.path)
let progress: ParsePart['progress'] = []
const snapshot = (s: TraceReadStats): StatsSnapshot => ({
  rows: s.rows,
  rowsByType: {...s.rowsByType},
  invalid: {...s.invalid},
})
/** the slots' arrays, refilled when the playing thread asks for a slot again (it is then done with its rows) */
const slots: EncodedRows[] = []
const keys = KeyInterner.forTraceBytes(stats.bytes)
/** tiered rows whose keys the playing side reads: the keys whose values (or shards) it has */
let keysSent = 0
const batches = readTraceRowBatches(
  {
    ...opts,
    keys,
    onBytes: (bytes) => progress.push({bytes, stats: snapshot(stats)}),
  },
  stats,
)

/**
 * The next reply: the reader's batches until REPLY_ROWS rows are gathered, the reader ends or it throws. One at a
 * time, so that each takes exactly the progress reported before its rows.
 */
async function nextReply(slot: number): Promise<{result: ParseReply}> {
  const parts: ParsePart[] = []
  const reply: ParseReply = {parts, slot}
  let rows: TraceRow[] = []
  while (rows.length < REPLY_ROWS) {
    let next: IteratorResult<TraceRow[]>
    try {
      next = await batches.next()
    } catch (err) {
      reply.error = workerErrorData(err)
      break
    }
    if (next.done) {
      reply.done = true
      break
    }
    parts.push({progress: take(), stats: snapshot(stats), rows: next.value.length})
    rows = rows.length === 0 ? next.value : rows.concat(next.value)
  }
  if (reply.error || reply.done) parts.push({progress: take(), stats: snapshot(stats), rows: 0})
  if (rows.length > 0) reply.rows = slots[slot] = encodeRows(rows, slots[slot])
  if (opts.shardCounts !== undefined && keys.size > keysSent) {
    reply.keyShards = KeyShards.of(keys, keysSent, opts.shardCounts)
    keysSent = keys.size
  } else if (opts.tieredRows && !opts.keysPrivate && keys.size > keysSent) {
    reply.keyValues = keys.valuesFrom(keysSent)
    keysSent = keys.size
  }
  return {result: reply}
}

function take(): ParsePart['progress'] {
  const p = progress
  progress = []
  return p
}

// jobs overlap (the playing thread asks ahead); the chain answers them in turn, in the trace's order
let chain: Promise<unknown> = Promise.resolve()
serveJobs<number, ParseReply>((slot) => {
  const reply = chain.then(() => nextReply(slot))
  chain = reply
  return reply
})
