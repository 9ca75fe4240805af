// The checks every command makes on the paths it writes, before any work: an existing output that is not a regular
// file (a device, a FIFO, a socket) is refused, since renaming a finished file over it would destroy it; missing
// folders are created one level at a time, so that a level the kernel refuses (under /proc or /sys) is a coded
// error naming it (Node's recursive mkdir retries such a level forever); file-system errors say what is wrong.
import {mkdirSync, realpathSync, statSync, type Stats} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {LmtError, lmtError, OUTPUT_WRITE_HINT} from '../errors.js'

/** The catalogue codes of the commands' output failures. */
export type OutputErrorKind =
  'CONVERT_OUTPUT_FAILED' | 'SIM_OUTPUT_FAILED' | 'REPLAY_OUTPUT_FAILED' | 'REPORT_OUTPUT_FAILED'

const REASONS: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'is a folder',
  ENOENT: 'no such file or folder',
  ENAMETOOLONG: 'file name too long',
  EIO: 'input/output error',
}

/** What a file-system error means, in words, with its code: "read-only file system (EROFS)". */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  const reason = e.code === undefined ? undefined : REASONS[e.code]
  return reason === undefined ? String(e.message ?? err) : `${reason} (${e.code})`
}

/** What to do about a file-system error. */
export function fsErrorHint(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'EROFS':
      return 'that file system is mounted read-only: choose an output path on a writable disk'
    case 'EACCES':
    case 'EPERM':
      return 'choose an output path in a folder you may write to, or change its permissions'
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return 'free some space on that disk, or choose an output path on another one'
    default:
      return OUTPUT_WRITE_HINT
  }
}

/** The coded error of a failed output operation: `<what>: <reason>`, with what to do about it. */
export function outputError(kind: OutputErrorKind, what: string, err: unknown): LmtError {
  if (err instanceof LmtError) return err
  return lmtError(kind, what, describeFsError(err), {suggestions: [fsErrorHint(err)], cause: err})
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw err
  }
}

/** Whether `path` is a folder (false when nothing is there). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isSocket()) return 'a socket'
  return 'not a file'
}

/**
 * Throws OUTPUT_NOT_REGULAR (a usage error, exit 2) when `path` exists and is not a regular file (a link is
 * followed: a link to a device is refused too). A path that does not exist yet, or a regular file, passes.
 */
export function refuseNonRegularOutput(path: string, kind: OutputErrorKind = 'CONVERT_OUTPUT_FAILED'): void {
  let st: Stats | undefined
  try {
    st = statOrUndefined(path)
  } catch (err) {
    throw outputError(kind, `cannot check the output ${path}`, err)
  }
  if (st === undefined || st.isFile()) return
  throw lmtError('OUTPUT_NOT_REGULAR', path, kindOf(st), {
    suggestions: ['choose an output path that does not exist yet or is a regular file'],
  })
}

/** The path with its symbolic links resolved, or only made absolute when it does not exist (yet). */
export function realOrResolved(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** True when `a` and `b` are one file: the same device and inode, links followed (a hard link is the file too). */
export function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a, {bigint: true})
    const y = statSync(b, {bigint: true})
    return x.dev === y.dev && x.ino === y.ino
  } catch {
    return false // one of them does not exist (yet): not the same file
  }
}

/**
 * Throws OUTPUT_IS_INPUT (a usage error, exit 2) when the output `path` is one of `inputs` (as {@link sameFile}
 * says): writing it would destroy the input the run reads. `-` (standard input) is no file.
 */
export function refuseOutputIsInput(path: string, inputs: readonly (string | undefined)[]): void {
  for (const input of inputs) {
    if (input === undefined || input === '-' || !sameFile(path, input)) continue
    throw lmtError('OUTPUT_IS_INPUT', path, input, {
      suggestions: ['choose an output path that is not one of the inputs'],
    })
  }
}

/**
 * Makes sure folder `dir` exists, creating the missing levels one at a time; a level that cannot be created, or a
 * part of the path that is not a folder, is a coded error of `kind` naming that level.
 */
export function ensureDirectory(dir: string, kind: OutputErrorKind): void {
  const missing: string[] = []
  let level = resolve(dir)
  for (;;) {
    let st: Stats | undefined
    try {
      st = statOrUndefined(level)
    } catch (err) {
      throw outputError(kind, `cannot check the folder ${level}`, err)
    }
    if (st?.isDirectory()) break
    if (st !== undefined)
      throw lmtError(kind, `cannot create the folder ${dir}`, `${level} exists and is not a folder`, {
        suggestions: ['choose an output path whose folders are folders'],
      })
    missing.push(level)
    const parent = dirname(level)
    if (parent === level) break
    level = parent
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isFolder(m)) continue // made meanwhile
      throw creationError(kind, `cannot create the folder ${m}`, m, err)
    }
  }
}

/**
 * The coded error of a file or folder `path` that could not be created: ENOENT although its folder exists means a
 * file system that allows no new entries there (/proc, /sys), said so.
 */
export function creationError(kind: OutputErrorKind, what: string, path: string, err: unknown): LmtError {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT' && isFolder(dirname(path)))
    return lmtError(kind, what, 'the file system does not allow new files or folders there (ENOENT)', {
      suggestions: ['choose an output path on an ordinary disk (not under /proc or /sys)'],
      cause: err,
    })
  return outputError(kind, what, err)
}

const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG'])

/** True for the errors of a disk that takes no more data (full, over quota, read-only): an output failure. */
export function isDiskFullOrReadOnly(err: unknown): boolean {
  return DISK_ERRORS.has((err as NodeJS.ErrnoException)?.code ?? '')
}

/** True for a plain file-system error (an errno code and a system call), which an output operation raised. */
export function isFsError(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException
  return typeof e?.code === 'string' && typeof e.syscall === 'string' && !(err instanceof LmtError)
}
