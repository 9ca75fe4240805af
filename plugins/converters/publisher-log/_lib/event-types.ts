// The events a publisher-log line becomes (publisher-events.ts makes them, publisher-pack.ts carries them across
// threads, the converter pairs them).

/** Where a line's keys are: words [w, w + n) of the batch (w ≥ 0), or only their JSON text (w = -1: not all int64). */
export interface KeysRef {
  w: number
  n: number
  t0: number
  t1: number
}

/** A pass-through value: a scalar as it is, anything else as its JSON text in the batch's text slab. */
export type PassThrough = string | number | bigint | boolean | null | {t0: number; t1: number}

/** A line that is skipped (warned), or dropped; `reg` is the instance it registered before that (if any). */
export interface Problem {
  k: 'skip' | 'drop'
  code: string
  message: string
  reg?: string
}

export interface GetEvent {
  k: 'get'
  inst: string
  ts: bigint
  keys: KeysRef
  inputLen: bigint
  /** input_len came from len(keys) × block size (the converter warns once per instance) */
  fromKeys: boolean
  qt?: PassThrough
  bm?: PassThrough
  sw?: PassThrough
  ls?: PassThrough
}

export interface StartEvent {
  k: 'start'
  inst: string
  ts: bigint
  keys: KeysRef
  session: string
}

export interface FinishEvent {
  k: 'finish'
  inst: string
  session: string
  /** undefined: trigger_time_us is invalid (`timeProblem` says why; checked only once the session is found) */
  ts?: bigint
  timeProblem?: string
}

export type PublisherEvent = Problem | GetEvent | StartEvent | FinishEvent
