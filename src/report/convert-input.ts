// `lmt report -i x -f format`: the input converted on the fly to a Get+Write trace in a private temporary
// directory (convert's own ConversionRun), removed when the report is done or interrupted. The directory's name
// carries the process id: one left by a report that was killed is removed by the next report that converts.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {ConversionRun} from '../convert/conversion-run.js'
import '../convert/fast/index.js' // convert's accelerators (convert/seams.ts)
import {fileStem} from '../convert/settings.js'
import type {ConverterRegistration} from '../convert/types.js'
import {removeStaleEntries} from '../util/stale-entries.js'

export interface ConvertInputRequest {
  inputs: readonly string[]
  converter: ConverterRegistration
  instanceId: string
  instanceBlockSizes: ReadonlyMap<string, number>
  warn(message: string): void
  signal?: AbortSignal
}

export interface ConvertedInput {
  trace: string
  /** removes the temporary trace (synchronous: a signal handler may call it) */
  cleanup(): void
  run(): Promise<{traces: number}>
}

const TEMP_DIR = /^lmt-report-(\d+)-[A-Za-z0-9]{6}$/

/** Removes the conversion directories in `dir` of reports whose process is gone (killed); how many. */
export function removeStaleReportTemps(dir: string = tmpdir()): number {
  return removeStaleEntries(dir, {dirs: TEMP_DIR})
}

/** Prepares the conversion; `run` writes the trace, `cleanup` removes it and every temporary file. */
export function convertInput(req: ConvertInputRequest): ConvertedInput {
  removeStaleReportTemps()
  const dir = mkdtempSync(join(tmpdir(), `lmt-report-${process.pid}-`))
  const trace = join(dir, `${fileStem(basename(req.inputs[0]))}_optimizer.jsonl`)
  const conversion = new ConversionRun({
    inputs: req.inputs,
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
    signal: req.signal,
  })
  const cleanup = () => {
    conversion.cleanupSync()
    rmSync(dir, {recursive: true, force: true})
  }
  return {
    trace,
    cleanup,
    run: async () => ({traces: (await conversion.run()).traces.total}),
  }
}
