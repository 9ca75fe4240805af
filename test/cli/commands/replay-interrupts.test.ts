// lmt replay under signals and failing writes, through the built CLI: Ctrl-C is answered within a second, and every
// file it writes is whole or absent (the --jsonl-out log excepted: it is put in place as far as it got).
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {writeCycleTrace} from '../../bench/gen-storage-trace.js'
import {BIN, spawnLmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU']
const BIG = join(tmp.dir, 'big.lct')
const SMALL = join(tmp.dir, 'small.lct')
const OLD = 'the previous recording\n'

beforeAll(async () => {
  // a replay of several seconds (about 1 µs a record, more on a loaded machine)
  await writeCycleTrace(BIG, {records: 300_000})
  await writeCycleTrace(SMALL, {records: 3000}) // ~1.3 MB: its re-recording is far above the file-size limit below
})

/** A fresh directory with an earlier --record file in it. */
function outputDir(name: string): {dir: string; rec: string} {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'rec.lct'), OLD)
  return {dir, rec: join(dir, 'rec.lct')}
}

describe('lmt replay interrupted', () => {
  it.each([
    ['SIGINT', 130, []],
    ['SIGTERM', 143, ['--json']],
  ] as const)(
    '%s: exit %i within 2 s, the old --record file untouched, no temporary file (%j)',
    async (sig, exit, extra) => {
      const {dir, rec} = outputDir(sig)
      const logDir = join(tmp.dir, `${sig}-log`)
      const log = join(logDir, 'records.jsonl')
      const child = spawnLmt([
        'replay',
        BIG,
        ...FLAGS,
        '--output-dir',
        dir,
        '--record',
        rec,
        '--jsonl-out',
        log,
        ...extra,
      ])
      let stderr = ''
      let stdout = ''
      child.stderr.on('data', (d) => (stderr += d))
      child.stdout.on('data', (d) => (stdout += d))
      const closed = new Promise<[number | null, NodeJS.Signals | null]>((res) =>
        child.on('close', (c, s) => res([c, s])),
      )
      // the replay is under way once the log (a temporary file beside its path until the end) has lines (the
      // first chunk of 64 KiB)
      const logged = () =>
        existsSync(logDir) &&
        readdirSync(logDir).some(
          (n) => n.startsWith('.records.jsonl.lmt-tmp-') && statSync(join(logDir, n)).size > 0,
        )
      const started = performance.now()
      while (!logged() && performance.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20))
      expect(logged()).toBe(true)
      // the recording is on its way beside rec.lct
      expect(readdirSync(dir).length).toBe(2)
      const sent = performance.now()
      child.kill(sig)
      const [code, signal] = await closed
      const ms = performance.now() - sent
      expect({code, signal}).toEqual({code: exit, signal: null})
      expect(ms).toBeLessThan(2000)
      if (extra.length === 0) expect(stderr).toContain(`error: interrupted by ${sig}`)
      // under --json the error document on stdout
      else
        expect(JSON.parse(stdout)).toEqual({
          error: {code: 'LMT_CLI_INTERRUPTED', message: `interrupted by ${sig}`, exitCode: exit},
        })
      expect(readFileSync(rec, 'utf8')).toBe(OLD)
      expect(readdirSync(dir)).toEqual(['rec.lct'])
      // the log holds the records handled, each line whole
      const lines = readFileSync(log, 'utf8').split('\n')
      expect(lines.pop()).toBe('')
      expect(lines.length).toBeGreaterThan(0)
      for (const l of lines.slice(-3)) expect(JSON.parse(l)).toHaveProperty('qualname')
      expect(readdirSync(logDir)).toEqual(['records.jsonl'])
    },
  )
})

/** Runs the built CLI with a file-size limit: a write past it fails (EFBIG), as on a full disk. */
function lmtLimited(args: string[], kib: number) {
  const res = spawnSync(
    '/bin/sh',
    ['-c', `ulimit -f ${kib * 2} && exec "$0" "$@"`, process.execPath, BIN, ...args],
    {encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
  )
  return {stdout: res.stdout, stderr: res.stderr, exitCode: res.status}
}

describe('lmt replay with writes that fail', () => {
  it('--record: exit 1 with REPLAY_OUTPUT_FAILED, the old file untouched, no temporary file', () => {
    const {dir, rec} = outputDir('record-fails')
    const r = lmtLimited(['replay', SMALL, ...FLAGS, '--output-dir', dir, '--record', rec], 128)
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(
      new RegExp(
        `error: cannot write the --record file ${rec.replace(/[.]/g, '\\.')} \\(a file already at that path is left as it was\\): file too large \\(EFBIG\\)`,
      ),
    )
    expect(readFileSync(rec, 'utf8')).toBe(OLD)
    // the replay ended at the failure: no summary either
    expect(readdirSync(dir)).toEqual(['rec.lct'])
    const j = lmtLimited(['replay', SMALL, ...FLAGS, '--output-dir', dir, '--record', rec, '--json'], 128)
    expect(JSON.parse(j.stdout).error).toMatchObject({code: 'LMT_REPLAY_OUTPUT_FAILED', exitCode: 1})
    expect(readdirSync(dir)).toEqual(['rec.lct'])
  })

  it('--jsonl-out: exit 1 with REPLAY_OUTPUT_FAILED; the log is kept as far as it got', () => {
    const {dir} = outputDir('log-fails')
    const log = join(dir, 'records.jsonl')
    const r = lmtLimited(['replay', SMALL, ...FLAGS, '--output-dir', dir, '--jsonl-out', log, '--json'], 64)
    expect(r.exitCode).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.error).toMatchObject({code: 'LMT_REPLAY_OUTPUT_FAILED', exitCode: 1})
    expect(doc.error.message).toMatch(/^cannot write --jsonl-out .*records\.jsonl: file too large \(EFBIG\)/)
    expect(statSync(log).size).toBeLessThanOrEqual(64 * 1024)
    expect(existsSync(join(dir, 'trace_replay_ops.csv'))).toBe(false)
  })
})
