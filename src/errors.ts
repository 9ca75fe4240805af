import {closest} from './util/closest.js'

/**
 * The one catalogue of lmt's coded errors. Library code throws {@link LmtError}s made here; commands render them
 * (message, suggestions, exit code, and the `--json` error document).
 */
/** The hint of an output file that could not be written (a full disk, a read-only directory). */
export const OUTPUT_WRITE_HINT = 'check the free space and the permissions of the output directory'

function detail(text: string): string {
  return text
}

function lctMessage(source: string, detail: string): string {
  return `trace file '${source}': ${detail}`
}

const catalogue = {
  USAGE: {exit: 2, message: (detail: string) => detail},
  UNKNOWN_FORMAT: {
    exit: 2,
    message: (format: string, known: readonly string[]) => {
      const near = closest(format, known)
      return `unknown format "${format}"${near ? ` (did you mean "${near}"?)` : ''}; known formats: ${known.join(', ') || '(none)'}`
    },
  },
  INPUT_NOT_FOUND: {exit: 1, message: (detail: string) => detail},
  BAD_CONFIG: {exit: 1, message: (detail: string) => `invalid converter config: ${detail}`},
  CONVERTER_FAILED: {exit: 1, message: (detail: string) => detail},
  CONTRACT_VIOLATION: {exit: 1, message: (detail: string) => detail},
  STRICT_INPUT: {
    exit: 1,
    message: (where: string, code: string, message: string) => `${where}: ${code}: ${message} (--strict)`,
  },
  NO_TRACES: {exit: 1, message: () => 'no traces generated from any input'},
  OUTPUT_FAILED: {exit: 1, message: (detail: string) => detail},
  // every command that writes files: an existing output that is not a regular file is never written over
  OUTPUT_NOT_REGULAR: {
    exit: 2,
    message: (path: string, what: string) =>
      `output ${path} exists and is ${what}, not a regular file; lmt never writes over one`,
  },
  STDOUT_FAILED: {exit: 1, message: (reason: string) => `cannot write to standard output: ${reason}`},
  INTERRUPTED: {exit: 130, message: (signal: string) => `interrupted by ${signal}`},
  // a worker thread (line mappers, sweep points, trace reading) that ended before it was closed
  WORKER_FAILED: {exit: 1, message: (who: string, detail: string) => `the ${who} thread stopped (${detail})`},
  PLUGIN_EXIT: {
    exit: 1,
    message: (who: string, code: number) =>
      `${who} called process.exit(${code}); lmt stopped it there (plugin code must throw an error or return, never exit)`,
  },
  // .lct files (docs/lct.md §4.3): every message names the file
  LCT_IO: {exit: 1, message: lctMessage},
  LCT_EMPTY: {exit: 1, message: lctMessage},
  LCT_TRUNCATED: {exit: 1, message: lctMessage},
  LCT_FRAME_TOO_LARGE: {exit: 1, message: lctMessage},
  LCT_MALFORMED_HEADER: {exit: 1, message: lctMessage},
  LCT_G0_HEADER: {exit: 1, message: lctMessage},
  LCT_BAD_MAGIC: {exit: 1, message: lctMessage},
  LCT_UNSUPPORTED_FORMAT: {exit: 1, message: lctMessage},
  LCT_UNSUPPORTED_SCHEMA: {exit: 1, message: lctMessage},
  LCT_CLOSED: {exit: 1, message: lctMessage},
  // lmt simulate (docs/simulate.md §1.4)
  SIM_USAGE: {exit: 2, message: detail},
  SIM_CONFIG_READ: {exit: 2, message: detail},
  SIM_CONFIG_SCHEMA: {exit: 2, message: detail},
  SIM_CONFIG_LEGACY: {exit: 2, message: detail},
  SIM_CONFIG_DUPLICATE: {exit: 2, message: detail},
  SIM_CAPACITY_MISSING: {exit: 2, message: detail},
  SIM_BYTES_PER_TOKEN_MISSING: {exit: 2, message: detail},
  SIM_TRACE_READ: {exit: 1, message: detail},
  SIM_TRACE_ROW: {exit: 1, message: detail},
  SIM_TRACE_MODE: {exit: 1, message: detail},
  SIM_PARTIAL_TAIL: {exit: 1, message: detail},
  SIM_BLOCK_SIZE_MISMATCH: {
    exit: 1,
    message: (where: string, blockSize: string, rowFit: string, implied: string) =>
      `${where}: block_size ${blockSize} is too small for this row: ${rowFit}; ${implied}`,
  },
  SIM_BLOCK_SIZE_INCONSISTENT: {
    exit: 1,
    message: (trace: string, instance: string, why: string) =>
      `${trace}: the block size of instance "${instance}" cannot be inferred: ${why}`,
  },
  SIM_TRACE_NOT_CONVERTED: {
    exit: 1,
    message: (trace: string, formats: readonly string[]) =>
      `${trace} is not the Get+Write JSONL that simulate reads: its first line looks like a ${formats.join(' or ')} trace; run \`lmt convert -f ${formats[0]}\` first`,
  },
  SIM_NO_ROWS: {
    exit: 1,
    message: (trace: string, why: string) => `${trace}: no row was replayed (${why}); nothing was written`,
  },
  SIM_UNKNOWN_INSTANCE: {exit: 1, message: detail},
  SIM_TS_OVERFLOW: {exit: 1, message: detail},
  SIM_OUTPUT: {exit: 1, message: detail},
  // lmt report
  REPORT_USAGE: {exit: 2, message: detail},
  REPORT_OUTPUT: {exit: 1, message: detail},
  // lmt replay (docs/storage-replay.md §1.4)
  REPLAY_USAGE: {exit: 2, message: detail},
  REPLAY_UNKNOWN_LEVEL: {exit: 2, message: detail},
  REPLAY_LEVEL_MISMATCH: {exit: 2, message: detail},
  REPLAY_SCHEMA_NOT_REPLAYABLE: {exit: 2, message: detail},
  REPLAY_CONFIG: {exit: 2, message: detail},
  REPLAY_OUTPUT: {exit: 1, message: detail},
  REPLAY_RECORDS_FAILED: {exit: 1, message: detail},
  REPLAY_INTERNAL: {exit: 1, message: detail},
} as const

