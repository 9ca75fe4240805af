// The temporary files of a simulation while they exist: an interrupted run removes them (the command's signal
// handler), so Ctrl-C leaves neither a partial output nor a stray `.tmp` behind.
import {rmSync} from 'node:fs'
import {tempPathFor, writeFileAtomic} from '../util/atomic-write.js'
import {lmtError, OUTPUT_WRITE_HINT} from '../errors.js'

export class PendingFiles {
  private readonly paths = new Set<string>()

  add(path: string): void {
    this.paths.add(path)
  }

  delete(path: string): void {
    this.paths.delete(path)
  }

  /** Removes every file still pending (synchronous: called from a signal handler). */
  removeAll(): void {
    for (const p of this.paths) rmSync(p, {force: true})
    this.paths.clear()
  }

  /** Writes `path` through `<path>.tmp` and a rename; on failure the temporary file is removed (LMT_SIM_OUTPUT). */
  writeAtomic(path: string, data: string): void {
    const tmp = tempPathFor(path)
    this.add(tmp)
    try {
      writeFileAtomic(path, data)
    } catch (err) {
      throw lmtError('SIM_OUTPUT', `cannot write ${path}: ${(err as Error).message}`, {
        suggestions: [OUTPUT_WRITE_HINT],
      })
    } finally {
      this.delete(tmp)
    }
  }
}
