// Temporaries carry the id of the process that made them: when a process ends without cleaning up (killed, or a
// plugin's code ended it), a later run recognises what it left and removes it, never what a live process holds.
import {lstatSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'

/** The process `pid` has ended (this process never has; an id that cannot be a process is gone). */
export function processGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/**
 * Removes the directories and files of `dir` whose names match and whose owner is gone (the first capture group of
 * each pattern is the owner's process id); how many. An entry of the other kind (a link, a file named like a
 * directory) is never followed or removed.
 */
export function removeStaleEntries(dir: string, names: {dirs?: RegExp; files?: RegExp}): number {
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of entries) {
    const asDir = names.dirs?.exec(name)
    const match = asDir ?? names.files?.exec(name)
    if (!match || !processGone(Number(match[1]))) continue
    const path = join(dir, name)
    try {
      const st = lstatSync(path)
      if (asDir ? !st.isDirectory() : !st.isFile()) continue
      rmSync(path, {recursive: Boolean(asDir), force: true})
      removed++
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed
}
