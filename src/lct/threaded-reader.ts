// The records of a trace decoded on a worker thread, so that a replay's model runs beside its decoding.
import {Worker} from 'node:worker_threads'
import {type ErrorKind, LctError} from '../errors.js'
import {type TapeBatch, TapeDecoder} from './record-tape.js'
import type {LctRecord, LctWarning} from './types.js'

export interface ThreadedReadOptions {
  maxFrameBytes?: number
  name?: string
  /** reader warnings, each delivered between the records it came between */
  onWarning?: (w: LctWarning) => void
  batchRecords?: number
  batchBytes?: number
}

type WorkerMessage =
  | {batch: TapeBatch}
  | {done: true}
  | {
      error:
        | {lct: true; kind: ErrorKind; source: string; detail: string; offset: number; suggestions: string[]}
        | {lct?: undefined; message: string; name: string}
    }

export interface ThreadedTraceReader {
  batches(): AsyncIterableIterator<LctRecord[]>
  close(): Promise<void>
}

function revive(e: Extract<WorkerMessage, {error: unknown}>['error']): Error {
  if (e.lct) return new LctError(e.kind, e.source, e.detail, e.offset, e.suggestions)
  const err = new Error(e.message)
  err.name = e.name
  return err
}

/**
 * Reads `file` on a worker thread: records arrive in order, with the same values, skips and warnings as
 * `openTrace(file, {internObjectKeys: true})` gives (the header is validated by the caller beforehand).
 */
export function openTraceThreaded(file: string, opts: ThreadedReadOptions = {}): ThreadedTraceReader {
  let worker: Worker | undefined
  let closed = false
  const inbox: WorkerMessage[] = []
  let waiting: {resolve: (m: WorkerMessage) => void; reject: (e: Error) => void} | undefined
  let failure: Error | undefined
  const deliver = (m: WorkerMessage) => {
    if (waiting) {
      const w = waiting
      waiting = undefined
      w.resolve(m)
    } else inbox.push(m)
  }
  const fail = (err: Error) => {
    failure ??= err
    if (waiting) {
      const w = waiting
      waiting = undefined
      w.reject(err)
    }
  }
  const next = (): Promise<WorkerMessage> => {
    const m = inbox.shift()
    if (m) return Promise.resolve(m)
    if (failure) return Promise.reject(failure)
    return new Promise((resolve, reject) => (waiting = {resolve, reject}))
  }

  async function* batches(): AsyncIterableIterator<LctRecord[]> {
    worker = new Worker(new URL('./tape-worker.js', import.meta.url), {
      workerData: {
        file,
        maxFrameBytes: opts.maxFrameBytes,
        name: opts.name,
        batchRecords: opts.batchRecords,
        batchBytes: opts.batchBytes,
      },
    })
    worker.on('message', deliver)
    worker.on('error', fail)
    worker.on('exit', (code) => {
      if (!closed) fail(new Error(`the trace reading thread stopped (exit code ${code})`))
    })
    const decoder = new TapeDecoder()
    try {
      for (;;) {
        const m = await next()
        if ('error' in m) throw revive(m.error)
        if ('done' in m) return
        worker.postMessage(0) // the next batch may be decoded while this one is replayed
        const records = decoder.records(m.batch)
        let from = 0
        for (const {before, warning} of m.batch.warnings) {
          if (before > from) {
            yield records.slice(from, before)
            from = before
          }
          opts.onWarning?.(warning)
        }
        if (from < records.length) yield from === 0 ? records : records.slice(from)
      }
    } finally {
      await close()
    }
  }

  async function close(): Promise<void> {
    if (closed) return
    closed = true
    await worker?.terminate()
  }

  return {batches, close}
}
