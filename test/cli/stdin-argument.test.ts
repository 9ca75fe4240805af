// A missing optional argument from a piped stdin (`echo config.json | lmt simulate`): read from the process's start,
// so that the parse takes what ended by then and does not wait out oclif's 10 ms window again.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {STDIN_MAX_CHARS, STDIN_WINDOW_MS, startStdinProbe} from '../../src/cli/stdin-argument.js'
import {BIN, ROOT} from '../helpers/cli.js'

afterEach(() => {
  vi.useRealTimers()
})

/** a clock the test moves */
function clock(): {now: () => number; at: (t: number) => void} {
  let t = 1000
  return {now: () => t, at: (v) => (t = 1000 + v)}
}

/** whether `p` has settled once the pending callbacks ran */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => (done = true))
  for (let i = 0; i < 5; i++) await Promise.resolve()
  return done
}

describe('stdin as an argument', () => {
  it('takes the lines of a stdin that ended before the parse', async () => {
    const input = new PassThrough()
    const probe = startStdinProbe(input)
    input.end('conf.json\n')
    await new Promise((r) => setImmediate(r))
    expect(await probe.argument()).toBe('conf.json')
  })

  it('does not wait at the parse when the window has passed, and a later end is no argument', async () => {
    vi.useFakeTimers()
    const c = clock()
    const input = new PassThrough() // a pipe that stays open and silent
    const probe = startStdinProbe(input, c.now)
    c.at(STDIN_WINDOW_MS + 40) // the parse, well after the read started
    const arg = probe.argument()
    expect(await settled(arg)).toBe(true) // no timer: nothing is left to wait for
    expect(await arg).toBeUndefined()
    input.end('late.json\n')
    await vi.runAllTimersAsync()
    expect(await probe.argument()).toBeUndefined()
  })

  it('waits what is left of the window when asked early, and takes an end within it', async () => {
    vi.useFakeTimers()
    const c = clock()
    const silent = startStdinProbe(new PassThrough(), c.now)
    c.at(4)
    const none = silent.argument()
    vi.advanceTimersByTime(STDIN_WINDOW_MS - 5)
    expect(await settled(none)).toBe(false)
    vi.advanceTimersByTime(1)
    expect(await none).toBeUndefined()

    const input = new PassThrough()
    const probe = startStdinProbe(input, c.now)
    const arg = probe.argument()
    input.end('  a.json  \n')
    await vi.advanceTimersByTimeAsync(1)
    expect(await arg).toBe('  a.json  ') // trimmed by the caller, as oclif trims it
  })

  it('gives no argument for a terminal or for more than a path could be', async () => {
    const tty = Object.assign(new PassThrough(), {isTTY: true})
    expect(await startStdinProbe(tty).argument()).toBeUndefined()
    const input = new PassThrough()
    const probe = startStdinProbe(input)
    input.end(`${'x'.repeat(STDIN_MAX_CHARS)}\n`)
    expect(await probe.argument()).toBeUndefined()
  })

  it('lmt simulate takes its configuration from a piped stdin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmt-stdin-arg-'))
    try {
      const trace = join(dir, 'one.jsonl')
      writeFileSync(
        trace,
        '{"type": "get", "instance_id": "i", "timestamp_ns": 0, "keys": [1], "input_len": 16}\n',
      )
      const config = JSON.parse(readFileSync(join(ROOT, 'samples', 'optimizer_config.json'), 'utf8'))
      config.instance_groups[0].instances[0].instance_id = 'i'
      config.instance_groups[0].instances[0].block_size = 16
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
      const res = spawnSync(process.execPath, [BIN, 'simulate', '--trace', trace, '-o', 'out', '--json'], {
        cwd: dir,
        input: 'config.json\n',
        encoding: 'utf8',
      })
      expect(res.status, res.stderr).toBe(0)
      const summary = JSON.parse(res.stdout)
      expect(summary.config.instance_groups[0].quota_capacity_blocks).toBe(17090)
      expect(summary.config.eviction_params.eviction_mode).toBe(3)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
