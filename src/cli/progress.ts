import {createRequire} from 'node:module'

// cli-progress (~20 CommonJS files, ~15 ms of a start-up) is loaded when a bar is drawn, not by every command
const require = createRequire(import.meta.url)

/** What a phase counts: its `done`/`total` are bytes, records, or sweep points. */
export type ProgressUnit = 'bytes' | 'records' | 'points'

export interface ProgressBar {
  /** Starts a phase (a label and what it counts); its rate and ETA start afresh. Same label: nothing changes. */
  phase(label: string, unit: ProgressUnit): void
  /**
   * `done` of `total` in the phase's unit; `note` is extra text such as "24,062 traces", or a function that makes it
   * (called only by a bar that is drawn: a hidden bar costs its callers nothing, see {@link countText}).
   */
  update(done: number, total: number, note?: string | (() => string)): void
  /** Clears the bar's line so another line can be printed; the bar redraws on its next update. */
  clearLine(): void
  stop(): void
}

export interface ProgressOptions {
  /** false (--no-progress, --quiet, --json): no bar */
  enabled: boolean
  label: string
  unit: ProgressUnit
  /** default process.stderr; a bar is drawn only when it is a TTY */
  stream?: NodeJS.WriteStream
  /** milliseconds clock (tests pass their own) */
  now?: () => number
}

/** The state one line of the bar is drawn from. */
export interface ProgressState {
  label: string
  unit: ProgressUnit
  done: number
  total: number
  note?: string
  /** milliseconds since the phase started */
  elapsedMs: number
}

const silent: ProgressBar = {phase() {}, update() {}, clearLine() {}, stop() {}}

/** Whether `bar` draws nothing: a caller may then skip its progress calls (a replay reports once per 256 records). */
export function isSilent(bar: ProgressBar): boolean {
  return bar === silent
}

function bytesText(n: number): string {
  if (n < 1e3) return `${n} B`
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`
  return `${(n / 1e9).toFixed(2)} GB`
}

// One formatter (toLocaleString builds one per call), made on first use: the first number format of a process
// loads ICU's locale data, ~25–50 ms and ~50 M instructions (docs/performance-notes.md), which a run without a
// drawn bar never needs.
let countFormat: Intl.NumberFormat | undefined

export function countText(n: number): string {
  countFormat ??= new Intl.NumberFormat('en-US')
  return countFormat.format(Math.round(n))
}

function rateText(perSecond: number, unit: ProgressUnit): string {
  if (unit === 'bytes') return `${bytesText(perSecond)}/s`
  const n =
    perSecond >= 1e6
      ? `${(perSecond / 1e6).toFixed(1)}M`
      : perSecond >= 1e4
        ? `${(perSecond / 1e3).toFixed(1)}k`
        : perSecond.toFixed(perSecond < 10 ? 1 : 0)
  return `${n} ${unit}/s`
}

/** 0:07, 1:05, 1:02:03 */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const ss = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

/** `1.4/3.0 MB` (both in the unit of the total), `point 3/30`, `1,200/72,186 records` */
function amountText(st: ProgressState): string {
  if (st.unit === 'points') return `point ${countText(st.done)}/${countText(st.total)}`
  if (st.unit !== 'bytes') return `${countText(st.done)}/${countText(st.total)} ${st.unit}`
  const [scale, name] = st.total < 1e6 ? [1e3, 'kB'] : st.total < 1e9 ? [1e6, 'MB'] : [1e9, 'GB']
  const digits = scale === 1e9 ? 2 : 1
  return `${(st.done / scale).toFixed(digits)}/${(st.total / scale).toFixed(digits)} ${name}`
}

/**
 * One line of the bar: `label [████░░░░] 45%  1.4/3.0 MB  12,000 rows  2.1 MB/s  ETA 0:01`; the bar is 30, 16 or 8
 * cells wide by the terminal's width; on a narrow terminal the note goes first, then the line is cut.
 */
export function renderProgressLine(st: ProgressState, width = 80): string {
  const total = Math.max(st.total, 1)
  const fraction = Math.min(1, Math.max(0, st.done / total))
  const seconds = st.elapsedMs / 1000
  // a rate needs some time and some work behind it; before that the ETA is unknown
  const rate = seconds >= 0.2 && st.done > 0 ? st.done / seconds : undefined
  const eta = rate === undefined ? '--' : durationText((total - Math.min(st.done, total)) / rate)
  const pct = `${Math.floor(fraction * 100)}%`
  const tail = (note: boolean) =>
    [
      amountText(st),
      ...(note && st.note ? [st.note] : []),
      rate === undefined ? '--/s' : rateText(rate, st.unit),
      `ETA ${eta}`,
    ].join('  ')
  // the bar keeps its width from one update to the next (it would jitter if it filled the rest of the line)
  const cells = width >= 100 ? 30 : width >= 80 ? 16 : 8
  const fits = (note: boolean) => `${st.label} [] ${pct}  ${tail(note)}`.length + cells < width
  const withNote = fits(true)
  const full = Math.round(fraction * cells)
  const line = `${st.label} [${'█'.repeat(full)}${'░'.repeat(cells - full)}] ${pct}  ${tail(withNote)}`
  return line.length < width ? line : line.slice(0, Math.max(0, width - 1))
}

/**
 * A one-line bar on stderr (cli-progress draws it, at most 10 times a second), only when the stream is a TTY and
 * progress is wanted: nothing at all otherwise, so logs and pipes get no control characters.
 */
export function createProgressBar(opts: ProgressOptions): ProgressBar {
  const stream = opts.stream ?? process.stderr
  if (!opts.enabled || !stream.isTTY) return silent
  const now = opts.now ?? (() => performance.now())
  const st: ProgressState = {label: opts.label, unit: opts.unit, done: 0, total: 1, elapsedMs: 0}
  let phaseStart = now()
  const cliProgress = require('cli-progress') as typeof import('cli-progress')
  const bar = new cliProgress.SingleBar({
    stream,
    format: (_o: unknown, params: {maxWidth: number}) =>
      renderProgressLine({...st, elapsedMs: now() - phaseStart}, params.maxWidth),
    hideCursor: true,
    clearOnComplete: true,
    fps: 10,
  })
  let started = false
  /** a new phase is drawn at once (the 10-per-second limit would hide a short one) */
  let newPhase = false
  return {
    phase(label, unit) {
      if (label === st.label && unit === st.unit) return
      Object.assign(st, {label, unit, done: 0, total: 1, note: undefined})
      phaseStart = now()
      newPhase = true
    },
    update(done, total, note) {
      Object.assign(st, {done, total, note: typeof note === 'function' ? note() : note})
      if (!started) {
        bar.start(Math.max(total, 1), done)
        started = true
      } else {
        bar.setTotal(Math.max(total, 1))
        bar.update(done)
      }
      if (newPhase) bar.render()
      newPhase = false
    },
    clearLine() {
      if (started) stream.write('\r\x1b[K')
    },
    stop() {
      if (started) bar.stop()
      started = false
    },
  }
}
