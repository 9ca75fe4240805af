// handleInterrupts: a job's signal is answered (130/143), a signal just after the job in a CLI process is let pass
// (its outputs are in place), and with no job a signal has its usual effect.
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const MODULE = join(ROOT, 'dist', 'src', 'cli', 'interrupts.js')

function run(body: string) {
  const script = `const m = await import(${JSON.stringify(MODULE)}); ${body}`
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
}

describe('handleInterrupts', () => {
  it('a signal during the job: cleanup, the report, exit 130 (SIGINT) or 143 (SIGTERM)', () => {
    for (const [sig, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const r = run(
        `m.handleInterrupts({json: false, cleanup: () => process.stdout.write('cleaned ')});` +
          `process.kill(process.pid, '${sig}'); setTimeout(() => {}, 5000)`,
      )
      expect({status: r.status, out: r.stdout, err: r.stderr}).toEqual({
        status: code,
        out: 'cleaned ',
        err: `error: interrupted by ${sig}\n`,
      })
    }
  })

  it('in a CLI process, a signal just after the job finished is let pass: the command ends with its own status', () => {
    const r = run(
      `m.letLateSignalsPass(); const stop = m.handleInterrupts({json: false, cleanup() {}});` +
        `stop(); process.kill(process.pid, 'SIGINT'); setTimeout(() => process.exit(0), 200)`,
    )
    expect({status: r.status, signal: r.signal}).toEqual({status: 0, signal: null})
  })

  it('embedded (no letLateSignalsPass), a signal after the job has its usual effect', () => {
    const r = run(
      `const stop = m.handleInterrupts({json: false, cleanup() {}});` +
        `stop(); process.kill(process.pid, 'SIGINT'); setTimeout(() => process.exit(0), 2000)`,
    )
    expect({status: r.status, signal: r.signal}).toEqual({status: null, signal: 'SIGINT'})
  })
})
