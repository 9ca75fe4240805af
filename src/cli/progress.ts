import cliProgress from 'cli-progress'

export interface ProgressBar {
  update(done: number, total: number, payload?: Record<string, unknown>): void
  /** Clears the bar's line so another line can be printed; the bar redraws on its next update. */
  clearLine(): void
  stop(): void
}

const silent: ProgressBar = {update() {}, clearLine() {}, stop() {}}

/** A single-line bar on stderr, only when stderr is a TTY and progress is wanted. */
export function createProgressBar(enabled: boolean, format: string): ProgressBar {
  if (!enabled || !process.stderr.isTTY) return silent
  const bar = new cliProgress.SingleBar(
    {stream: process.stderr, format, hideCursor: true, clearOnComplete: true, noTTYOutput: false, fps: 10},
    cliProgress.Presets.shades_classic,
  )
  let started = false
  return {
    update(done, total, payload) {
      if (!started) {
        bar.start(Math.max(total, 1), done, payload)
        started = true
      } else {
        bar.setTotal(Math.max(total, 1))
        bar.update(done, payload)
      }
    },
    clearLine() {
      if (started) process.stderr.write('\r\x1b[K')
    },
    stop() {
      if (started) bar.stop()
    },
  }
}
