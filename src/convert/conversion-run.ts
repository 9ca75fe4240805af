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
import {JsonSerializeError, serializeJson} from '../jsonl/serialize.js'
import {parseJson, JsonSyntaxError} from '../jsonl/parse.js'
import {LineReader} from '../jsonl/line-reader.js'
import {deferredRecordSize, encodeRecordLine} from '../jsonl/record-encoder.js'
import {checkPluginExit} from '../plugins/exit-guard.js'
import {runPluginCode} from '../plugins/plugin-code.js'
import {InputAccounting} from './input-accounting.js'
import {LineArena, type StoredLine} from './line-arena.js'
import {GetRecord, WriteRecord} from './records.js'
import {mergeRuns} from './merge-runs.js'
import {BufferedWriter, type RunFile} from './run-files.js'
import {removeStaleTemps, tempDirPrefix, tempPathBeside} from './stale-temps.js'
import {TraceSorter} from './trace-sorter.js'
import type {ConvertSummary, InputSummary, TraceCounts} from './summary.js'
import type {Converter, ConverterClass, ConverterOptions, Logger, Trace} from './types.js'

export interface ConvertRequest {
  inputs: readonly string[]
  output: string
  format: string
  converterClass: ConverterClass
  converterSource: string
  converterPath?: string
  options: Omit<ConverterOptions, 'logger' | 'spillDir'>
  /** Merge inputs by time (default) or concatenate them (`--no-sort`). */
  sort: boolean
  strict: boolean
  logger: Logger
  signal?: AbortSignal
  onProgress?(progress: {bytesDone: number; bytesTotal: number; traces: number}): void
  onInputDone?(summary: InputSummary): void
  /** Tuning for tests: reorder window and spill chunk size of the per-input sorter. */
  sorterWindow?: number
  sorterChunkChars?: number
}

interface TraceSink {
  /** Takes one encoded trace line; true when the caller should await settle() before the next. */
  accept(ts: bigint, type: string, instanceId: unknown, line: StoredLine): boolean
  /** Takes a record to be encoded when it is written (`size`: see deferredRecordSize); like accept. */
  acceptRecord(record: GetRecord | WriteRecord, size: number): boolean
  settle(): Promise<void>
}

function lineBytes(text: string, arena: LineArena): StoredLine {
  const slot = arena.begin()
  slot.text(text)
  slot.ascii('\n')
  return slot.end()
}

function counts(): TraceCounts {
  return {total: 0, byType: {}}
}

