// Runs a build's CLI as a child process and measures the whole command: wall time, CPU time (user + system, all
// its threads and any process it starts) and peak RSS.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const GNU_TIME = '/usr/bin/time'
const HOOK = join(ROOT, 'test', 'bench', 'rss-hook.mjs')

/**
 * How commands are measured: GNU time (Debian's `time` package) sees the whole process tree; without it, a hook
 * loaded with `node --import` reads the process's own resource usage at exit.
 */
export const MEASURED_BY = existsSync(GNU_TIME) ? 'GNU time' : 'node --import rss-hook.mjs'

/**
 * Runs `node <build>/bin/run.js <args>`; returns wall seconds, CPU seconds, peak RSS in MiB, stdout and stderr.
 * Throws when the command fails.
 */
export function timeCommand(build, args, {env = {}} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lmt-bench-'))
  const usage = join(dir, 'usage')
  const bin = join(build, 'bin', 'run.js')
  const [cmd, argv] =
    MEASURED_BY === 'GNU time'
      ? [GNU_TIME, ['-f', '%M %U %S', '-o', usage, process.execPath, bin, ...args]]
      : [process.execPath, ['--import', HOOK, bin, ...args]]
  const start = process.hrtime.bigint()
  const res = spawnSync(cmd, argv, {
    env: {...process.env, NO_COLOR: '1', LMT_BENCH_RSS_FILE: usage, ...env},
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  try {
    if (res.status !== 0)
      throw new Error(`${bin} ${args.join(' ')} exited ${res.status ?? res.signal}\n${res.stderr}`)
    // GNU time: `<KiB> <user s> <system s>`; the hook: `<KiB> <user µs> <system µs>`
    const [kib, user, system] = readFileSync(usage, 'utf8').trim().split('\n').pop().split(' ').map(Number)
    const cpuSeconds = MEASURED_BY === 'GNU time' ? user + system : (user + system) / 1e6
    return {seconds, cpuSeconds, rssMb: kib / 1024, stdout: res.stdout, stderr: res.stderr}
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** `lmt <args>` of this checkout's build, with the parsed --json output when `json` is set. */
export function runLmt(args, {json = false} = {}) {
  const r = timeCommand(ROOT, [...args, ...(json ? ['--json'] : [])])
  return {...r, output: json ? JSON.parse(r.stdout) : undefined}
}
