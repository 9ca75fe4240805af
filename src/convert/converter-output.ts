// A converter's output for one input, taken through the contract (docs/convert.md §4.2): the traces it returns, or
// the JSONL file it writes, checked and handed one trace at a time to the run's sorter.
import {isLmtError, lmtError} from '../errors.js'
import {serializeJson} from '../formats/json/serialize.js'
import {parseJson, JsonSyntaxError} from '../formats/json/parse.js'
import {LineReader} from '../formats/json/line-reader.js'
import type {InputAccounting} from './input-accounting.js'
import type {LineStore} from './lines.js'
import {GetRecord, WriteRecord} from './records.js'
import type {Converter, Logger, Trace} from './types.js'

/** Where the traces go (the input's sorter, counting them). */
export interface TraceSink {
  /** Takes one trace's line (of the run's line store); true when the caller should await settle() before the next. */
  accept(ts: bigint, type: string, instanceId: unknown, line: unknown): boolean
  settle(): Promise<void>
}

/** What reading a converter's output needs of the run. */
export interface OutputReading {
  converter: Converter
  className: string
  /** the input */
  path: string
  ctx: InputAccounting
  sink: TraceSink
  lines: LineStore
  /** false under --no-sort: a JSONL file's lines are copied verbatim */
  sort: boolean
  logger: Logger
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

/** A value as an error message shows it. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return value === null ? 'null' : `an object`
  return String(value)
}

/** `convertToTraces`: every trace it returns or yields (a BaseConverter record is valid as built). */
export async function readTraces(o: OutputReading): Promise<void> {
  const {converter, className, path, ctx, sink, lines} = o
  const result: unknown = await (converter.convertToTraces as NonNullable<Converter['convertToTraces']>)(
    path,
    ctx,
  )
  const take = (trace: unknown): boolean => {
    if (trace instanceof GetRecord || trace instanceof WriteRecord)
      return sink.accept(trace.timestamp_ns, trace.type, trace.instance_id, lines.record(trace))
    const info = inspectTrace(trace, className)
    return sink.accept(info.ts, info.type, info.instanceId, lines.text(serializeJson(trace as Trace)))
  }
  const isObject = result !== null && typeof result === 'object'
  if (Array.isArray(result) || (isObject && Symbol.iterator in result && !(Symbol.asyncIterator in result))) {
    for (const t of result as Iterable<unknown>) if (take(t)) await sink.settle()
  } else if (isObject && Symbol.asyncIterator in result) {
    for await (const t of result as AsyncIterable<unknown>) if (take(t)) await sink.settle()
  } else throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'traces-result', describe(result))
}

/** `convertToTraceJsonl` into `tmp`: its returned count checked, then every line of the file it wrote. */
export async function readTraceJsonl(o: OutputReading, tmp: string): Promise<void> {
  const {converter, className, path, ctx} = o
  const returned: unknown = await (
    converter.convertToTraceJsonl as NonNullable<Converter['convertToTraceJsonl']>
  )(path, tmp, ctx)
  const valid =
    (typeof returned === 'number' && Number.isSafeInteger(returned) && returned >= 0) ||
    (typeof returned === 'bigint' && returned >= 0n)
  if (!valid) throw lmtError('PLUGIN_CONTRACT_VIOLATION', className, 'jsonl-count', describe(returned))
  const count = BigInt(returned as number | bigint)
  const read = {lines: 0}
  try {
    await readJsonlLines(o, tmp, read)
  } catch (err) {
    // a converter that reports no traces may write no file
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    if (!isLmtError(err) && missing && read.lines === 0 && count === 0n) return
    throw err
  }
  const {lines} = read
  if (BigInt(lines) !== count)
    o.logger.warn(
      `${className}.convertToTraceJsonl() reported ${returned} traces for ${path} but wrote ${lines}; using ${lines}`,
    )
}

/** The lines of a converter's JSONL file into the sink (parsed and re-serialized, or verbatim under --no-sort). */
async function readJsonlLines(o: OutputReading, tmp: string, read: {lines: number}): Promise<void> {
  const {className, sink, lines} = o
  const {accept} = sink
  for await (const line of new LineReader(tmp).lines()) {
    read.lines++
    let value: unknown
    try {
      value = parseJson(line.text)
    } catch (err) {
      if (!o.sort && err instanceof JsonSyntaxError) {
        accept(0n, '(unparsed)', undefined, lines.text(line.text))
        continue
      }
      throw lmtError(
        'PLUGIN_CONTRACT_VIOLATION',
        className,
        'jsonl-line',
        `line ${line.lineNo}: ${(err as Error).message}`,
      )
    }
    if (!o.sort) {
      const type =
        value instanceof Map && typeof value.get('type') === 'string'
          ? (value.get('type') as string)
          : '(none)'
      const id = value instanceof Map ? value.get('instance_id') : undefined
      accept(0n, type, id, lines.text(line.text)) // verbatim, order is the converter's
      continue
    }
    const info = inspectTrace(value, className)
    if (accept(info.ts, info.type, info.instanceId, lines.text(serializeJson(value)))) await sink.settle()
  }
}
