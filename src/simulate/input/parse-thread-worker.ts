// Worker-thread entry of the parsing thread (parse-thread.ts): reads, scans and interns the trace with the row
// reader of the playing thread, and answers each job (a slot to fill) with the next batch of rows written into that
// slot, the progress and statistics the reader reported up to it, and its error or its end. It transfers no
// buffer (the slots are shared memory), so it does not settle the detach protector.
import {workerData} from 'node:worker_threads'
import {workerErrorData} from '../../util/workers/worker-errors.js'
import {serveJobs} from '../../util/workers/serve-jobs.js'
import {KeyInterner} from './key-interner.js'
import {RowSlotWriter, StringTableWriter} from './row-batch-codec.js'
import type {ParseReply, ParseThreadData, StatsSnapshot} from './parse-thread.js'
import type {TraceRow} from './trace-rows.js'
import {newStats, readTraceRowBatches, type TraceReadStats} from './trace-source.js'

const opts = workerData as ParseThreadData
const stats = newStats(opts.path)
let progress: ParseReply['progress'] = []
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

/** The next reply, its rows in `slot`; one at a time, so that each takes exactly the progress reported before them. */
async function nextReply(slot: number): Promise<{result: ParseReply}> {
  let next: IteratorResult<TraceRow[]>
  try {
    next = await batches.next()
  } catch (err) {
    return {result: {progress: take(), stats: snapshot(stats), error: workerErrorData(err)}}
  }
  if (next.done) return {result: {progress: take(), stats: snapshot(stats), done: true}}
  const batch = (slots[slot] ??= new RowSlotWriter()).fill(next.value, strings)
  return {result: {progress: take(), stats: snapshot(stats), slot, batch}}
}

function take(): ParseReply['progress'] {
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
