// The `--record` file of a replay (docs/storage-replay.md §9): whole or absent. The recorder writes a temporary file beside
// the target (created exclusively under a fresh name: two replays recording to one path never share it), put in
// place once the replay has finished and every write succeeded (renamed over the target, or handed to the caller,
// which replaces its whole output set at once); an interruption, a failed write (ENOSPC) or a fatal error removes the
// temporary file and leaves an earlier file at that path untouched.
import {renameSync, rmSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {ensureDirectory, outputError} from '../util/output-path.js'
import {type Clock, TraceRecorder} from '../formats/lct/recorder.js'
import {tempPathBeside} from '../util/atomic-write.js'
import type {Replacement} from '../util/replace-set.js'

/** Puts a finished temporary file in place; by default it is renamed over its target at once. */
export type PlaceFile = (done: Replacement) => void

const renameIntoPlace: PlaceFile = (r) => renameSync(r.tmp, r.path)

export interface RecordFileOptions {
  level: string
  clock: Clock
  warn: (message: string) => void
  /** the write call (one per frame); default fs.writeSync (injectable for tests) */
  write?: (fd: number, bytes: Buffer) => void
}

export class RecordFile {
  readonly recorder: TraceRecorder
  private readonly tmp: string
  private failure: Error | undefined
  private done = false

  constructor(
    readonly path: string,
    o: RecordFileOptions,
  ) {
    this.tmp = tempPathBeside(path)
    const write = o.write ?? ((fd: number, bytes: Buffer) => void writeSync(fd, bytes))
    try {
      ensureDirectory(dirname(path), 'REPLAY_OUTPUT_FAILED')
      this.recorder = new TraceRecorder({
        path: this.tmp,
        level: o.level,
        exclusive: true,
        clock: o.clock,
        // after a failed write the recording is lost: one error instead of a warning per dropped record
        onWarning: (m) => {
          if (!this.failure) o.warn(m)
        },
        write: (fd, bytes) => {
          if (this.failure) throw this.failure
          try {
            write(fd, bytes)
          } catch (err) {
            this.failure = err as Error
            throw err
          }
        },
      })
    } catch (err) {
      rmSync(this.tmp, {force: true})
      throw this.error(err as Error)
    }
  }

  /** The coded error of the first write that failed (the replay should stop, the recording is lost), or undefined. */
  failedError(): Error | undefined {
    return this.failure && this.error(this.failure)
  }

  /**
   * Closes the recorder and puts the file in place with `place` (which then owns the temporary file); throws
   * REPLAY_OUTPUT_FAILED (nothing left) if a write failed.
   */
  commit(place: PlaceFile = renameIntoPlace): void {
    if (this.done) return
    this.done = true
    try {
      this.recorder.close()
      if (this.failure) throw this.failure
      place({tmp: this.tmp, path: this.path})
    } catch (err) {
      rmSync(this.tmp, {force: true})
      throw this.error(err as Error)
    }
  }

  /** Closes the recorder and removes the temporary file. Synchronous: safe right before the process exits. */
  discard(): void {
    if (this.done) return
    this.done = true
    rmSync(this.tmp, {force: true})
    this.recorder.close({fsync: false})
  }

  private error(err: Error) {
    return outputError(
      'REPLAY_OUTPUT_FAILED',
      `cannot write the --record file ${this.path} (a file already at that path is left as it was)`,
      err,
    )
  }
}
