// The output set of a simulation while it is made: every file is written complete to a temporary beside it and
// staged; commit() then replaces them all together (replaceAsSet: all or none, so an old summary.json never ends
// up beside a new sweep.csv). Until then an interrupted or failed run removes the temporaries (the command's signal
// handler calls removeAll), so Ctrl-C leaves the previous outputs as they were and no stray temporary behind.
import {existsSync, mkdirSync, rmdirSync, rmSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {writeTempBeside} from './atomic-write.js'
import {outputError, refuseNonRegularOutput, refuseOutputIsInput} from './output-path.js'
import {replaceAsSet, type Replacement} from './replace-set.js'
import {isLmtError} from '../errors.js'

/** Removes a file; what is not one (a folder put at its name) stays, and the error being reported stays the one. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, {force: true})
  } catch {
    // nothing of ours to remove
  }
}

export class PendingFiles {
  private readonly staged = new Map<string, string>()
  /** the folders this run created for its outputs, removed again (when empty) by {@link removeAll} */
  private readonly folders: string[] = []
  /** the files the run reads: no output may be one of them */
  private inputs: Array<string | undefined> = []

  /** Refuses (OUTPUT_IS_INPUT) every output that is one of `inputs`, those staged later included. */
  protect(inputs: readonly (string | undefined)[], outputs: readonly string[] = []): void {
    this.inputs.push(...inputs)
    for (const path of [...outputs, ...this.staged.keys()]) refuseOutputIsInput(path, this.inputs)
  }

  /** Removes every staged file (synchronous: called from a signal handler). */
  removeAll(): void {
    for (const p of this.staged.values()) removeQuietly(p)
    this.staged.clear()
    // the folders made for outputs that never came (a full disk): deepest first, only when empty
    for (const dir of this.folders.reverse()) {
      try {
        rmdirSync(dir)
      } catch {
        // not empty (files of an earlier run), or gone already
      }
    }
    this.folders.length = 0
  }

  /** Makes folder `dir` (and its missing parents) for outputs; a run that fails removes the ones it made, if empty. */
  makeFolder(dir: string): void {
    const missing: string[] = []
    for (let d = resolve(dir); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d)
    mkdirSync(dir, {recursive: true})
    this.folders.push(...missing)
  }

  /**
   * Writes `path`'s content to a fresh temporary file beside it now (created exclusively, under a name nobody can
   * predict); the file appears at {@link commit} (LMT_SIM_OUTPUT_FAILED on failure).
   */
  writeAtomic(path: string, data: string): void {
    refuseNonRegularOutput(path, 'SIM_OUTPUT_FAILED')
    let tmp: string
    try {
      tmp = writeTempBeside(path, data)
    } catch (err) {
      throw outputError('SIM_OUTPUT_FAILED', `cannot write ${path}`, err)
    }
    this.stage(tmp, path)
  }

  /** Stages a complete file `tmp` written elsewhere (a hit-rate CSV) to become `path` at {@link commit}. */
  stage(tmp: string, path: string): void {
    try {
      refuseOutputIsInput(path, this.inputs)
    } catch (err) {
      removeQuietly(tmp)
      throw err
    }
    this.staged.set(path, tmp)
  }

  /** Replaces every staged file, all together or none (the old ones stay); the temporaries are gone either way. */
  commit(): void {
    const set: Replacement[] = [...this.staged].map(([path, tmp]) => ({tmp, path}))
    this.staged.clear()
    try {
      for (const r of set) refuseOutputIsInput(r.path, this.inputs) // a link made meanwhile
      replaceAsSet(set)
      this.folders.length = 0 // the outputs are in them now
    } catch (err) {
      for (const r of set) removeQuietly(r.tmp)
      if (isLmtError(err)) throw err
      throw outputError(
        'SIM_OUTPUT_FAILED',
        `cannot replace the outputs ${set.map((r) => r.path).join(', ')}`,
        err,
      )
    }
  }
}
