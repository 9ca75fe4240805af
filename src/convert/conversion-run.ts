import {mkdtempSync, renameSync, rmSync, statSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {isLmtError, lmtError} from '../errors.js'
import {
  creationError,
  isDiskFullOrReadOnly,
  isFsError,
  outputError,
  refuseNonRegularOutput,
} from '../util/output-path.js'
import {JsonSerializeError} from '../formats/json/serialize.js'
import {type OutputReading, readTraceJsonl, readTraces, type TraceSink} from './converter-output.js'
import {InputAccounting} from './input-accounting.js'
import {bufferPerLine, type LineStore} from './lines.js'
import {type ElsewhereRunner, runnerOf, type StagedConversion} from './isolated-converter.js'
import {mergeRuns} from './merge-runs.js'
import {BufferedWriter, type RunFile} from './run-files.js'
import {removeStaleTemps, tempDirPrefix} from './stale-temps.js'
import {tempPathBeside} from '../util/atomic-write.js'
import {TraceSorter} from './trace-sorter.js'
import {accelerators} from './seams.js'
import type {ConvertSummary, InputSummary, TraceCounts} from './summary.js'
import type {Converter, ConverterClass, ConverterOptions, Logger} from './types.js'

/** One run: the settings a run elsewhere is given too (without its staging folder), and what stays on this thread. */
export interface ConvertRequest extends Omit<StagedConversion, 'stagingDir'> {
  converterClass: ConverterClass
  logger: Logger
  signal?: AbortSignal
  onProgress?(progress: {bytesDone: number; bytesTotal: number; traces: number}): void
  onInputDone?(summary: InputSummary): void
  /** Tuning for tests: the reorder window of the per-input sorter. */
  sorterWindow?: number
  /**
   * A folder the caller made and owns (a conversion run elsewhere): every file is written in it, the finished output
   * is left there as {@link ConversionRun.finished} and nothing is renamed or removed outside it.
   */
  stagingDir?: string
}

function fromMap(map: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

function messageOf(err: unknown): string {
  return (err as Error)?.message ?? String(err)
}

/** What an error thrown while a converter is made or initialised becomes. */
function initFailure(err: unknown, className: string): unknown {
  if (isLmtError(err)) return err
  return lmtError('PLUGIN_CONVERTER_THREW', className, messageOf(err), undefined, {cause: err})
}

/**
 * What an error thrown while a converter converts an input becomes: lmt's own errors stay as they are; a full or
 * read-only disk under the sorter's temporary files is not the converter's fault; an unserializable trace breaks
 * the contract; anything else is the converter failing on that input.
 */
function conversionFailure(err: unknown, className: string, path: string, output: string): unknown {
  if (isLmtError(err)) return err
  if (isDiskFullOrReadOnly(err))
    return outputError('CONVERT_OUTPUT_FAILED', `cannot write the temporary files of ${output}`, err)
  if (err instanceof JsonSerializeError)
    return lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'unserializable', err.message)
  return lmtError('PLUGIN_CONVERTER_THREW', className, messageOf(err), path, {cause: err})
}

/** A converter's sortChunkBytes or sortWindowBytes when it is a usable size (≥ 64 KiB), else undefined (the default). */
export function sortBytesOf(
  converter: Converter,
  field: 'sortChunkBytes' | 'sortWindowBytes',
): number | undefined {
  const n: unknown = converter[field]
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 << 16 ? n : undefined
}

/**
 * One `lmt convert` run: converts every input with one converter instance, sorts each input stably by time in
 * bounded memory, merges or concatenates the inputs, and writes the output atomically (temporary file beside it,
 * then rename). All intermediate files live in one private directory beside the output, removed at the end.
 */
export class ConversionRun {
  private tempDir: string | undefined
  private readonly tempFiles = new Set<string>()
  private readonly sorters: TraceSorter[] = []
  private bytesTotal = 0
  private bytesDone = 0
  /** bytes read of the input being converted (its reader's last report) */
  private bytesOfCurrent = 0
  private tracesSoFar = 0
  /** where the traces' lines wait for their sorter (made with the converter) */
  private lines: LineStore = bufferPerLine
  /** the runner of a converter that runs elsewhere, while it runs */
  private runner: ElsewhereRunner | undefined
  private outputTemps = 0
  /** with a staging folder: the finished output, once there is one */
  finished: string | undefined
  // what the inputs converted so far add up to
  private readonly inputs: InputSummary[] = []
  /** each input's sorted runs, to merge or concatenate */
  private readonly runsPerInput: RunFile[][] = []
  private readonly traces: TraceCounts = {total: 0, byType: {}}
  /** traces per instance id (string ids only) */
  private readonly instanceTraces = new Map<string, number>()
  private warnings = 0

  constructor(private readonly req: ConvertRequest) {}

  /** Removes every temporary file and directory synchronously (safe to call from a signal handler). */
  cleanupSync(): void {
    this.runner?.abandon()
    for (const s of this.sorters) s.abandon()
    for (const f of this.tempFiles) rmSync(f, {force: true})
    this.tempFiles.clear()
    // a staging folder is its owner's to remove
    if (this.tempDir && this.req.stagingDir === undefined)
      rmSync(this.tempDir, {recursive: true, force: true})
    this.tempDir = undefined
  }

  /**
   * Converts every input into the output. A converter whose code runs elsewhere (a third-party one) is handed the
   * run whole, with a private folder this run made: its output is committed only once it reports success, and the
   * folder is removed whatever it did.
   */
  async run(): Promise<ConvertSummary> {
    const runner = runnerOf(this.req.converterClass)
    return runner ? this.runElsewhere(runner) : this.convertAll()
  }

  private async runElsewhere(runner: ElsewhereRunner): Promise<ConvertSummary> {
    const {req} = this
    this.openTempDir()
    const stagingDir = this.tempDir as string
    this.runner = runner
    try {
      const {inputs, format, converterSource, converterPath, options, sort, strict, output} = req
      const {summary, finished} = await runner.run(
        {inputs, format, converterSource, converterPath, options, sort, strict, stagingDir, output},
        {
          logger: req.logger,
          progress: (p) => req.onProgress?.(p),
          inputDone: (s) => req.onInputDone?.(s),
        },
      )
      if (dirname(finished) !== stagingDir) throw new Error(`the finished output ${finished} is not staged`)
      refuseNonRegularOutput(req.output)
      renameSync(finished, req.output)
      return summary
    } catch (err) {
      if (isFsError(err)) throw outputError('CONVERT_OUTPUT_FAILED', `cannot write ${req.output}`, err)
      throw err
    } finally {
      this.runner = undefined
      this.cleanupSync()
    }
  }

  /** The run's steps: temporary space, the converter, each input, the output file, the summary. */
  private async convertAll(): Promise<ConvertSummary> {
    const started = Date.now()
    const {req} = this
    this.openTempDir()
    let converter: Converter | undefined
    try {
      converter = this.newConverter()
      try {
        await converter.init?.()
      } catch (err) {
        throw initFailure(err, req.converterClass.name)
      }
      const encodedLines = accelerators().encodedLines
      if (encodedLines) this.lines = encodedLines(converter.encodesRecordsAtOnce === true)
      const outTmp = this.newOutputTemp()
      for (let index = 0; index < req.inputs.length; index++)
        await this.convertInput(converter, index, outTmp)
      if (this.traces.total === 0)
        throw lmtError('CONVERT_NO_TRACES', {
          suggestions: [
            'check that -f names the format of the input (`lmt converters` lists them), read the warnings above, or check that the input is not empty',
          ],
        })
      await this.assemble(outTmp)
      return this.runSummary(converter, started)
    } catch (err) {
      // what is left untranslated by now is a file-system call on the output or its temporary files
      if (isFsError(err)) throw outputError('CONVERT_OUTPUT_FAILED', `cannot write ${req.output}`, err)
      throw err
    } finally {
      try {
        await converter?.close?.()
      } finally {
        this.cleanupSync()
      }
    }
  }

  /** Sizes the inputs for progress, removes what an unfinished run left beside the output, makes the private folder. */
  private openTempDir(): void {
    const {req} = this
    const outDir = dirname(req.output)
    for (const input of req.inputs) this.bytesTotal += statSync(input).size
    if (req.stagingDir !== undefined) {
      this.tempDir = req.stagingDir
      return
    }
    const stale = removeStaleTemps(outDir)
    if (stale > 0)
      req.logger.info(
        `removed ${stale} temporary file(s) in ${outDir} left by a conversion that did not finish`,
      )
    try {
      this.tempDir = mkdtempSync(tempDirPrefix(outDir))
    } catch (err) {
      throw creationError(
        'CONVERT_OUTPUT_FAILED',
        `cannot create temporary files beside ${req.output}`,
        outDir,
        err,
      )
    }
  }

  /** The run's one converter instance, with the request's options, the logger and a spill folder. */
  private newConverter(): Converter {
    const {req} = this
    // no prototype: an option lmt did not set reads undefined, whatever a plugin did to Object.prototype
    const options = Object.assign(Object.create(null) as object, req.options, {
      logger: req.logger,
      spillDir: this.tempDir,
    }) as ConverterOptions
    try {
      return new req.converterClass(options)
    } catch (err) {
      throw initFailure(err, req.converterClass.name)
    }
  }

  /** Converts input `index` into its sorter (a single input's straight into `outTmp`) and adds it to the totals. */
  private async convertInput(converter: Converter, index: number, outTmp: string): Promise<void> {
    const {req} = this
    const path = req.inputs[index]
    const className = req.converterClass.name
    const sorter = new TraceSorter({
      tempDir: this.tempDir as string,
      name: `input${index}`,
      directPath: req.inputs.length === 1 ? outTmp : undefined,
      windowSize: req.sorterWindow,
      windowChars: sortBytesOf(converter, 'sortWindowBytes'),
      chunkChars: sortBytesOf(converter, 'sortChunkBytes'),
      lines: this.lines,
    })
    this.sorters.push(sorter)
    const ctx = new InputAccounting(path, index, {
      strict: req.strict,
      logger: req.logger,
      signal: req.signal ?? new AbortController().signal,
      onBytes: (bytes) => this.progress(bytes),
    })
    const traces: TraceCounts = {total: 0, byType: {}}
    const reading: OutputReading = {
      converter,
      className,
      path,
      ctx,
      sink: this.traceSink(sorter, traces),
      lines: this.lines,
      sort: req.sort,
      logger: req.logger,
    }
    try {
      if (typeof converter.convertToTraceJsonl === 'function')
        await readTraceJsonl(reading, join(this.tempDir as string, `converter-${index}.jsonl`))
      else await readTraces(reading)
    } catch (err) {
      throw conversionFailure(err, className, path, req.output)
    }
    this.runsPerInput.push(await sorter.finish())
    const bytes = statSync(path).size
    this.bytesDone += bytes
    this.progress(0)
    const read = ctx.usedLineReader
    const summary: InputSummary = {
      path,
      bytes,
      linesRead: read ? ctx.linesRead : null,
      blankLines: read ? ctx.blankLines : null,
      converted: read ? ctx.convertedLines : null,
      skipped: fromMap(ctx.skipped),
      dropped: fromMap(ctx.dropped),
      notes: fromMap(ctx.notes),
      traces,
    }
    this.warnings += ctx.warnings
    this.traces.total += traces.total
    for (const [t, n] of Object.entries(traces.byType))
      this.traces.byType[t] = (this.traces.byType[t] ?? 0) + n
    this.inputs.push(summary)
    req.onInputDone?.(summary)
  }

  /** The sink of one input: its sorter, counting each trace (per type, per instance) on the way. */
  private traceSink(sorter: TraceSorter, traceCounts: TraceCounts): TraceSink {
    const {instanceTraces} = this
    const count = (type: string, instanceId: unknown): boolean => {
      traceCounts.total++
      traceCounts.byType[type] = (traceCounts.byType[type] ?? 0) + 1
      if (typeof instanceId === 'string')
        instanceTraces.set(instanceId, (instanceTraces.get(instanceId) ?? 0) + 1)
      if ((++this.tracesSoFar & 0x3fff) === 0) {
        if (this.req.signal?.aborted) throw lmtError('CLI_INTERRUPTED', 'an abort signal')
        this.progress(this.bytesOfCurrent) // the trace count moves on also between two chunks read
      }
      return sorter.backlogged
    }
    return {
      accept: (ts, type, instanceId, line) => {
        sorter.push(ts, line)
        return count(type, instanceId)
      },
      settle: () => sorter.settle(),
    }
  }

  /** The run's summary: the converter, the ordering, the totals, and every instance with its block size. */
  private runSummary(converter: Converter, started: number): ConvertSummary {
    const {req} = this
    const known = new Set<string>(this.instanceTraces.keys())
    for (const id of converter.knownInstanceIds?.() ?? []) known.add(id)
    const instances = [...known]
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((instanceId) => ({
        instanceId,
        blockSize: typeof converter.getBlockSize === 'function' ? converter.getBlockSize(instanceId) : null,
        traces: this.instanceTraces.get(instanceId) ?? 0,
      }))
    return {
      format: req.format,
      converter: {
        className: req.converterClass.name,
        source: req.converterSource,
        ...(req.converterPath ? {path: req.converterPath} : {}),
      },
      output: req.output,
      ordering: req.sort ? 'merged' : 'concatenated',
      traces: this.traces,
      instances,
      inputs: this.inputs,
      warnings: this.warnings,
      elapsedMs: Date.now() - started,
    }
  }

  private newOutputTemp(): string {
    const {stagingDir} = this.req
    const path =
      stagingDir === undefined
        ? tempPathBeside(this.req.output)
        : join(stagingDir, `.output-${++this.outputTemps}`)
    this.tempFiles.add(path)
    return path
  }

  private progress(bytesOfCurrent: number): void {
    this.bytesOfCurrent = bytesOfCurrent
    this.req.onProgress?.({
      bytesDone: this.bytesDone + bytesOfCurrent,
      bytesTotal: this.bytesTotal,
      traces: this.tracesSoFar,
    })
  }

  /** Moves the sorted result into place: a single in-order input is renamed as is, anything else is merged. */
  private async assemble(outTmp: string): Promise<void> {
    const {req, runsPerInput} = this
    refuseNonRegularOutput(req.output) // checked before the work too; a device put there meanwhile stays
    if (req.inputs.length === 1 && runsPerInput[0].length === 1 && !runsPerInput[0][0].prefixed) {
      this.commit(outTmp)
      return
    }
    const finalTmp = this.newOutputTemp()
    const out = new BufferedWriter(finalTmp)
    try {
      if (req.sort) await mergeRuns(runsPerInput.flat(), out)
      else for (const runs of runsPerInput) await mergeRuns(runs, out)
      await out.close()
    } catch (err) {
      out.abandon()
      throw outputError('CONVERT_OUTPUT_FAILED', `cannot write ${req.output}`, err)
    }
    refuseNonRegularOutput(req.output)
    this.commit(finalTmp)
  }

  /** The finished temporary becomes the output; with a staging folder it stays there for its owner to commit. */
  private commit(tmp: string): void {
    if (this.req.stagingDir === undefined) renameSync(tmp, this.req.output)
    else this.finished = tmp
    this.tempFiles.delete(tmp)
  }
}
