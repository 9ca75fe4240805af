import {lstatSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
export {tempPathBeside} from '../util/atomic-write.js'

// Temporary files of a conversion carry the process id: when a process ends without cleaning up (killed, or a
// plugin's code ended it), the next conversion into the same folder recognises them and removes them, but never
// those of a process that is still running.

/** Prefix of the private directory of a run (mkdtemp appends six characters). */
export function tempDirPrefix(outDir: string): string {
  return join(outDir, `.lmt-convert-${process.pid}-`)
}

const TEMP_DIR = /^\.lmt-convert-(\d+)-[A-Za-z0-9]{6}$/
const TEMP_FILE = /^\..+\.lmt-tmp-(\d+)-[0-9a-f]{12}$/

function processGone(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Removes the temporary files and directories in `dir` left by conversions whose process is gone; their count. */
export function removeStaleTemps(dir: string): number {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const isDir = TEMP_DIR.exec(name)
    const match = isDir ?? TEMP_FILE.exec(name)
    if (!match || !processGone(Number(match[1]))) continue
    const path = join(dir, name)
    try {
      const st = lstatSync(path)
      if (isDir ? !st.isDirectory() : !st.isFile()) continue // never follow or remove anything else
      rmSync(path, {recursive: Boolean(isDir), force: true})
      removed++
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed
}