export type ErrorKind = keyof typeof catalogue
type Args<K extends ErrorKind> = (typeof catalogue)[K]['message'] extends (...a: infer A) => string
  ? A
  : never

export class LmtError extends Error {
  /** The catalogue entry, e.g. `UNKNOWN_FORMAT` (the `--json` error code). */
  readonly kind: ErrorKind
  /** `LMT_<KIND>` */
  readonly code: string
  readonly exitCode: number
  readonly suggestions: readonly string[]

  constructor(
    kind: ErrorKind,
    message: string,
    options: {exitCode?: number; suggestions?: string[]; cause?: unknown} = {},
  ) {
    // own properties only: a plugin's `Object.prototype.exitCode = 0` must not turn an error into a success
    const cause = Object.hasOwn(options, 'cause') ? options.cause : undefined
    super(message, cause === undefined ? undefined : {cause})
    this.name = 'LmtError'
    this.kind = kind
    this.code = `LMT_${kind}`
    const exitCode = Object.hasOwn(options, 'exitCode') ? options.exitCode : undefined
    this.exitCode = typeof exitCode === 'number' ? exitCode : catalogue[kind].exit
    const suggestions = Object.hasOwn(options, 'suggestions') ? options.suggestions : undefined
    this.suggestions = Array.isArray(suggestions) ? suggestions : []
  }
}

/** Builds the coded error of `kind` with the catalogue's message. */
export function lmtError<K extends ErrorKind>(
  kind: K,
  ...args: [...Args<K>, options?: {suggestions?: string[]; cause?: unknown; exitCode?: number}]
): LmtError {
  const factory = catalogue[kind].message as (...a: unknown[]) => string
  const arity = factory.length
  const last =
    args.length > arity ? (args[arity] as {suggestions?: string[]; cause?: unknown; exitCode?: number}) : {}
  return new LmtError(kind, factory(...args.slice(0, arity)), last)
}

export function isLmtError(err: unknown): err is LmtError {
  return err instanceof LmtError
}

/** A `.lct` reading error: the byte offset it concerns and the name of the source. */
export class LctError extends LmtError {
  constructor(
    kind: ErrorKind,
    readonly source: string,
    /** the message without the source name (what a worker thread sends to rebuild the error) */
    readonly detail: string,
    readonly offset: number,
    suggestions?: string[],
  ) {
    super(kind, lctMessage(source, detail), {suggestions})
    this.name = 'LctError'
  }
}
