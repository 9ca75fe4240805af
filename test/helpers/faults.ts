// Faults a test puts in an lmt run's way, and what a run may leave behind: a disk that takes no more bytes (the
// process's file-size limit, RLIMIT_FSIZE: every write past it fails with EFBIG, as a full disk fails with
// ENOSPC), and the names of lmt's temporary files (`.<name>.lmt-tmp-<pid>-<hex>`), backups and locks.
import {spawn, spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {BIN, type CliResult, ROOT} from './cli.js'

/** a temporary file of lmt's (src/util/atomic-write.ts), of the file named in group 1 */
export const LMT_TEMP = /^\.(.+)\.lmt-tmp-\d+-[0-9a-f]{12}$/

/** What a run may leave beside its outputs while it works: temporaries, backups of a replaced set, the folder lock. */
export function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((n) => LMT_TEMP.test(n) || /\.lmt-old-/.test(n) || n === '.lmt-lock')
}

/** True when a temporary file of `name` is in `dir` (the output is being written). */
export function hasTempOf(dir: string, name: string): boolean {
  try {
    return readdirSync(dir).some((n) => LMT_TEMP.exec(n)?.[1] === name)
  } catch {
    return false // no folder yet
  }
}

/** The message of a write to a full disk, or to a file past the size limit. */
export const DISK_FULL = /no space left on device \(ENOSPC\)|file too large \(EFBIG\)/

function limited(fileSizeBytes: number, args: string[]): string[] {
  // bash's ulimit counts 1024-byte blocks; node ignores SIGXFSZ, so a write past the limit fails with EFBIG
  return [
    '-c',
    `ulimit -f ${Math.ceil(fileSizeBytes / 1024)} && exec "$0" "$@"`,
    process.execPath,
    BIN,
    ...args,
  ]
}

/** Runs the built CLI with a disk that takes no file beyond `fileSizeBytes` (0: no byte at all). */
export function lmtProcessFull(
  args: string[],
  fileSizeBytes = 0,
  options: {cwd?: string; env?: NodeJS.ProcessEnv} = {},
): CliResult {
  const res = spawnSync('bash', limited(fileSizeBytes, args), {
    cwd: options.cwd ?? ROOT,
    env: {...process.env, NO_COLOR: '1', ...options.env},
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  return {stdout: res.stdout, stderr: res.stderr, exitCode: res.status ?? -1}
}

/** Runs the built CLI in a child process, asynchronously (for several at once); its exit code and output. */
export function lmtAsync(args: string[], cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd, env: {...process.env, NO_COLOR: '1'}})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({stdout, stderr, exitCode: code ?? -1}))
  })
}
