// The build `npm run bench` compares against: a revision of this clone's own history (LMT_BENCH_BASE, c166b8b by
// default) exported with `git archive`, installed from its own lockfile (it has dependencies of its own: that build
// bundled @oclif/core with esbuild) and built with its own scripts, in ~/.cache/lmt-bench/<commit> (LMT_BENCH_CACHE
// for another folder). Outside the checkout: TypeScript will not emit declarations from under a node_modules
// folder, and the checkout's linters and test runner would find a second source tree. The next run reuses it.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {ROOT} from './harness.mjs'

export const DEFAULT_BASE = 'c166b8b'

const git = (...args) => spawnSync('git', ['-C', ROOT, ...args], {encoding: 'utf8'})

/** The full commit id of `rev` in this clone, or an Error whose message says what to do. */
export function resolveBase(rev = process.env.LMT_BENCH_BASE || DEFAULT_BASE) {
  const res = git('rev-parse', '--verify', '--quiet', `${rev}^{commit}`)
  if (res.status === 0) return res.stdout.trim()
  const shallow = git('rev-parse', '--is-shallow-repository').stdout.trim() === 'true'
  const noRepo = git('rev-parse', '--git-dir').status !== 0
  return new Error(
    noRepo
      ? `error: ${ROOT} is not a git clone, so the baseline build ${rev} cannot be made from its history\n` +
          'hint: run the bench in a clone of the repository (git clone, not an unpacked package)'
      : `error: the baseline revision ${rev} is not in this clone's history${shallow ? ' (the clone is shallow)' : ''}\n` +
          `hint: ${shallow ? 'git fetch --unshallow, or ' : ''}set LMT_BENCH_BASE to a commit this clone has`,
  )
}

function step(what, cmd, args, cwd, log) {
  process.stderr.write(`baseline: ${what}\n`)
  const res = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1'},
  })
  writeFileSync(log, `$ ${cmd} ${args.join(' ')}\n${res.stdout}${res.stderr}\n`, {flag: 'a'})
  if (res.status !== 0)
    throw new Error(
      `baseline: ${what} failed (exit ${res.status}); the log is ${log}\n${res.stderr.slice(-2000)}`,
    )
}

/**
 * The folder of the baseline build of `commit` (its bin/run.js runs it), built first if no finished build is
 * there. Its install runs no package scripts: the prebuilt binaries it needs (esbuild's, the tokenizers') come as
 * packages of their own.
 */
export function ensureBaseline(commit) {
  const cache =
    process.env.LMT_BENCH_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lmt-bench')
  const dir = join(cache, commit)
  const marker = join(dir, '.lmt-bench-built')
  if (existsSync(marker)) return dir
  // a folder without the marker is a build that did not finish: made anew
  rmSync(dir, {recursive: true, force: true})
  mkdirSync(dir, {recursive: true})
  const log = `${dir}.log`
  writeFileSync(log, '')
  step(
    `exporting ${commit.slice(0, 12)} into ${dir}`,
    'sh',
    ['-c', `git -C "${ROOT}" archive ${commit} | tar -x -C "${dir}"`],
    dir,
    log,
  )
  step(
    'npm ci (its own dependencies)',
    'npm',
    ['ci', '--ignore-scripts', '--no-audit', '--no-fund'],
    dir,
    log,
  )
  step('npm run build', 'npm', ['run', 'build'], dir, log)
  writeFileSync(marker, commit + '\n')
  process.stderr.write(`baseline: built in ${dir}\n`)
  return dir
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const commit = resolveBase()
  if (commit instanceof Error) {
    process.stderr.write(commit.message + '\n')
    process.exit(1)
  }
  process.stdout.write(ensureBaseline(commit) + '\n')
}
