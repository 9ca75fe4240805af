// A set of output files replaced together or not at all. Every new file is complete (a temporary beside its
// target) before the first rename; the renames then run in one synchronous loop: a SIGINT/SIGTERM handler (which
// runs on the event loop) cannot run between two of them. Before renaming, every target that exists is hard-linked
// (or copied) to a backup; a rename that fails puts the renamed targets back from their backups (or removes them
// when they are new), so the set stays the old one. Only a crash of the process (SIGKILL, power loss) in the loop
// could leave a mix; the `.<name>.lmt-old-…` backups it would leave beside the targets hold the old files. Backups
// get fresh names nobody can predict and are created exclusively (a hard link, or a copy that never follows a link
// at its name). The renames run under the lock of the targets' folders (output-lock.ts): two runs that replace the
// same set at once leave one run's set, never a mix.
import {randomBytes} from 'node:crypto'
import {constants, copyFileSync, existsSync, linkSync, renameSync, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {withOutputLock} from './output-lock.js'
import {refuseNonRegularOutput} from './output-path.js'

export interface Replacement {
  /** the complete new file */
  tmp: string
  /** where it goes */
  path: string
}

/** A fresh name for the backup of a target during {@link replaceAsSet}. */
export function backupPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.lmt-old-${process.pid}-${randomBytes(6).toString('hex')}`)
}

function backUp(path: string): string | undefined {
  if (!existsSync(path)) return undefined
  const backup = backupPathFor(path)
  try {
    linkSync(path, backup)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err
    copyFileSync(path, backup, constants.COPYFILE_EXCL) // a file system without hard links
  }
  return backup
}

/**
 * Renames every `tmp` over its `path`, all or none (see the file comment). Throws the file system's error (or a
 * coded OUTPUT_NOT_REGULAR when a target became a device) with the old files in place; the temporaries are
 * removed either way.
 */
export function replaceAsSet(set: readonly Replacement[]): void {
  try {
    withOutputLock(
      set.map((r) => dirname(r.path)),
      () => replaceAsSetLocked(set),
    )
  } finally {
    for (const r of set) rmSync(r.tmp, {force: true})
  }
}

function replaceAsSetLocked(set: readonly Replacement[]): void {
  const backups: Array<string | undefined> = []
  let renamed = 0
  try {
    for (const r of set) refuseNonRegularOutput(r.path)
    for (const r of set) backups.push(backUp(r.path))
    for (; renamed < set.length; renamed++) renameSync(set[renamed].tmp, set[renamed].path)
  } catch (err) {
    for (let i = renamed - 1; i >= 0; i--) {
      const backup = backups[i]
      try {
        if (backup === undefined) rmSync(set[i].path, {force: true})
        else renameSync(backup, set[i].path)
        backups[i] = undefined
      } catch {
        // the backup stays where it is: it holds the old file
      }
    }
    throw err
  } finally {
    for (const r of set) rmSync(r.tmp, {force: true})
    for (let i = 0; i < backups.length; i++) {
      const b = backups[i]
      if (b !== undefined && (renamed === set.length || i >= renamed)) rmSync(b, {force: true})
    }
  }
}
