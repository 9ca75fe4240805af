import {statSync} from 'node:fs'
import {inputReadHints, lmtError} from '../../errors.js'
import {LineReader, tooLongMessage} from '../../formats/json/line-reader.js'
import type {KeyShards} from './key-interner.js'
import {KeyInterner, parseRow, RowError, traceRowError, type TraceRow} from './trace-rows.js'
import {plainPaths} from '../../util/plain.js'

export interface TraceReadOptions {
  path: string
  name: string
  skipInvalid: boolean
  mode: 'read_write' | 'request'
  keys: KeyInterner
  /**
   * rows as the July-2026 Optimizer reads them (tiered configurations): `ttl_us` kept, get, write and request rows
   * mixed, timestamps above 0; every row goes through the plain parser
   */
  tieredRows?: boolean
  /** the fast lane checks keys but interns none (each key id 0): for a pre-pass that needs only key counts */
  countKeysOnly?: boolean
  /**
   * the caller never reads `keys` (nor the key ids' order beyond the rows): the rows may be read on another thread
   * with its own interner (the parse thread an accelerator may put in, {@link useParseThread}). Tiered rows are
   * read there too: without keysPrivate the caller reads only their keys' values by id, which that thread hands back.
   */
  keysPrivate?: boolean
  /** filled with the shards of the keys of each batch before the batch is handed over (by the parse thread, if any) */
  keyShards?: KeyShards
  onBytes?(bytes: number): void
}

// The row scanner an accelerator may put in (through seams.ts): a line is read through it, and the lines it declines
// go to the plain parser (trace-rows.ts); without one, or with LMT_PLAIN=1, every line goes there.

/** Reads a trace row from a line's UTF-8 bytes; undefined leaves the line to the plain parser (trace-rows.ts). */
export interface RowScanner {
  /** keep `ttl_us` (the rows of a tiered configuration) */
  keepTtl: boolean
  /** `keys` undefined: keys are checked, not interned (each key id 0) */
  scan(
    bytes: Uint8Array,
    start: number,
    end: number,
    lineNo: number,
    keys: KeyInterner | undefined,
  ): TraceRow | undefined
}

let makeScanner: (() => RowScanner) | undefined

/** Puts a row scanner in (seams.ts), or takes it out (undefined). */
export function useRowScanner(make: (() => RowScanner) | undefined): void {
  makeScanner = make
}

/** A row scanner for one read, if one is in and the plain paths are not asked for. */
function rowScanner(): RowScanner | undefined {
  return plainPaths() ? undefined : makeScanner?.()
}

/** Reads the rows on another thread: the same batches, progress calls, statistics and errors as this module's. */
export type ParseThread = (opts: TraceReadOptions, stats: TraceReadStats) => AsyncGenerator<TraceRow[]>

let parseThread: ((bytes: number) => ParseThread | undefined) | undefined

/**
 * Puts a parse thread in (seams.ts), or takes it out (undefined): `choose` gets the trace's size and says whether
 * (and how) it is read on a second thread.
 */
export function useParseThread(choose: ((bytes: number) => ParseThread | undefined) | undefined): void {
  parseThread = choose
}

/** lines per batch: big enough that the per-batch costs (a resumption, the progress call) vanish */
const BATCH_LINES = 1024
const BATCH_BYTES = 256 << 10

/** A trace's read statistics, all 0 but its size: rows read, by type, invalid ones by rule (counted, skipped). */
export function newStats(path: string) {
  let bytes = 0
  try {
    bytes = statSync(path).size
  } catch {
    // reported when reading
  }
  return {rows: 0, rowsByType: {get: 0, write: 0, request: 0}, invalid: {} as Record<string, number>, bytes}
}

export type TraceReadStats = ReturnType<typeof newStats>

/**
 * Streams validated rows in file order (rules V1–V9 and the mode rule), a batch of lines at a time (one resumption
 * per batch, not per row); invalid rows throw or are counted. A row that throws does so after the rows before it
 * were handed over, as it would row by row. Lines are read as bytes: the row scanner (an accelerator, seams.ts)
 * reads them without decoding, and only a line it gives up on (or every line, without one) is decoded for the plain
 * parser.
 */
