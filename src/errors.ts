/**
 * The one catalogue of lmt's coded errors. Library code throws {@link LmtError}s made here; commands render them
 * (message, suggestions, exit code, and the `--json` error document).
 */
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
  STRICT_INPUT: {exit: 1, message: (where: string, code: string, message: string) => `${where}: ${code}: ${message} (--strict)`},
  NO_TRACES: {exit: 1, message: () => 'no traces generated from any input'},
  OUTPUT_FAILED: {exit: 1, message: (detail: string) => detail},
  INTERRUPTED: {exit: 130, message: (signal: string) => `interrupted by ${signal}`},
} as const

export type ErrorKind = keyof typeof catalogue
type Args<K extends ErrorKind> = (typeof catalogue)[K]['message'] extends (...a: infer A) => string ? A : never

export class LmtError extends Error {
  /** The catalogue entry, e.g. `UNKNOWN_FORMAT` (the `--json` error code). */
  readonly kind: ErrorKind
  /** `LMT_<KIND>` */
  readonly code: string
  readonly exitCode: number
  readonly suggestions: readonly string[]

  constructor(kind: ErrorKind, message: string, options: {exitCode?: number; suggestions?: string[]; cause?: unknown} = {}) {
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
  const last = args.length > arity ? (args[arity] as {suggestions?: string[]; cause?: unknown; exitCode?: number}) : {}
  return new LmtError(kind, factory(...args.slice(0, arity)), last)
}

export function isLmtError(err: unknown): err is LmtError {
  return err instanceof LmtError
}
