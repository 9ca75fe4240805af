import type {Logger} from '../convert/types.js'

/**
 * Human-readable output on stderr: warnings (`warning: …`), informational lines, and a hook so an active progress
 * bar is cleared before a line is written. Written directly to `process.stderr` because oclif's `this.warn` is
 * silent under `--json`, where our warnings must still appear.
 */
export class StderrReporter implements Logger {
  warnings = 0
  /** Set while a progress bar owns the current terminal line. */
  beforeWrite: (() => void) | undefined

  constructor(
    private readonly quiet: boolean,
    private readonly stream: NodeJS.WritableStream = process.stderr,
    /** informational lines (the banner, the summary); off under --json, whose document says it all */
    private readonly informational = true,
  ) {}

  warn(message: string): void {
    this.warnings++
    if (this.quiet) return
    this.line(`warning: ${message}`)
  }

  info(message: string): void {
    if (this.quiet || !this.informational) return
    this.line(message)
  }

  line(text: string): void {
    this.beforeWrite?.()
    this.stream.write(text + '\n')
  }
}
