// `lmt simulate -i x -f format` and `lmt report -i x -f format`: the input converted on the fly to a Get+Write trace
// in a private temporary directory (convert's own ConversionRun), removed when the run is done or interrupted. The
// directory's name carries the process id: one left by a run that was killed is removed by the next one that converts.
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {inputReadHints, lmtError} from '../../errors.js'
import {ConversionRun} from '../../convert/conversion-run.js'
import {expandDirectoryInputs} from '../../convert/directory-inputs.js'
import '../../convert/fast/index.js' // convert's accelerators (convert/seams.ts)
import {fileStem} from '../../convert/settings.js'
import type {ConverterRegistration} from '../../convert/types.js'
import {chunkBytesOf, lookupLogFiles, readLookupEvents} from '../../formats/lmcache/lookup-log.js'
import {removeStaleEntries} from '../../util/stale-entries.js'

export interface ConvertInputRequest {
  inputs: readonly string[]
  converter: ConverterRegistration
  instanceId: string
  instanceBlockSizes: ReadonlyMap<string, number>
  warn(message: string): void
}

const TEMP_DIR = /^lmt-report-(\d+)-[A-Za-z0-9]{6}$/

/** Removes the conversion directories in `dir` of runs whose process is gone (killed); how many. */
export function removeStaleReportTemps(dir: string = tmpdir()): number {
  return removeStaleEntries(dir, {dirs: TEMP_DIR})
}

/**
 * Prepares the conversion (each input a regular file, a folder its files of the format: `inputs`); `run` writes the
 * trace, `cleanup` removes it and every temporary file (synchronous: a signal handler may call it).
 */
export function convertInput(req: ConvertInputRequest) {
  const inputs = expandDirectoryInputs(req.inputs, req.converter.cls)
  const unreadable = (input: string, reason: string, err: unknown) =>
    lmtError('CONVERT_INPUT_UNREADABLE', input, reason, {suggestions: inputReadHints(err, 'an input file')})
  for (const input of inputs) {
    let st
    try {
      st = statSync(input)
    } catch (err) {
      throw unreadable(input, (err as Error).message, err)
    }
    if (!st.isFile())
      throw unreadable(input, 'not a regular file', {code: st.isDirectory() ? 'EISDIR' : undefined})
  }
  removeStaleReportTemps()
  const dir = mkdtempSync(join(tmpdir(), `lmt-report-${process.pid}-`))
  const trace = join(dir, `${fileStem(basename(inputs[0]))}_optimizer.jsonl`)
  const conversion = new ConversionRun({
    inputs,
    output: trace,
    format: req.converter.format,
    converterClass: req.converter.cls,
    converterSource: req.converter.source,
    converterPath: req.converter.path,
    options: {
      defaultInstanceId: req.instanceId,
      instanceBlockSizes: req.instanceBlockSizes,
      mode: 'optimizer',
      numWorkers: 4,
      ignoreResponse: false,
      truncate: true,
    },
    sort: true,
    strict: false,
    logger: {warn: req.warn, info: () => {}},
  })
  const cleanup = () => {
    conversion.cleanupSync()
    rmSync(dir, {recursive: true, force: true})
  }
  return {
    inputs,
    trace,
    cleanup,
    run: async () => ({traces: (await conversion.run()).traces.total}),
  }
}

export type ConvertedInput = ReturnType<typeof convertInput>

/**
 * Bytes per token of a lookup-hash log for lmt's own policies: the first lookup's layout over its chunk size (the
 * rule LMCache's simulator applies to every lookup); undefined when the layout does not tell or is not whole bytes.
 */
export async function layoutBytesPerToken(files: readonly string[]): Promise<number | undefined> {
  for await (const batch of readLookupEvents(lookupLogFiles(files))) {
    const ev = batch[0]
    const {bytes, unknown} = chunkBytesOf(ev)
    const perToken = bytes / ev.chunkSize
    return unknown.length === 0 && Number.isSafeInteger(perToken) && perToken > 0 ? perToken : undefined
  }
  return undefined
}
