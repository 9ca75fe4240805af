// The `--jsonl-out` log of `lmt replay`: one line per record, written as the replay goes to a temporary file beside
// its path (created exclusively under a fresh name: two replays logging to one path never write into one file, and a
// link at the path is never written through). A replay that completes hands it over to be replaced together with
// its other outputs; one that is interrupted or fails puts it in place as far as it got (the lines of the records it
// handled). A write that fails (a full disk) is an error: it is reported once to `onFailure` (which ends the replay)
// and nothing more is written.
import {closeSync, rmSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {openTempBeside} from '../util/atomic-write.js'
import {ensureDirectory, outputError} from '../util/output-path.js'
import {replaceAsSet, type Replacement} from '../util/replace-set.js'
import type {LmtError} from '../errors.js'
import {ChunkedText} from './chunked-text.js'

export class RecordLog {
  private readonly fd: number
  private readonly tmp: string
  private readonly text: ChunkedText
  private failure: LmtError | undefined
  private finished = false
  /** the temporary file is placed, removed or handed over */
  private settled = false

  /** Creates the parent directories and the temporary file beside `path`; throws REPLAY_OUTPUT_FAILED if it cannot. */
  constructor(
    readonly path: string,
    onFailure: (err: LmtError) => void,
    write: (fd: number, chunk: string) => void = (fd, chunk) => void writeSync(fd, chunk),
  ) {
    try {
      ensureDirectory(dirname(path), 'REPLAY_OUTPUT_FAILED')
      ;({tmp: this.tmp, fd: this.fd} = openTempBeside(path))
    } catch (err) {
      throw this.error(err as Error)
    }
    this.text = new ChunkedText((chunk) => {
      if (this.failure) return
      try {
        write(this.fd, chunk)
      } catch (err) {
        this.failure = this.error(err as Error)
        onFailure(this.failure)
      }
    })
  }

  /** The coded error of the first write that failed. */
  get failed(): LmtError | undefined {
    return this.failure
  }

  add(line: string): void {
    if (!this.failure) this.text.add(line)
  }

  /** Writes what is gathered and closes the temporary file (idempotent). */
  finish(): void {
    if (this.finished) return
    this.finished = true
    this.text.flush()
    closeSync(this.fd)
  }

  /** Finishes the log and hands its temporary file over, to be renamed over `path` with the run's other outputs. */
  handOver(): Replacement {
    this.finish()
    this.settled = true
    return {tmp: this.tmp, path: this.path}
  }

  /**
   * Finishes the log and puts it at its path as far as it got, unless it was handed over (idempotent; synchronous,
   * so safe in a signal handler right before an exit). A log that cannot be put there is removed: the run's error is
   * the one reported.
   */
  close(): void {
    this.finish()
    if (this.settled) return
    this.settled = true
    try {
      replaceAsSet([{tmp: this.tmp, path: this.path}])
    } catch {
      rmSync(this.tmp, {force: true})
    }
  }

  private error(err: Error): LmtError {
    return outputError('REPLAY_OUTPUT_FAILED', `cannot write --jsonl-out ${this.path}`, err)
  }
}
