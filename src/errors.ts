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
    message: (format: string, known: readonly string[]) =>
      `unknown format "${format}"; known formats: ${known.join(', ') || '(none)'}`,
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
  INTERRUPTED: {exit: 130, message: (signal: string) => `interrupted by ${signal}`},
  // .lct files (lct.md §4.3): every message names the file
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
  // lmt simulate (simulate.md §1.4)
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
  SIM_UNKNOWN_INSTANCE: {exit: 1, message: detail},
  SIM_TS_OVERFLOW: {exit: 1, message: detail},
  SIM_OUTPUT: {exit: 1, message: detail},
  // lmt report
  REPORT_USAGE: {exit: 2, message: detail},
  REPORT_OUTPUT: {exit: 1, message: detail},
  // lmt replay (storage-replay.md §1.4)
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
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = 'LmtError'
    this.kind = kind
    this.code = `LMT_${kind}`
    this.exitCode = options.exitCode ?? catalogue[kind].exit
    this.suggestions = options.suggestions ?? []
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
