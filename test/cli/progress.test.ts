import {Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {createProgressBar, durationText, isSilent, renderProgressLine} from '../../src/cli/progress.js'

/** A stream that says it is a terminal and keeps what is written to it. */
function fakeTty(isTTY = true, columns = 100): NodeJS.WriteStream & {text: () => string} {
  const chunks: string[] = []
  const s = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk))
      done()
    },
  }) as unknown as NodeJS.WriteStream & {text: () => string}
  Object.assign(s, {isTTY, columns, text: () => chunks.join('')})
  return s
}

// eslint-disable-next-line no-control-regex -- terminal escapes are what is stripped
const plain = (s: string) => s.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '')

describe('progress line', () => {
  it('shows bytes done, the rate and the ETA computed from them', () => {
    // 1.5 MB of 3 MB in 0.5 s: 3 MB/s, 1.5 MB left → 0.5 s → ETA 0:01 (rounded)
    const line = renderProgressLine(
      {label: 'converting', unit: 'bytes', done: 1.5e6, total: 3e6, note: '12,000 traces', elapsedMs: 500},
      100,
    )
    expect(line).toBe(
      'converting [' +
        '█'.repeat(15) +
        '░'.repeat(15) +
        '] 50%  1.5/3.0 MB  12,000 traces  3.0 MB/s  ETA 0:01',
    )
  })

  it('counts records and sweep points', () => {
    const rec = renderProgressLine(
      {label: 'replaying', unit: 'records', done: 36000, total: 72000, elapsedMs: 2000},
      100,
    )
    expect(rec).toContain('36,000/72,000 records  18.0k records/s  ETA 0:02')
    const pts = renderProgressLine(
      {label: 'sweep', unit: 'points', done: 12, total: 30, elapsedMs: 4000},
      100,
    )
    expect(pts).toContain('40%  point 12/30  3.0 points/s  ETA 0:06')
  })

  it('has no rate or ETA before any work is done, and fits a narrow terminal', () => {
    const line = renderProgressLine(
      {label: 'reading', unit: 'bytes', done: 0, total: 5e8, note: 'a long note of rows', elapsedMs: 0},
      60,
    )
    expect(line).toContain('--/s  ETA --')
    expect(line).not.toContain('a long note') // dropped first
    expect(line.length).toBeLessThan(60)
  })

  it('formats durations', () => {
    expect([durationText(7), durationText(65), durationText(3723)]).toEqual(['0:07', '1:05', '1:02:03'])
  })
})

describe('progress bar', () => {
  it('draws on a terminal, phase by phase, and clears its line at the end', () => {
    const tty = fakeTty()
    let t = 0
    const bar = createProgressBar({
      enabled: true,
      label: 'converting',
      unit: 'bytes',
      stream: tty,
      now: () => t,
    })
    t = 1000
    bar.update(1e6, 4e6, '5 traces')
    const first = plain(tty.text())
    expect(first).toContain('converting [')
    expect(first).toContain('25%  1.0/4.0 MB  5 traces  1.0 MB/s  ETA 0:03')
    bar.phase('writing .lct', 'bytes')
    t = 1500
    bar.update(2e6, 2e6, () => '7 records') // a note made when drawn
    bar.stop()
    const all = plain(tty.text())
    expect(all).toContain('writing .lct [')
    expect(all).toContain('100%  2.0/2.0 MB  7 records  4.0 MB/s  ETA 0:00') // the rate of this phase alone
    expect(isSilent(bar)).toBe(false)
    expect(tty.text().endsWith('\x1b[2K')).toBe(true) // the line is cleared, the cursor shown again before it
    expect(tty.text()).toContain('\x1b[?25h')
  })

  it('writes nothing when the stream is not a terminal, or when disabled', () => {
    for (const [tty, enabled] of [
      [fakeTty(false), true],
      [fakeTty(true), false],
    ] as const) {
      const bar = createProgressBar({enabled, label: 'x', unit: 'records', stream: tty})
      expect(isSilent(bar)).toBe(true) // its callers may skip building notes
      bar.update(1, 2)
      bar.update(2, 2, () => expect.unreachable('a hidden bar makes no note'))
      bar.clearLine()
      bar.stop()
      expect(tty.text()).toBe('')
    }
  })
})
