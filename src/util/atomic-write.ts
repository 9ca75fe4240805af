// Output files that are never seen half-written: the data goes to a temporary file beside the target, which is
// renamed over it once complete (a rename within one directory is atomic); a failure removes the temporary file.
import {renameSync, rmSync, writeFileSync} from 'node:fs'

/** The temporary file `path` is written through. */
export function tempPathFor(path: string): string {
  return path + '.tmp'
}

/** Writes `data` to `path` through {@link tempPathFor}; throws the file system's error, with nothing left behind. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = tempPathFor(path)
  try {
    writeFileSync(tmp, data)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, {force: true})
    throw err
  }
}
