// One writer at a time per output folder while a set of outputs is put in place. Two runs that write the same
// set of files (two `lmt simulate -o out` at once) each write their own temporaries; only their renames must not
// interleave, or the folder would end up with one run's summary beside the other's CSVs. The lock is a file,
// `.lmt-lock` in the folder, created exclusively (O_EXCL: never through a link) and holding the owner's process id;
// a lock whose process is gone (killed while it held it) is removed by the next writer. It is held only for the
// renames (milliseconds), so a writer that finds it waits.
import {closeSync, lstatSync, openSync, readFileSync, rmSync, writeSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {processGone} from './stale-entries.js'

const LOCK_NAME = '.lmt-lock'

/** How long a writer waits for another one's renames before it gives up. */
const WAIT_MS = 30_000
const POLL_MS = 5

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** The lock's owner, or undefined when what is at the lock's name is not a lock file (a link, a folder). */
function ownerOf(lock: string): number | undefined {
  try {
    if (!lstatSync(lock).isFile()) return undefined
    const text = readFileSync(lock, 'utf8').trim()
    return /^\d+$/.test(text) ? Number(text) : 0 // empty: its owner is still writing its id (or died doing so)
  } catch {
    return -1 // gone meanwhile: try again
  }
}

/** The error of a folder that stayed locked (the caller makes its coded error of it). */
function lockedError(folder: string, reason: string): Error {
  return new Error(`${folder}: ${reason}`)
}

function acquire(folder: string): string {
  const lock = join(folder, LOCK_NAME)
  const deadline = Date.now() + WAIT_MS
  let emptySince: number | undefined
  for (;;) {
    let fd: number | undefined
    try {
      fd = openSync(lock, 'wx', 0o644)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`)
      } finally {
        closeSync(fd)
      }
      return lock
    }
    const owner = ownerOf(lock)
    if (owner === undefined) throw lockedError(folder, `${lock} is not a lock file lmt made (remove it)`)
    // a lock left by a process that is gone; an empty one older than a second (its owner died before writing)
    if (owner === 0) emptySince ??= Date.now()
    else emptySince = undefined
    const stale =
      (owner > 0 && processGone(owner)) || (emptySince !== undefined && Date.now() - emptySince > 1000)
    if (stale) {
      rmSync(lock, {force: true})
      continue
    }
    if (Date.now() > deadline)
      throw lockedError(folder, `another lmt (process ${owner}) is writing its outputs there`)
    sleepSync(POLL_MS)
  }
}

/**
 * Runs `fn` holding the lock of every folder in `folders` (taken in one order, so two writers never wait on each
 * other); synchronous, like the renames it guards. Throws the error of a folder that stayed locked, or a file-system error, when a
 * lock cannot be taken.
 */
export function withOutputLock<T>(folders: readonly string[], fn: () => T): T {
  const held: string[] = []
  try {
    for (const f of [...new Set(folders.map((d) => resolve(d)))].sort()) held.push(acquire(f))
    return fn()
  } finally {
    for (const lock of held.reverse()) rmSync(lock, {force: true})
  }
}
