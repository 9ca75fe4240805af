// What a worker thread (a pool's, or the plugin thread) sends in place of a result when its job throws, and the error
// rebuilt from it on the other side: a coded error keeps its code (a `.lct` error its source and offset), any other
// keeps its name and message.
import {type ErrorKind, LctError, LmtError} from '../../errors.js'

export interface WorkerErrorData {
  name: string
  message: string
  stack?: string
  /** set for lmt's coded errors */
  coded?: {kind: ErrorKind; exitCode: number; suggestions: string[]}
  /** set for `.lct` errors, which are rebuilt from their parts */
  lct?: {source: string; detail: string; offset: number}
}

/** The cloneable form of what a job threw. */
export function workerErrorData(err: unknown): WorkerErrorData {
  // what plugin code threw may be anything (a Proxy, an Error whose message getter throws): every look may throw
  try {
    if (!(err instanceof Error)) return {name: 'Error', message: String(err)}
    const data: WorkerErrorData = {name: String(err.name), message: String(err.message), stack: err.stack}
    if (err instanceof LmtError)
      data.coded = {kind: err.kind, exitCode: err.exitCode, suggestions: [...err.suggestions].map(String)}
    if (err instanceof LctError) data.lct = {source: err.source, detail: err.detail, offset: err.offset}
    return data
  } catch {
    return {name: 'Error', message: 'an error that cannot be described'}
  }
}

/** The message of what a job threw, for a message of lmt's own. */
export function errorText(err: unknown): string {
  return workerErrorData(err).message
}

/** The error a job threw, rebuilt on the thread that handed it out. */
export function reviveWorkerError(data: WorkerErrorData): Error {
  let err: Error
  if (data.lct && data.coded)
    err = new LctError(
      data.coded.kind,
      data.lct.source,
      data.lct.detail,
      data.lct.offset,
      data.coded.suggestions,
    )
  else if (data.coded)
    err = new LmtError(data.coded.kind, data.message, {
      exitCode: data.coded.exitCode,
      suggestions: data.coded.suggestions,
    })
  else {
    err = new Error(data.message)
    err.name = data.name
  }
  if (data.stack !== undefined) err.stack = data.stack
  return err
}
