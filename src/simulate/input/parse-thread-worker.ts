// Worker-thread entry of the parsing thread (parse-thread.ts): reads, scans and interns the trace with the row
// reader of the playing thread, and answers each job (a slot to fill) with the next batch of rows written into that
// slot, the progress and statistics the reader reported up to it, and its error or its end. It transfers no
// buffer: the slots are shared memory.
import {workerData} from 'node:worker_threads'
import {workerErrorData} from '../../util/workers/worker-errors.js'
import {serveJobs} from '../../util/workers/serve-jobs.js'
import {KeyInterner} from './key-interner.js'
import {RowSlotWriter, StringTableWriter} from './row-batch-codec.js'
import {
  type ParsePart,
  type ParseReply,
  type ParseThreadData,
  REPLY_ROWS,
  type StatsSnapshot,
} from './parse-thread.js'
import type {TraceRow} from './trace-rows.js'
import {newStats, readTraceRowBatches, type TraceReadStats} from './trace-source.js'

const opts = workerData as ParseThreadData
const stats = newStats(opts.path)
let progress: ParsePart['progress'] = []
const snapshot = (s: TraceReadStats): StatsSnapshot => ({
  rows: s.rows,
  rowsByType: {...s.rowsByType},
  invalid: {...s.invalid},
})
const batches = readTraceRowBatches(
  {
    ...opts,
    keys: KeyInterner.forTraceBytes(stats.bytes),
    onBytes: (bytes) => progress.push({bytes, stats: snapshot(stats)}),
  },
  stats,
)
const strings = new StringTableWriter()
const slots: RowSlotWriter[] = []

/**
 * The next reply, its rows in `slot`: the reader's batches until REPLY_ROWS rows are gathered, the reader ends or it
 * throws. One at a time, so that each takes exactly the progress reported before its rows.
 */
async function nextReply(slot: number): Promise<{result: ParseReply}> {
  const parts: ParsePart[] = []
  const reply: ParseReply = {parts}
  const fill = (slots[slot] ??= new RowSlotWriter())
  fill.clear()
  while (fill.size < REPLY_ROWS) {
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
    fill.append(next.value, strings)
  }
  if (reply.error || reply.done) parts.push({progress: take(), stats: snapshot(stats), rows: 0})
  if (fill.size > 0) {
    reply.slot = slot
    reply.batch = fill.batch(strings)
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
