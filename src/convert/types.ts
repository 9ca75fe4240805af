import type {InputLine} from '../formats/json/line-reader.js'
import type {GetRecord, WriteRecord} from './records.js'
import type {LineMapperSpec, MappedBatch, MappedLine} from './line-mapper.js'
import type {LineBatch} from '../formats/json/line-batch.js'

/** A trace record: a plain object or a Map (serialized in key insertion order), or a BaseConverter record. */
export type Trace = Record<string, unknown> | Map<string, unknown> | GetRecord | WriteRecord

export interface Logger {
  warn(message: string): void
  info(message: string): void
}

/**
 * What the framework hands to `new Converter(options)` (unknown fields must be ignored by converters). The object and
 * `converterConfig` have no prototype: `Object.hasOwn(options, key)`, not `options.hasOwnProperty(key)`.
 * `Settings` is what the converter's own {@link ConverterClass.parseOptions} returned from its flags.
 */
export interface ConverterOptions<Settings = unknown> {
  defaultInstanceId: string
  instanceBlockSizes: ReadonlyMap<string, number> | Readonly<Record<string, number>>
  mode: 'optimizer'
  /** Present only when `--converter-config-json` or `--converter-config-file` was given. */
  converterConfig?: Record<string, unknown>
  /**
   * The converter's typed options: what its static `parseOptions(flags, converterConfig)` returned (absent for a
   * converter without one, or when it is constructed by code that gave none).
   */
  settings?: Settings
  // the original converter interface's options, handed to every converter (the built-ins ignore the first three)
  modelMapping?: ReadonlyMap<string, string>
  ignoreResponse: boolean
  truncate: boolean
  /** worker threads a converter may use (`--num-workers`, 0 already resolved to the CPUs less one) */
  numWorkers: number
  logger: Logger
  /** Framework-private directory where a converter may spill bounded-memory state (e.g. collision sets). */
  spillDir?: string
}

/**
 * The fast lane of an input, an optional extension of {@link InputContext} (docs/convert.md §4.5): the same lines as
 * {@link InputContext.lines}, as byte batches ({@link LineBatch}: UTF-8 bytes with offsets and line numbers, no
 * string per line unless its text is read). Nothing needs it to convert; it pays on inputs of millions of lines.
 * Code that uses it should go through `mapInputBatches(ctx, spec)` / `lineBatchesOf(ctx)`, which fall back to
 * `ctx.lines()` when a context has no fast lane; both ways give the same lines, and so the same records.
 */
export interface BatchInput {
  /** The lines of {@link InputContext.lines} as byte batches, on this thread. */
  lineBatches(): AsyncIterable<LineBatch>
  /**
   * The byte batches with a batch function applied to each, possibly on worker threads (the module of `spec`
   * exports `createLineBatchMapper`), one result per batch, in input order: no string or object per line has to
   * cross between threads.
   */
  mapLineBatches<R>(spec: LineMapperSpec): AsyncIterable<MappedBatch<R>>
}

/**
 * Per-input services of the framework (docs/convert.md §4.4). The contract for reading an input is {@link lines};
 * {@link mapLines} is a convenience over the same lines and {@link fast} an optional extension (the byte lane).
 */
export interface InputContext {
  readonly path: string
  readonly index: number
  /**
   * The standard line reader, and the contract: non-blank trimmed lines with 1-based numbers; counts lines and
   * bytes, reports invalid UTF-8 itself.
   */
  lines(): AsyncIterable<InputLine>
  /**
   * A convenience over {@link lines}: the same lines with a pure function applied to each, possibly on worker
   * threads, results in input order (see {@link LineMapperSpec}). Lines are counted like {@link lines}.
   */
  mapLines<R>(spec: LineMapperSpec): AsyncIterable<MappedLine<R>>
  /**
   * The fast lane (byte batches), when this context offers it; lmt's framework always does. Optional: use it through
   * `mapInputBatches` / `lineBatchesOf`, which read {@link lines} instead when it is absent.
   */
  readonly fast?: BatchInput
  /** A bad line: warning and count (fatal under --strict). */
  skip(line: InputLine, code: string, message: string): void
  /** A valid line deliberately not converted: counted, no warning. */
  drop(line: InputLine, code: string): void
  /** The line contributed to the output. */
  converted(line: InputLine): void
  /** An informational counter. */
  note(code: string, n?: number): void
  /** A warning about a line that is still converted (same shape as skip warnings, not counted as a skip). */
  warnLine(line: InputLine, code: string, message: string): void
  readonly signal: AbortSignal
}

