import {join} from 'node:path'
import {removeStaleEntries} from '../util/stale-entries.js'

// Temporary files of a conversion carry the process id: the next conversion into the same folder removes those
// of a process that is gone (src/util/stale-entries.ts).

/** Prefix of the private directory of a run (mkdtemp appends six characters). */
export function tempDirPrefix(outDir: string): string {
  return join(outDir, `.lmt-convert-${process.pid}-`)
}

const TEMP_DIR = /^\.lmt-convert-(\d+)-[A-Za-z0-9]{6}$/
const TEMP_FILE = /^\..+\.lmt-tmp-(\d+)-[0-9a-f]{12}$/

/** Removes the temporary files and directories in `dir` left by conversions whose process is gone; their count. */
export function removeStaleTemps(dir: string): number {
  return removeStaleEntries(dir, {dirs: TEMP_DIR, files: TEMP_FILE})
}