export async function* readTraceRowBatches(
  opts: TraceReadOptions,
  stats: TraceReadStats,
): AsyncGenerator<TraceRow[]> {
  const onThread =
    (opts.keysPrivate || opts.tieredRows) && !opts.countKeysOnly && !plainPaths()
      ? parseThread?.(stats.bytes)
      : undefined
  if (onThread !== undefined) {
    yield* onThread(opts, stats)
    return
  }
  // a line the reader cannot hand over as text breaks rule V1
  const badLine = (lineNo: number, message: string) => {
    if (!opts.skipInvalid) throw traceRowError(opts.name, lineNo, new RowError('V1', message))
    stats.rows++
    stats.invalid.V1 = (stats.invalid.V1 ?? 0) + 1
  }
  const reader = new LineReader(
    opts.path,
    {
      invalidUtf8: (lineNo) => badLine(lineNo, 'the line is not valid UTF-8'),
      tooLong: (lineNo, _preview, bytes) => badLine(lineNo, tooLongMessage(bytes, reader.maxLineBytes)),
    },
    {chunkBytes: BATCH_BYTES, reuseReadBuffers: true},
  )
  const scanner = rowScanner()
  if (scanner !== undefined) scanner.keepTtl = opts.tieredRows === true
  const fastKeys = opts.countKeysOnly ? undefined : opts.keys
  try {
    for await (const lines of reader.lineBatches({
      maxLines: BATCH_LINES,
      maxBytes: BATCH_BYTES,
      recycle: true,
    })) {
      const rows: TraceRow[] = []
      let failure: unknown
      const {bytes, starts, ends, lineNos} = lines
      for (let i = 0; i < lines.count && failure === undefined; i++) {
        const lineNo = lineNos[i]
        stats.rows++
        let row: TraceRow
        try {
          row =
            scanner?.scan(bytes, starts[i], ends[i], lineNo, fastKeys) ??
            parseRow(lines.text(i), lineNo, opts.keys, opts.tieredRows)
          if (opts.tieredRows && row.ts <= 0n)
            throw new RowError('V5', `timestamp_ns must be positive (timestamp_ns=${row.ts})`)
        } catch (err) {
          if (!(err instanceof RowError)) throw err
          if (opts.skipInvalid) {
            stats.invalid[err.rule] = (stats.invalid[err.rule] ?? 0) + 1
            continue
          }
          failure = traceRowError(opts.name, lineNo, err)
          break
        }
        stats.rowsByType[row.type]++
        if (!opts.tieredRows && (opts.mode === 'read_write') !== (row.type !== 'request')) {
          failure = modeError(opts, lineNo, row.type)
          break
        }
        rows.push(row)
      }
      opts.onBytes?.(reader.bytesRead) // after the batch's rows are counted, so the two figures agree
      opts.keyShards?.takeFrom(opts.keys)
      if (rows.length > 0) yield rows
      if (failure !== undefined) throw failure
    }
  } catch (err) {
    if (['ENOENT', 'EISDIR', 'EACCES'].includes((err as NodeJS.ErrnoException).code as string))
      throw lmtError('SIM_TRACE_READ', opts.name, (err as Error).message, {
        suggestions: inputReadHints(err, 'a trace'),
      })
    throw err
  }
}

function modeError(opts: TraceReadOptions, lineNo: number, type: string): Error {
  return lmtError('SIM_TRACE_MODE', opts.name, lineNo, type, opts.mode, {
    suggestions: [
      opts.mode === 'read_write'
        ? 'set trace_replay.mode to "request" (or --replay-mode request)'
        : 'set trace_replay.mode to "read_write" (or --replay-mode read_write)',
    ],
  })
}

/** The type of the first non-blank row (quick form's replay mode), or undefined. */
export async function firstRowType(path: string): Promise<string | undefined> {
  // an over-long line is passed over here: the full read reports it (V1)
  const reader = new LineReader(path, {tooLong: () => {}})
  try {
    for await (const line of reader.lines()) {
      const m = /"type"\s*:\s*"(\w+)"/.exec(line.text)
      return m?.[1]
    }
  } catch (err) {
    throw lmtError('SIM_TRACE_READ', path, (err as Error).message, {
      suggestions: inputReadHints(err, 'a trace'),
    })
  }
  return undefined
}

/** The text of the first non-blank line (trimmed), or undefined (an empty or unreadable file). */
export async function firstLine(path: string): Promise<string | undefined> {
  const reader = new LineReader(path, {tooLong: () => {}, invalidUtf8: () => {}})
  try {
    for await (const line of reader.lines()) return line.text
  } catch {
    return undefined
  }
  return undefined
}
