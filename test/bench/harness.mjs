// Runs the built CLI in a child process and measures wall time and peak RSS.
import {spawnSync} from 'node:child_process'
import {performance} from 'node:perf_hooks'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const HOOK = join(ROOT, 'test', 'bench', 'rss-hook.mjs')
const BIN = join(ROOT, 'bin', 'run.js')

/**
 * Runs `lmt <args>`; returns wall seconds, CPU seconds (user + system: the fairer figure on a loaded machine), peak
 * RSS in MB and the parsed --json output (if any).
 */
export function runLmt(args, {json = false} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lmt-bench-'))
  const rssFile = join(dir, 'rss')
  const start = process.hrtime.bigint()
  const res = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args, ...(json ? ['--json'] : [])], {
    env: {...process.env, LMT_BENCH_RSS_FILE: rssFile, NO_COLOR: '1'},
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (res.status !== 0) throw new Error(`lmt ${args.join(' ')} exited ${res.status}\n${res.stderr}`)
  const [rssKb, user, system] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number)
  rmSync(dir, {recursive: true, force: true})
  return {
    seconds,
    cpuSeconds: (user + system) / 1e6,
    rssMb: rssKb / 1024,
    output: json ? JSON.parse(res.stdout) : undefined,
    stderr: res.stderr,
  }
}

export function fmtRate(n, seconds) {
  return `${Math.round(n / seconds).toLocaleString('en-US')}/s`
}

/** Seconds of the fastest of `runs` calls of `fn`, in this process (docs/storage-replay.md §10.2: best of 3). */
export async function bestOf(runs, fn) {
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    best = Math.min(best, (performance.now() - t0) / 1000)
  }
  return best
}

/**
 * Prints `<name>: <records/s> records/s (<MB/s> MB/s)` (docs/storage-replay.md §10.2) and sets exit code 1 below the
 * target, which LMT_BENCH_MIN_RPS lowers on a slow machine.
 */
export function reportRecordRate(name, records, bytes, seconds, defaultTarget) {
  const target = Number(process.env.LMT_BENCH_MIN_RPS ?? defaultTarget)
  const rps = records / seconds
  console.log(`${name}: ${Math.round(rps)} records/s (${(bytes / seconds / 1e6).toFixed(1)} MB/s)`)
  if (rps < target) {
    console.log(`${name}: below the target of ${target.toLocaleString('en-US')} records/s`)
    process.exitCode = 1
  }
}
