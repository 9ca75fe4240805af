import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, FIXTURES, ROOT, lmtProcess, tempDir} from '../../helpers/cli.js'
import {itSlow} from '../../helpers/slow.js'

const SAMPLE = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
const LCT = join(ROOT, 'samples', 'lct', 'v2_full_prefetch_cycle.lct')
const hasScript = spawnSync('script', ['--version']).status === 0

/** Runs lmt in a pseudo-terminal (util-linux `script`); returns the terminal's transcript, escapes stripped. */
function inTerminal(args: string[], cwd: string): {text: string; status: number | null} {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const cmd = 'stty cols 120 2>/dev/null; ' + [process.execPath, BIN, ...args].map(quote).join(' ')
  const r = spawnSync('script', ['-qfec', cmd, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
  })
  // eslint-disable-next-line no-control-regex -- terminal escapes are what is stripped
  const text = r.stdout.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '').replace(/\r/g, '\n')
  return {text, status: r.status}
}

let tmp: {dir: string; cleanup: () => void}
beforeAll(() => {
  tmp = tempDir()
})
afterAll(() => tmp.cleanup())

describe.skipIf(!hasScript)('progress bars in a terminal', () => {
  itSlow('convert shows bytes, the trace count, rate and ETA, then the .lct phase', () => {
    const r = inTerminal(
      ['convert', '-i', SAMPLE, '-f', 'mooncake', '--mode', 'lct', '-o', 'mc.lct', '--l1-size-gb', '8'],
      tmp.dir,
    )
    expect(r.status).toBe(0)
    expect(r.text).toMatch(
      /converting \[[█░]+\] \d+% {2}[\d.]+\/3\.0 MB {2}[\d,]+ traces {2}(--|[\d.]+ MB)\/s {2}ETA/,
    )
    // the trace count moves while reading (it used to stay at 0 until the bar was cleared)
    expect(r.text).toMatch(/converting .* (?!0 traces)[1-9][\d,]* traces/)
    expect(r.text).toMatch(/writing \.lct \[[█░]+\] \d+% {2}[\d.]+\/16\.\d MB {2}[\d,]+ records/)
  })

  it('replay shows a bar (bytes of the trace, records so far)', () => {
    const r = inTerminal(
      ['replay', LCT, '--l1-size-gb', '0.0625', '--eviction-policy', 'LRU', '--no-csv'],
      tmp.dir,
    )
    expect(r.status).toBe(0)
    expect(r.text).toMatch(/replaying \[[█░]+\] 100% {2}3\.4\/3\.4 kB {2}\d+ records/)
  })

  it('trace info counts with a bar (bytes, records)', () => {
    const r = inTerminal(['trace', 'info', LCT], tmp.dir)
    expect(r.status).toBe(0)
    expect(r.text).toMatch(/counting \[[█░]+\] 100% {2}3\.4\/3\.4 kB {2}\d+ records/)
  })

  it("a sweep's bar reads the trace, then counts points", () => {
    const trace = join(FIXTURES, 'simulate', 'A', 'trace.jsonl')
    const r = inTerminal(
      ['simulate', '--trace', trace, '--block-size', '4', '--sweep', '--sweep-points', '4', '-o', 'sw'],
      tmp.dir,
    )
    expect(r.status).toBe(0)
    expect(r.text).toMatch(/reading \[[█░]+\] \d+% .* \d+ rows/)
    expect(r.text).toMatch(/sweep \[[█░]+\] \d+% {2}point \d\/\d/)
    expect(r.text).not.toMatch(/ 0 rows.*point|point.*rows/)
  })
})

describe.skipIf(!hasScript)('progress bars of the passes after reading', () => {
  it("a single run's oracles, and a sweep's infinite-capacity run, have bars of their own", () => {
    const trace = join(FIXTURES, 'simulate', 'A', 'trace.jsonl')
    const one = inTerminal(
      [
        'simulate',
        '--trace',
        trace,
        '--block-size',
        '4',
        '--capacity-blocks',
        '2',
        '--oracle',
        'all',
        '-o',
        'or',
      ],
      tmp.dir,
    )
    expect(one.status).toBe(0)
    expect(one.text).toMatch(/infinite capacity \[[█░]+\] \d+% {2}\d+\/\d+ records/)
    expect(one.text).toMatch(/Belady oracle \[[█░]+\] \d+% {2}\d+\/\d+ records/)
    const sweep = inTerminal(
      ['simulate', '--trace', trace, '--block-size', '4', '--sweep', '--sweep-points', '3', '-o', 'sw2'],
      tmp.dir,
    )
    expect(sweep.status).toBe(0)
    expect(sweep.text).toMatch(/infinite capacity \[[█░]+\] \d+% {2}\d+\/\d+ records/)
  })
})

describe('progress without a terminal', () => {
  it('prints no bar and no control characters when stderr is not a TTY', () => {
    const r = lmtProcess(['convert', '-i', SAMPLE, '-f', 'mooncake', '-o', join(tmp.dir, 'p.jsonl')])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).not.toContain('\x1b')
    expect(r.stderr).not.toContain('converting [')
  })
})

describe('elapsed time', () => {
  itSlow("convert's 'wrote … in N s' covers the whole command, the .lct bridge included", () => {
    const t0 = performance.now()
    const r = lmtProcess([
      'convert',
      '-i',
      SAMPLE,
      '-f',
      'mooncake',
      '--mode',
      'lct',
      '-o',
      join(tmp.dir, 'e.lct'),
      '--l1-size-gb',
      '8',
    ])
    const wall = (performance.now() - t0) / 1000
    expect(r.exitCode).toBe(0)
    const printed = Number(/wrote .*e\.lct in ([\d.]+) s/.exec(r.stderr)?.[1])
    // the figure is the command's time: the wall time less the process start-up (the bridge is most of the
    // run; before, the figure left it out and was a fraction of the wall time)
    expect(printed).toBeLessThanOrEqual(wall)
    expect(printed).toBeGreaterThan(wall * 0.5)
  })
})
