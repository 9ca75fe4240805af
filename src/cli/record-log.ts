// The `--jsonl-out` log of `lmt replay`: one line per record, written as the replay goes, and kept as far as it got
// (an interrupted replay leaves the lines of the records it handled). A write that fails (a full disk) is an error:
// it is reported once to `onFailure` (which ends the replay) and nothing more is written. A link at the log's path is
// replaced by the file, never written through.
import {closeSync, constants, openSync, unlinkSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {ensureDirectory, outputError} from '../util/output-path.js'
import type {LmtError} from '../errors.js'
import {ChunkedText} from './chunked-text.js'

const {O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW} = constants

/**
 * Opens (truncates) the log at `path` without following a link there: a link is replaced by a new file, as every
 * other output replaces one, and the file it points to is left as it was.
 */
function openLog(path: string): number {
  try {
    return openSync(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o666)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err
  }
  unlinkSync(path)
  return openSync(path, 'wx', 0o666)
}

export class RecordLog {
  private readonly fd: number
  private readonly text: ChunkedText
  private failure: LmtError | undefined
  private closed = false

  /** Creates the parent directories and opens (truncates) `path`; throws REPLAY_OUTPUT_FAILED if it cannot. */
  constructor(
    readonly path: string,
    onFailure: (err: LmtError) => void,
    write: (fd: number, chunk: string) => void = (fd, chunk) => void writeSync(fd, chunk),
  ) {
    try {
      ensureDirectory(dirname(path), 'REPLAY_OUTPUT_FAILED')
      this.fd = openLog(path)
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

  /** Writes what is gathered and closes the file (idempotent; synchronous, so safe before an exit). */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.text.flush()
    closeSync(this.fd)
  }

  private error(err: Error): LmtError {
    return outputError('REPLAY_OUTPUT_FAILED', `cannot write --jsonl-out ${this.path}`, err)
  }
}