function fromMap(map: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** Validates one trace of the contract and returns its timestamp, type and instance id. */
function inspectTrace(trace: unknown, className: string): {ts: bigint; type: string; instanceId: unknown} {
  let ts: unknown
  let type: unknown
  let instanceId: unknown
  if (trace instanceof Map) {
    ts = trace.get('timestamp_ns')
    type = trace.get('type')
    instanceId = trace.get('instance_id')
  } else if (trace !== null && typeof trace === 'object' && !Array.isArray(trace)) {
    const t = trace as Record<string, unknown>
    ts = t.timestamp_ns
    type = t.type
    instanceId = t.instance_id
  } else {
    throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'trace-not-object', describe(trace))
  }
  let big: bigint
  if (typeof ts === 'bigint') big = ts
  else if (typeof ts === 'number' && Number.isSafeInteger(ts)) big = BigInt(ts)
  else throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'no-timestamp', describe(ts))
  return {ts: big, type: typeof type === 'string' ? type : '(none)', instanceId}
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return value === null ? 'null' : `an object`
  return String(value)
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
  private readonly arena = new LineArena()

  constructor(private readonly req: ConvertRequest) {}

  /** Removes every temporary file and directory synchronously (safe to call from a signal handler). */
  cleanupSync(): void {
    for (const s of this.sorters) s.abandon()
    for (const f of this.tempFiles) rmSync(f, {force: true})
    this.tempFiles.clear()
    if (this.tempDir) rmSync(this.tempDir, {recursive: true, force: true})
    this.tempDir = undefined
  }

  /**
   * Converts, with a third-party converter's code guarded (see runPluginCode): its `process.exit` is a PLUGIN_EXIT
   * error, after which the temporary files are removed as after any failure.
   */
  async run(): Promise<ConvertSummary> {
    // lmt's own converters are not guarded: the libraries they load lazily may set up prototypes legitimately
    if (this.req.converterSource === 'built-in') return this.convertAll()
    const who = `converter ${this.req.converterClass.name} (${this.req.converterSource})`
    return runPluginCode(
      who,
      () => this.convertAll(),
      (m) => this.req.logger.warn(m),
    )
  }

  private async convertAll(): Promise<ConvertSummary> {
    const started = Date.now()
    const {req} = this
    const outDir = dirname(req.output)
    for (const input of req.inputs) this.bytesTotal += statSync(input).size
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
    const className = req.converterClass.name
    let converter: Converter | undefined
    // no prototype: an option lmt did not set reads undefined, whatever a plugin did to Object.prototype
    const options = Object.assign(Object.create(null) as object, req.options, {
      logger: req.logger,
      spillDir: this.tempDir,
    }) as ConverterOptions
    try {
      try {
        converter = new req.converterClass(options)
        await converter.init?.()
      } catch (err) {
        if (isLmtError(err)) throw err
        throw lmtError(
          'PLUGIN_CONVERTER_THREW',
          className,
          (err as Error)?.message ?? String(err),
          undefined,
          {cause: err},
        )
      }
      const single = req.inputs.length === 1
      const outTmp = this.newOutputTemp()
      const inputs: InputSummary[] = []
      const runsPerInput: RunFile[][] = []
      const totals = counts()
      const instanceTraces = new Map<string, number>()
      let warnings = 0
      for (let index = 0; index < req.inputs.length; index++) {
        const path = req.inputs[index]
        const sorter = new TraceSorter({
          tempDir: this.tempDir,
          name: `input${index}`,
          directPath: single ? outTmp : undefined,
          windowSize: req.sorterWindow,
          chunkChars: req.sorterChunkChars,
        })
        this.sorters.push(sorter)
        const ctx = new InputAccounting(path, index, {
          strict: req.strict,
          logger: req.logger,
          signal: req.signal ?? new AbortController().signal,
          onBytes: (bytes) => this.progress(bytes),
        })
        const traceCounts = counts()
        const count = (type: string, instanceId: unknown): boolean => {
          traceCounts.total++
          traceCounts.byType[type] = (traceCounts.byType[type] ?? 0) + 1
          if (typeof instanceId === 'string')
            instanceTraces.set(instanceId, (instanceTraces.get(instanceId) ?? 0) + 1)
          if ((++this.tracesSoFar & 0x3fff) === 0) {
            this.checkAbort()
            this.progress(this.bytesOfCurrent) // the trace count moves on also between two chunks read
          }
          return sorter.backlogged
        }
        const accept = (ts: bigint, type: string, instanceId: unknown, line: StoredLine): boolean => {
          sorter.push(ts, line)
          return count(type, instanceId)
        }
        const acceptRecord = (record: GetRecord | WriteRecord, size: number): boolean => {
          sorter.pushRecord(record.timestamp_ns, record, size)
          return count(record.type, record.instance_id)
        }
        const sink: TraceSink = {accept, acceptRecord, settle: () => sorter.settle()}
        try {
          if (typeof converter.convertToTraceJsonl === 'function')
            await this.viaJsonl(converter, className, path, ctx, sink)
          else await this.viaTraces(converter, className, path, ctx, sink)
        } catch (err) {
          if (isLmtError(err)) throw err
          // the sorter's temporary files on a full or read-only disk: not the converter's fault
          if (isDiskFullOrReadOnly(err))
            throw outputError(
              'CONVERT_OUTPUT_FAILED',
              `cannot write the temporary files of ${req.output}`,
              err,
            )
          if (err instanceof JsonSerializeError)
            throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'unserializable', err.message)
          throw lmtError('PLUGIN_CONVERTER_THREW', className, (err as Error)?.message ?? String(err), path, {
            cause: err,
          })
        }
        checkPluginExit() // a converter that caught its own exit does not get its output written
        runsPerInput.push(await sorter.finish())
        this.bytesDone += statSync(path).size
        this.progress(0)
        const summary: InputSummary = {
          path,
          bytes: statSync(path).size,
          linesRead: ctx.usedLineReader ? ctx.linesRead : null,
          blankLines: ctx.usedLineReader ? ctx.blankLines : null,
          converted: ctx.usedLineReader ? ctx.convertedLines : null,
          skipped: fromMap(ctx.skipped),
          dropped: fromMap(ctx.dropped),
          notes: fromMap(ctx.notes),
          traces: traceCounts,
        }
        warnings += ctx.warnings
        totals.total += traceCounts.total
        for (const [t, n] of Object.entries(traceCounts.byType))
          totals.byType[t] = (totals.byType[t] ?? 0) + n
        inputs.push(summary)
        req.onInputDone?.(summary)
      }
      if (totals.total === 0) throw lmtError('CONVERT_NO_TRACES')
      await this.assemble(runsPerInput, outTmp, single)
      const known = new Set<string>(instanceTraces.keys())
      for (const id of converter.knownInstanceIds?.() ?? []) known.add(id)
      const instances = [...known]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((instanceId) => ({
          instanceId,
          blockSize:
            typeof converter?.getBlockSize === 'function' ? converter.getBlockSize(instanceId) : null,
          traces: instanceTraces.get(instanceId) ?? 0,
        }))
      return {
        format: req.format,
        converter: {
          className,
          source: req.converterSource,
          ...(req.converterPath ? {path: req.converterPath} : {}),
        },
        output: req.output,
        ordering: req.sort ? 'merged' : 'concatenated',
        traces: totals,
        instances,
        inputs,
        warnings,
        elapsedMs: Date.now() - started,
      }
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

  private newOutputTemp(): string {
    const path = tempPathBeside(this.req.output)
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

  private checkAbort(): void {
    if (this.req.signal?.aborted) throw lmtError('CLI_INTERRUPTED', 'an abort signal')
  }

  private async viaTraces(
    converter: Converter,
    className: string,
    path: string,
    ctx: InputAccounting,
    sink: TraceSink,
  ): Promise<void> {
    const result: unknown = await (converter.convertToTraces as NonNullable<Converter['convertToTraces']>)(
      path,
      ctx,
    )
    const take = (trace: unknown): boolean => {
      if (trace instanceof GetRecord || trace instanceof WriteRecord) {
        const size = deferredRecordSize(trace)
        if (size !== undefined) return sink.acceptRecord(trace, size)
        return sink.accept(
          trace.timestamp_ns,
          trace.type,
          trace.instance_id,
          encodeRecordLine(trace, this.arena),
        )
      }
      const info = inspectTrace(trace, className)
      return sink.accept(
        info.ts,
        info.type,
        info.instanceId,
        lineBytes(serializeJson(trace as Trace), this.arena),
      )
    }
    const isObject = result !== null && typeof result === 'object'
    if (
      Array.isArray(result) ||
      (isObject && Symbol.iterator in result && !(Symbol.asyncIterator in result))
    ) {
      for (const t of result as Iterable<unknown>) if (take(t)) await sink.settle()
    } else if (isObject && Symbol.asyncIterator in result) {
      for await (const t of result as AsyncIterable<unknown>) if (take(t)) await sink.settle()
    } else throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'traces-result', describe(result))
  }

  private async viaJsonl(
    converter: Converter,
    className: string,
    path: string,
    ctx: InputAccounting,
    sink: TraceSink,
  ): Promise<void> {
    const {accept} = sink
    const tmp = join(this.tempDir as string, `converter-${ctx.index}.jsonl`)
    const returned: unknown = await (
      converter.convertToTraceJsonl as NonNullable<Converter['convertToTraceJsonl']>
    )(path, tmp, ctx)
    const valid =
      (typeof returned === 'number' && Number.isSafeInteger(returned) && returned >= 0) ||
      (typeof returned === 'bigint' && returned >= 0n)
    if (!valid) throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'jsonl-count', describe(returned))
    let lines = 0
    const reader = new LineReader(tmp)
    try {
      for await (const line of reader.lines()) {
        lines++
        let value: unknown
        try {
          value = parseJson(line.text)
        } catch (err) {
          if (!this.req.sort && err instanceof JsonSyntaxError) {
            accept(0n, '(unparsed)', undefined, lineBytes(line.text, this.arena))
            continue
          }
          throw lmtError(
            'PLUGIN_CONTRACT_VIOLATION',
            className,
            'jsonl-line',
            `line ${line.lineNo}: ${(err as Error).message}`,
          )
        }
        if (!this.req.sort) {
          const type =
            value instanceof Map && typeof value.get('type') === 'string'
              ? (value.get('type') as string)
              : '(none)'
          const id = value instanceof Map ? value.get('instance_id') : undefined
          accept(0n, type, id, lineBytes(line.text, this.arena)) // verbatim, order is the converter's
          continue
        }
        const info = inspectTrace(value, className)
        if (accept(info.ts, info.type, info.instanceId, lineBytes(serializeJson(value), this.arena)))
          await sink.settle()
      }
    } catch (err) {
      if (isLmtError(err)) throw err
      if (
        (err as NodeJS.ErrnoException).code === 'ENOENT' &&
        lines === 0 &&
        BigInt(returned as number | bigint) === 0n
      )
        return
      throw err
    }
    if (BigInt(lines) !== BigInt(returned as number | bigint))
      this.req.logger.warn(
        `${className}.convertToTraceJsonl() reported ${returned} traces for ${path} but wrote ${lines}; using ${lines}`,
      )
  }

  /** Moves the sorted result into place: a single in-order input is renamed as is, anything else is merged. */
  private async assemble(runsPerInput: RunFile[][], outTmp: string, single: boolean): Promise<void> {
    const {req} = this
    refuseNonRegularOutput(req.output) // checked before the work too; a device put there meanwhile stays
    if (single && runsPerInput[0].length === 1 && !runsPerInput[0][0].prefixed) {
      renameSync(outTmp, req.output)
      this.tempFiles.delete(outTmp)
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
    renameSync(finalTmp, req.output)
    this.tempFiles.delete(finalTmp)
  }
}
