// Output files that are never seen half-written, and temporaries nobody can aim: the data goes to a temporary file
// beside the target, created exclusively (O_CREAT|O_EXCL: a link or file someone put at that name is never followed
// or reused) under a name nobody can predict (`.<name>.lmt-tmp-<pid>-<12 random hex>`), then renamed over the target
// once complete (a rename within one directory is atomic and replaces a link at the target, never its target). A
// failure removes the temporary file. The process id in the name lets a later run recognise the temporaries of a
// process that died (src/convert/stale-temps.ts) and remove them, never those of one that still runs.
import {randomBytes} from 'node:crypto'
import {closeSync, openSync, renameSync, rmSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

/** A fresh temporary path beside `path`: `.<name>.lmt-tmp-<pid>-<12 hex>` (not created: see {@link openTempBeside}). */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.lmt-tmp-${process.pid}-${randomBytes(6).toString('hex')}`)
}

const TEMP_NAME = /^\.(.+)\.lmt-tmp-\d+-[0-9a-f]{12}$/

/** The file a temporary of {@link tempPathBeside} stands for (what a message names); other paths as they are. */
export function targetOfTemp(path: string): string {
  const m = TEMP_NAME.exec(basename(path))
  return m ? join(dirname(path), m[1]) : path
}

/** How many fresh names are tried when one exists already (a planted file at a random name: practically never). */
const NAME_TRIES = 16

/**
 * Creates a new, empty temporary file beside `path`, exclusively (never through a link or over a file that is
 * there), and opens it for writing; its path and descriptor. Throws the file system's error.
 */
export function openTempBeside(path: string): {tmp: string; fd: number} {
  for (let attempt = 1; ; attempt++) {
    const tmp = tempPathBeside(path)
    try {
      return {tmp, fd: openSync(tmp, 'wx', 0o666)}
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= NAME_TRIES) throw err
    }
  }
}

/** Writes all of `data` to `fd` (a write may take less than it was given). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  let off = 0
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off)
}

/**
 * Writes `data` to a fresh temporary file beside `path` ({@link openTempBeside}) and closes it; the temporary's path,
 * for the caller to rename (nothing is left behind when this throws).
 */
export function writeTempBeside(path: string, data: string | Uint8Array): string {
  const {tmp, fd} = openTempBeside(path)
  try {
    try {
      writeAll(fd, data)
    } finally {
      closeSync(fd)
    }
  } catch (err) {
    rmSync(tmp, {force: true})
    throw err
  }
  return tmp
}

/** Writes `data` to `path` through a temporary file ({@link writeTempBeside}); throws the file system's error, with nothing left behind. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = writeTempBeside(path, data)
  try {
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, {force: true})
    throw err
  }
}
