import {statSync} from 'node:fs'
import {lmtError} from '../errors.js'
import type {LineMapperSpec, MappedBatch, MappedLine} from './line-mapper.js'
import {mapLineBatches, mapLines} from './line-pool.js'
import {type LineBatch, LineBatchSpares} from '../formats/json/line-batch.js'
import {type InputLine, LineReader, tooLongMessage} from '../formats/json/line-reader.js'
import type {BatchInput, InputContext, Logger} from './types.js'
import {plainPaths} from '../util/plain.js'

const WARNINGS_PER_CODE = 100
const PREVIEW_CHARS = 100

function increment(map: Map<string, number>, code: string, n = 1): void {
  map.set(code, (map.get(code) ?? 0) + n)
}

/** The trimmed line cut to its first 100 code points, `...` when longer. */
export function linePreview(text: string): string {
  let count = 0
  let i = 0
  while (i < text.length && count < PREVIEW_CHARS) {
    const c = text.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1
    count++
  }
  return i < text.length ? text.slice(0, i) + '...' : text
}

export interface AccountingHooks {
  strict: boolean
  logger: Logger
  signal: AbortSignal
  onBytes?(bytesReadThisInput: number): void
}

/**
 * The per-input {@link InputContext}: line reader, and the accounting of every non-blank line as converted,
 * skipped (bad, warned) or dropped (by design), plus notes and per-code warning suppression.
 */
export class InputAccounting implements InputContext {
  readonly skipped = new Map<string, number>()
  readonly dropped = new Map<string, number>()
  readonly notes = new Map<string, number>()
  convertedLines = 0
  warnings = 0
  private reader: LineReader | undefined
  private readonly warnedPerCode = new Map<string, number>()

  constructor(
    readonly path: string,
    readonly index: number,
    private readonly hooks: AccountingHooks,
  ) {}

  get signal(): AbortSignal {
    return this.hooks.signal
  }

  /** True once the converter read its input through {@link lines}. */
  get usedLineReader(): boolean {
    return this.reader !== undefined
  }

  get linesRead(): number {
    return this.reader?.linesRead ?? 0
  }

  get blankLines(): number {
    return this.reader?.blankLines ?? 0
  }

  lines(): AsyncIterable<InputLine> {
    return this.openReader().lines()
  }

  /**
   * `reuseReadBuffers`: for byte batches, which copy every line out of the chunk it was read in, the file is read
   * into two reused buffers instead of a new one per chunk (fewer large allocations for the allocator to keep).
   */
  private openReader(reuseReadBuffers = false): LineReader {
    const reader = new LineReader(
      this.path,
      {
        invalidUtf8: (lineNo, preview) =>
          this.skip({lineNo, text: preview}, 'invalid_utf8', 'line is not valid UTF-8'),
        tooLong: (lineNo, preview, bytes) =>
          this.skip({lineNo, text: preview}, 'line_too_long', tooLongMessage(bytes, reader.maxLineBytes)),
        progress: (bytes) => this.hooks.onBytes?.(bytes),
      },
      {reuseReadBuffers},
    )
    this.reader = reader
    return reader
  }

  mapLines<R>(spec: LineMapperSpec): AsyncIterable<MappedLine<R>> {
    return mapLines<R>(this.openReader().batches(), spec, this.inputSize())
  }

  /** The byte lane over the same reader (counted like {@link lines}); none on the plain paths. */
  readonly fast: BatchInput | undefined = plainPaths() ? undefined : this.byteLane()

  private byteLane(): BatchInput {
    return {
      lineBatches: (): AsyncIterable<LineBatch> => this.openReader(true).lineBatches(),
      mapLineBatches: <R>(spec: LineMapperSpec): AsyncIterable<MappedBatch<R>> => {
        const spares = spec.linesDoneAtNext === true ? new LineBatchSpares() : undefined
        const batches = this.openReader(true).lineBatches({spares})
        return mapLineBatches<R>(batches, spec, this.inputSize(), spares)
      },
    }
  }

  private inputSize(): number {
    try {
      return statSync(this.path).size
    } catch {
      return 0 // the reader reports the problem
    }
  }

  skip(line: InputLine, code: string, message: string): void {
    increment(this.skipped, code)
    if (this.hooks.strict)
      throw lmtError('CONVERT_STRICT_INPUT', `${this.path}:${line.lineNo}`, code, message)
    this.warnLine(line, code, message)
  }

  drop(_line: InputLine, code: string): void {
    increment(this.dropped, code)
  }

  converted(_line: InputLine): void {
    this.convertedLines++
  }

  note(code: string, n = 1): void {
    increment(this.notes, code, n)
  }

  warnLine(line: InputLine, code: string, message: string): void {
    this.warnings++
    const seen = (this.warnedPerCode.get(code) ?? 0) + 1
    this.warnedPerCode.set(code, seen)
    if (seen <= WARNINGS_PER_CODE)
      this.hooks.logger.warn(`${this.path}:${line.lineNo}: ${code}: ${message} | ${linePreview(line.text)}`)
    else if (seen === WARNINGS_PER_CODE + 1)
      this.hooks.logger.warn(`${this.path}: further ${code} warnings suppressed`)
  }
}
