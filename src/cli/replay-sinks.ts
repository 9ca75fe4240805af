// Where `lmt replay`'s lines go while it runs: warnings (once per kind, then counted) and the per-record outputs
// (progress lines on stderr, verbose lines on stdout, the --jsonl-out log). What the lines say is rendered in
// src/cli/trace-report.ts and src/replay/outputs.ts.
import type {ReplayRunOptions} from '../replay/driver.js'
import {checkReplayOutputs, jsonlLine, type ReplayFiles} from '../replay/outputs.js'
import {ChunkedText} from './chunked-text.js'
import type {ProgressBar} from './progress.js'
import {RecordLog} from './record-log.js'
import {progressLine, verboseLine} from './trace-report.js'

/** Warnings printed once per code and key, then counted (the totals come after the replay). */
export class Warnings {
  private readonly counts = new Map<string, number>()
  /** per-record progress lines: a warning keeps its place among them */
  progress: ChunkedText | undefined
  replaying = false

  warn(code: string, key: string, message: string): void {
    const k = `${code}\u0000${key}`
    const n = (this.counts.get(k) ?? 0) + 1
    this.counts.set(k, n)
    if (n > 1) return
    if (this.progress) {
      this.progress.add(`warning: ${message}\n`)
      if (!this.replaying) this.progress.flush() // outside the replay a warning shows at once
    } else process.stderr.write(`warning: ${message}\n`)
  }

  totals(): void {
    for (const [k, n] of this.counts)
      if (n > 1)
        process.stderr.write(
          `warning: ${n - 1} more of: ${k.split('\u0000')[0]} (${k.split('\u0000')[1].slice(0, 80)})\n`,
        )
    this.counts.clear()
  }
}

/** The per-record outputs (progress on stderr, verbose on stdout, the --jsonl-out log), opened before the replay. */
export class RecordOutputs {
  // chunked unless a terminal shows them
  readonly progressText = new ChunkedText((c) => {
    this.bar?.clearLine() // a progress bar's line is cleared before a warning or a progress line is written
    process.stderr.write(c)
  }, process.stderr.isTTY)
  /** the bar on a terminal (unless per-record lines show the progress) */
  bar: ProgressBar | undefined
  readonly verboseText: ChunkedText
  readonly log: RecordLog | undefined
  // stdout closed early (`lmt replay … --verbose | head`): the per-record lines stop, the replay and its files go on
  private stdoutClosed = false
  private readonly onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') this.stdoutClosed = true
    else throw err
  }

  /** `opts`: what is shown per record, and the files of the run (checked before anything is opened) */
  constructor(
    private readonly opts: {verbose: boolean; json: boolean; files: ReplayFiles},
    controller: AbortController,
  ) {
    this.verboseText = new ChunkedText((c) => {
      if (!this.stdoutClosed) process.stdout.write(c)
    }, process.stdout.isTTY)
    checkReplayOutputs(opts.files)
    // a failed write of the log ends the replay with its error
    const jsonl = opts.files.jsonlOut
    if (jsonl) this.log = new RecordLog(jsonl, (err) => controller.abort(err))
    process.stdout.on('error', this.onStdoutError)
  }

  /** The driver's per-record callback: only when something shows per-record outcomes (the driver then builds none). */
  onRecord(progress: boolean, total: number): ReplayRunOptions<unknown>['onRecord'] {
    const verbose = this.opts.verbose && !this.opts.json
    if (!progress && !verbose && !this.log) return undefined
    return (o) => {
      if (progress) this.progressText.add(progressLine(o, total) + '\n')
      if (verbose && !this.stdoutClosed) this.verboseText.add(verboseLine(o, total) + '\n')
      this.log?.add(jsonlLine(o))
    }
  }

  /** Writes the progress and verbose lines gathered. */
  flush(): void {
    this.progressText.flush()
    this.verboseText.flush()
  }

  /** Writes what is gathered and closes the log (idempotent, synchronous). */
  close(): void {
    this.flush()
    this.log?.close()
    // a command run in-process (tests, a host program) leaves no listener behind
    process.stdout.off('error', this.onStdoutError)
  }
}