export type TraceSource = Iterable<Trace> | AsyncIterable<Trace> | Trace[]

/** The converter contract: at least one of the two output methods. */
export interface Converter {
  convertToTraces?(inputPath: string, ctx: InputContext): TraceSource | Promise<TraceSource>
  convertToTraceJsonl?(
    inputPath: string,
    outputPath: string,
    ctx: InputContext,
  ): number | bigint | Promise<number | bigint>
  init?(): void | Promise<void>
  close?(): void | Promise<void>
  getBlockSize?(instanceId: string): number
  /** Instance ids the converter registered, including those without traces (shown in the summary). */
  knownInstanceIds?(): Iterable<string>
  /**
   * Optional: true to have the records it returns encoded as they come, not when the sorter writes them out, so
   * that a record waiting in the sort window holds no buffer its keys point into (lmt's publisher_log converter).
   */
  readonly encodesRecordsAtOnce?: boolean
  /**
   * Optional: line bytes the sorter holds per chunk once the output proved unsorted (default 32 MiB); less for a
   * converter whose output turns unsorted only at the end of its input, when all it held back comes at once.
   */
  readonly sortChunkBytes?: number
  /**
   * Optional: line bytes the sorter holds back to absorb local disorder before it declares the output unsorted
   * (default 8 MiB); less for a converter whose output is out of order by little until the end of its input.
   */
  readonly sortWindowBytes?: number
}

/** The first non-blank line of a file, as {@link ConverterClass.looksLike} sees it. */
export interface FormatSample {
  /** the line's text (trimmed) */
  line: string
  /** the line parsed with JSON.parse (large integers lose precision), or undefined when it is not JSON */
  record: unknown
}

/** The parsed flags of `lmt convert` a converter's `parseOptions` sees: its own and the command's, by flag name. */
export type ConverterFlagValues = Readonly<Record<string, unknown>>

export interface ConverterClass<Settings = unknown> {
  new (options: ConverterOptions<Settings>): Converter
  readonly name: string
  aliases?: readonly string[]
  description?: string
  /**
   * Optional: oclif flag definitions this converter adds to `lmt convert` (accepted only with `-f` naming it; give
   * each a `helpGroup`). A name `lmt convert` already has is ignored with a warning.
   */
  flags?: Readonly<Record<string, unknown>>
  /**
   * Optional: the converter's typed options from the parsed flags (its own and the command's) and the converter
   * config; delivered as `options.settings`. A coded error it throws (`lmtError('CLI_USAGE', …)`) is reported as it is.
   */
  parseOptions?(flags: ConverterFlagValues, converterConfig: Record<string, unknown> | undefined): Settings
  /**
   * Optional: whether a file whose first non-blank line is `sample` looks like this converter's input (true only
   * when it does). lmt asks it to tell a user who hands an unconverted trace to `lmt simulate` which format to
   * convert it from; it must be cheap and never change state. A converter that throws here is ignored.
   */
  looksLike?(sample: FormatSample): boolean
  /**
   * Optional: the files a directory given as an input stands for, in the order they are converted (for formats
   * written as a directory of rotated files). Without it a directory is not an input.
   */
  inputFiles?(directory: string): string[]
}

export type {InputLine}

/** A converter class as discovery found it: its format, aliases and where it came from. */
export interface ConverterRegistration {
  /** the format name (the class name's convention: `FooConverter` is `foo`) */
  format: string
  className: string
  cls: ConverterClass
  /** `built-in`, `dir:<path>`, `module:<spec>` or `plugin:<package>` */
  source: string
  path?: string
  aliases: string[]
  description: string
  /** Registrations this one replaced (last writer wins). */
  shadowed: Array<{className: string; source: string}>
}
