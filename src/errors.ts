/**
 * The one catalogue of lmt's coded errors. Library code throws {@link LmtError}s made here; commands render them
 * (message, suggestions, exit code, and the `--json` error document).
 *
 * Every kind is `<AREA>_<CONDITION>` and its code `LMT_<AREA>_<CONDITION>`; the areas are fixed: CLI (flags and
 * arguments any command shares, standard output, interrupts), CONVERT, PLUGIN, OUTPUT (the rules every output file
 * follows), LCT (.lct files), SIM (simulate), REPLAY, REPORT. Each kind has one message factory: the throw site
 * passes the facts (paths, values, names), the wording is here. docs/architecture.md ("Errors") says how to add one.
 */
/** The hint of an output file that could not be written (a full disk, a read-only directory). */
export const OUTPUT_WRITE_HINT = 'check the free space and the permissions of the output directory'

/** What to do with a file that is not an .lct trace (the hint of a bad magic). */
export const LCT_NOT_A_TRACE_HINT =
  'a JSONL trace is read by `lmt simulate` (Get+Write JSONL) or `lmt convert` (a serving trace), and `lmt convert -f <format> --mode lct` makes an .lct from one'

/**
 * What to do about an input file (`what`: "a trace", "an input file") that could not be opened, by the
 * file system's code: a wrong path, a folder, missing permissions. Other failures get no hint (nothing to check).
 */
export function inputReadHints(err: unknown, what: string): string[] {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return ['check the path: no file is there (a relative path starts at the current folder)']
  if (code === 'EISDIR') return [`a folder is not ${what}: give the path of a file in it`]
  if (code === 'EACCES' || code === 'EPERM')
    return ['check the permissions: lmt needs to read the file (ls -l shows them)']
  return []
}

function lctMessage(source: string, detail: string): string {
  return `trace file '${source}': ${detail}`
}

/** A `.lct` kind: the message is the file's name, then the detail built from the facts. */
function lct<A extends unknown[]>(detail: (...facts: A) => string) {
  return {
    exit: 1,
    detail,
    arity: detail.length + 1,
    message: (source: string, ...facts: A) => lctMessage(source, detail(...facts)),
  }
}

/** The failure of an output file: what lmt was doing (`cannot write out.jsonl`) and the file system's reason. */
function outputFailed(what: string, reason: string): string {
  return `${what}: ${reason}`
}

/** The converter contract's rules, as a violation of each is told after the converter's name. */
const CONTRACT_RULES = {
  'trace-not-object': (got: string) => ` produced a trace that is not an object (got ${got})`,
  'no-timestamp': (got: string) => ` produced a trace without an integer timestamp_ns (got ${got})`,
  unserializable: (why: string) => ` produced a trace that cannot be serialized: ${why}`,
  'traces-result': (got: string) =>
    `.convertToTraces() must return an array or an (async) iterable of traces (got ${got})`,
  'jsonl-count': (got: string) =>
    `.convertToTraceJsonl() must return a non-negative integer trace count (got ${got})`,
  'jsonl-line': (where: string) => ` wrote a line that is not valid JSON (${where})`,
}

const SCHEMA_1_NOT_REPLAY_SAFE =
  'trace_schema_version 1 is not replay-safe: schema-1 recorders did not store ObjectKey.cache_salt, so keys that differed only by cache salt were recorded as one key and replay may show hits and lock conflicts that never happened; replayable versions: 2 (pass --allow-schema-1 to replay it with every cache_salt empty)'

/** A kind's message factory with its exit code: 2 for a usage error, 1 for a failure. */
const usage = <F extends (...a: never[]) => string>(message: F) => ({exit: 2, message})
const failure = <F extends (...a: never[]) => string>(message: F) => ({exit: 1, message})

const catalogue = {
  // CLI: what every command shares
  CLI_UNKNOWN_COMMAND: usage(
    (typed: string, nearest: string | undefined) =>
      `"${typed}" is not an lmt command${nearest ? `; did you mean "${nearest}"?` : ''}`,
  ),
  CLI_FLAGS_EXCLUSIVE: usage((a: string, b: string) => `${a} and ${b} are mutually exclusive`),
  CLI_FLAG_NEEDS: usage((what: string, needed: string) => `${what} needs ${needed}`),
  CLI_BAD_VALUE: usage(
    (flag: string, value: string, expected: string) => `${flag}: "${value}" is not ${expected}`,
  ),
  CLI_OUT_OF_RANGE: usage(
    (flag: string, range: string, got?: string | number) =>
      `${flag} must be ${range}${got === undefined ? '' : `; got ${got}`}`,
  ),
  CLI_STDOUT_FAILED: failure((reason: string) => `cannot write to standard output: ${reason}`),
  CLI_STDIN_TWICE: usage((flag: string) => `${flag} names standard input (-) more than once`),
  CLI_STDIN_FAILED: failure((reason: string) => `cannot read standard input: ${reason}`),
  CLI_INPUT_CORRUPT: failure(
    (input: string, kind: string, reason: string) =>
      `cannot read ${input}: it starts as ${kind} data but does not decompress (${reason})`,
  ),
  CLI_INTERRUPTED: {exit: 130, message: (signal: string) => `interrupted by ${signal}`},
  // a worker thread (line mappers, sweep points, trace reading) that ended before it was closed
  CLI_WORKER_FAILED: failure((who: string, detail: string) => `the ${who} thread stopped (${detail})`),
  // CONVERT: lmt convert's inputs, settings and output
  CONVERT_UNKNOWN_FORMAT: usage((format: string, known: readonly string[]) => {
    const near = closest(format, known)
    return `unknown format "${format}"${near ? ` (did you mean "${near}"?)` : ''}; known formats: ${known.join(', ') || '(none)'}`
  }),
  CONVERT_REMOTE_INPUT: usage(
    (input: string) => `HTTP(S) inputs are not supported; download the file first: ${input}`,
  ),
  CONVERT_INPUT_NOT_FOUND: failure((input: string) => `input not found: ${input}`),
  CONVERT_INPUT_UNREADABLE: failure((input: string, reason: string) => `cannot read ${input}: ${reason}`),
  CONVERT_OUTPUT_IS_DIRECTORY: usage((output: string) => `output ${output} is a directory`),
  CONVERT_OUTPUT_IS_INPUT: usage(
    (output: string, input: string) => `output ${output} is the same file as input ${input}`,
  ),
  CONVERT_FLAG_OF_OTHER_FORMAT: usage(
    (flag: string, format: string, chosen: string) =>
      `${flag} is a flag of format ${format}, not of ${chosen}`,
  ),
  CONVERT_UNKNOWN_TIMEZONE: usage((zone: string) => `--timezone: unknown time zone "${zone}"`),
  CONVERT_BAD_BLOCK_SIZE: usage(
    (piece: string, problem: 'not-integer' | 'below-one' | 'too-large') =>
      `--instance-block-sizes: "${piece}": block size ${{'not-integer': 'is not an integer', 'below-one': 'must be at least 1', 'too-large': 'is too large'}[problem]}`,
  ),
  // reason: what the layout parser found (a JSON syntax error, a bad dimension, an unknown dtype)
  CONVERT_BAD_KV_LAYOUT: usage((reason: string) => `--kv-layout: ${reason}`),
  CONVERT_CONFIG_UNREADABLE: failure(
    (file: string, reason: string) => `invalid converter config: cannot read ${file}: ${reason}`,
  ),
  CONVERT_BAD_CONFIG: failure(
    (source: string, reason: string) => `invalid converter config: ${source}: ${reason}`,
  ),
  CONVERT_CONFIG_NOT_OBJECT: failure(
    (source: string) => `invalid converter config: ${source} must be a JSON object`,
  ),
  CONVERT_STRICT_INPUT: failure(
    (where: string, code: string, message: string) => `${where}: ${code}: ${message} (--strict)`,
  ),
  CONVERT_NO_TRACES: failure(() => 'no traces generated from any input'),
  CONVERT_RECORDS_DROPPED: failure(
    (count: number, output: string) => `${count} records could not be written to ${output}`,
  ),
  CONVERT_OUTPUT_FAILED: failure(outputFailed),
  // PLUGIN: what lmt enforces on plugin code
  // a pass-through by design: a converter (built-in or third-party, through the public lmtError) fails in its own
  // words; lmt cannot word a plugin's failures
  PLUGIN_CONVERTER_FAILED: failure((detail: string) => detail),
  // a pass-through by design: a plugin (a converter's parseOptions, a replay level's flags) refusing what the user
  // gave it, in its own words; exit 2 as every usage error
  PLUGIN_USAGE: usage((detail: string) => detail),
  // a module the user named (--converter-module) that did not load
  PLUGIN_MODULE_LOAD_FAILED: usage(
    (what: string, module: string, reason: string) => `cannot load ${what} module ${module}: ${reason}`,
  ),
  PLUGIN_NOT_A_PACKAGE: usage((dir: string) => `${dir} is not an npm package: it has no package.json`),
  PLUGIN_CONVERTER_THREW: failure((converter: string, reason: string, input?: string) =>
    input === undefined
      ? `${converter} failed to initialise: ${reason}`
      : `${converter} failed on ${input}: ${reason}`,
  ),
  PLUGIN_CONTRACT_VIOLATION: failure(
    (converter: string, rule: keyof typeof CONTRACT_RULES, got: string) =>
      `${converter}${CONTRACT_RULES[rule](got)}`,
  ),
  PLUGIN_EXIT: failure(
    (who: string, code: number) =>
      `${who} called process.exit(${code}); lmt stopped it there (plugin code must throw an error or return, never exit)`,
  ),
  PLUGIN_CRASHED: failure(
    (who: string, reason: string) =>
      `${who} failed outside any call lmt made to it (an error thrown in a timer, or a rejection nobody handled): ${reason}; lmt stopped it there`,
  ),
  PLUGIN_NEVER_SETTLED: failure(
    (who: string) =>
      `${who} stopped with its work unfinished: it awaits a promise that never settles, and nothing is left to settle it`,
  ),
  PLUGIN_TIMEOUT: failure(
    (who: string, seconds: number) => `${who} did not answer within ${seconds} s; lmt stopped it`,
  ),
  PLUGIN_LEVEL_FAILED: failure((level: string, reason: string) => `replay level ${level} failed: ${reason}`),
  PLUGIN_HOOK_TOO_MANY: failure(
    (plugin: string, hook: string, count: number, max: number) =>
      `plugin ${plugin}: the ${hook} hook returned ${count} items, more than the ${max} lmt takes; ignored`,
  ),
  // OUTPUT: every command that writes files: an existing output that is not a regular file is never written over
  OUTPUT_NOT_REGULAR: usage(
    (path: string, what: string) =>
      `output ${path} exists and is ${what}, not a regular file; lmt never writes over one`,
  ),
  OUTPUT_IS_INPUT: usage(
    (output: string, input: string) =>
      `output ${output} is the same file as the input ${input}; lmt never writes over its input`,
  ),
  // LCT: .lct files (docs/lct.md): every message names the file
  LCT_IO: lct((reason: string) => `cannot read: ${reason}`),
  LCT_EMPTY: lct(() => 'unexpected EOF reading frame length at offset 0 (the file is empty)'),
  LCT_TRUNCATED: lct((offset: number, got?: number, of?: number) =>
    got === undefined
      ? `truncated frame length prefix at offset ${offset}`
      : `truncated frame body at offset ${offset} (got ${got} of ${of})`,
  ),
  LCT_FRAME_TOO_LARGE: lct(
    (declared: number, limit: number) =>
      `header frame at offset 0 declares ${declared} bytes, above the frame limit of ${limit} bytes (see --max-frame-bytes)`,
  ),
  // reason: what the header check found (a msgpack error, a missing or mistyped field)
  LCT_MALFORMED_HEADER: lct((reason: string) => `malformed header at offset 0: ${reason}`),
  LCT_G0_HEADER: lct(
    (lmcacheVersion: string) =>
      `this trace was written by the first LMCache trace recorder (header field lmcache_version ${lmcacheVersion}, no trace_schema_version); that format is not supported — record the trace again with a current LMCache`,
  ),
  LCT_BAD_MAGIC: lct((magic: string) => `bad magic (got ${magic}, expected b'LMCT')`),
  LCT_UNSUPPORTED_FORMAT: lct(
    (version: number | bigint) => `unsupported format_version ${version} (this build expects 1)`,
  ),
  LCT_UNSUPPORTED_SCHEMA: lct(
    (version: number | bigint) => `unsupported trace_schema_version ${version} (this build supports 1, 2)`,
  ),
  LCT_CLOSED: lct(() => 'the reader is closed'),
  // SIM: lmt simulate (docs/simulate.md)
  SIM_NO_INPUT: usage(() => 'give a configuration file or --trace'),
  SIM_UNKNOWN_POLICY: usage(
    (policy: string, nearest: string | undefined) =>
      `--policy: unknown policy "${policy}"${nearest ? `; did you mean ${nearest}?` : ''}`,
  ),
  SIM_SWEEP_SETS_CAPACITY: usage(() => '--sweep sets the capacity itself; drop --capacity/--capacity-blocks'),
  SIM_SWEEP_GROUP_NEEDED: usage(() => 'several groups: name the one to sweep with --sweep-group'),
  SIM_UNKNOWN_GROUP: usage((flag: string, group: string) => `${flag}: no group "${group}"`),
  SIM_CONFIG_READ: usage((path: string, reason: string) => `cannot read configuration ${path}: ${reason}`),
  SIM_CONFIG_NOT_JSON: usage(
    (path: string, reason: string) => `configuration ${path} is not valid JSON: ${reason}`,
  ),
  SIM_CONFIG_TOO_DEEP: usage(
    (path: string, levels: number) => `configuration ${path} nests deeper than ${levels} levels`,
  ),
  SIM_CONFIG_NOT_OBJECT: usage((path: string) => `configuration ${path}: the top level must be an object`),
  SIM_CONFIG_SCHEMA: usage(
    (path: string, problems: readonly string[]) =>
      `configuration ${path} is invalid:\n  ${problems.join('\n  ')}`,
  ),
  SIM_CONFIG_LEGACY: usage(
    (path: string) =>
      `configuration ${path} is of the older Optimizer generation (it has "trace_type"; its capacities were in blocks, not GB)`,
  ),
  SIM_CONFIG_DUPLICATE: usage(
    (key: 'group_name' | 'instance_id', value: string, pointer: string) =>
      `${key} "${value}" appears twice (${pointer})`,
  ),
  SIM_CONFIG_NO_TRACE: usage(() => 'no trace: set trace_file_path or pass --trace'),
  SIM_CONFIG_NO_OUTPUT_DIR: usage(() => 'no output directory: set output_result_path or pass --output-dir'),
  SIM_TIER_CONFIG: usage((group: string, problem: string) => `group "${group}": ${problem}`),
  SIM_TIERED_NOT_PLAYED: usage(
    (what: string) => `${what} does not play configurations with a tier_strategy (storage tiers, TTL)`,
  ),
  SIM_CAPACITY_MISSING: usage((group: string) => `group "${group}" has no capacity`),
  SIM_CAPACITY_CONFLICT: usage(
    (group: string) => `group "${group}": quota_capacity and quota_capacity_blocks are mutually exclusive`,
  ),
  SIM_CAPACITY_TOO_LARGE: usage(
    (group: string) => `group "${group}": capacity or block weight too large for exact arithmetic`,
  ),
  SIM_BYTES_PER_TOKEN_MISSING: usage(
    (instance: string, group: string) =>
      `instance "${instance}" of group "${group}" has no bytes_per_token, needed for a capacity in GiB`,
  ),
  SIM_ABOVE_CEILING: failure(
    (what: string, rate: string, ceiling: string) =>
      `${what}: token hit rate ${rate} is above the infinite-capacity ceiling ${ceiling}, which no capacity can exceed; lmt computed a wrong answer and wrote nothing`,
  ),
  SIM_TRACE_READ: failure((trace: string, reason: string) => `cannot read trace ${trace}: ${reason}`),
  SIM_TRACE_ROW: failure(
    (trace: string, lineNo: number, problem: string, rule: string) =>
      `${trace}:${lineNo}: ${problem} [${rule}]`,
  ),
  SIM_TRACE_MODE: failure(
    (trace: string, lineNo: number, type: string, mode: string) =>
      `${trace}:${lineNo}: a "${type}" row in trace_replay.mode "${mode}"`,
  ),
  SIM_PARTIAL_TAIL: failure(
    (where: string, keys: number, inputLen: number, blockSize: number, maxKeys: number, implied: string) =>
      `${where}: contains partial tail block keys: ${keys} keys, input_len ${inputLen}, block_size ${blockSize} (at most ${maxKeys} keys) [V10]; ${implied}`,
  ),
  SIM_BLOCK_SIZE_MISMATCH: failure(
    (where: string, blockSize: string, rowFit: string, implied: string) =>
      `${where}: block_size ${blockSize} is too small for this row: ${rowFit}; ${implied}`,
  ),
  SIM_BLOCK_SIZE_INCONSISTENT: failure(
    (trace: string, instance: string, why: string) =>
      `${trace}: the block size of instance "${instance}" cannot be inferred: ${why}`,
  ),
  SIM_TRACE_NOT_CONVERTED: failure(
    (trace: string, formats: readonly string[]) =>
      `${trace} is not the Get+Write JSONL that lmt simulate and lmt report read: its first line looks like a ${formats.join(' or ')} trace; run \`lmt convert -f ${formats[0]}\` first`,
  ),
  SIM_NO_ROWS: failure(
    (trace: string, why: string) => `${trace}: no row was replayed (${why}); nothing was written`,
  ),
  SIM_UNKNOWN_INSTANCE: failure(
    (trace: string, lineNo: number, instance: string) =>
      `${trace}:${lineNo}: instance "${instance}" is not configured (--strict-instances)`,
  ),
  SIM_TS_OVERFLOW: failure(
    (trace: string, lineNo: number) => `${trace}:${lineNo}: timestamp_ns + write_delay_ns exceeds 2^63 - 1`,
  ),
  SIM_OUTPUT_FAILED: failure(outputFailed),
  SIM_LMCACHE_CHUNK_BYTES: failure(
    (where: string, why: string) =>
      `${where}: the bytes of one chunk cannot be determined from the first lookup's layout (${why})`,
  ),
  SIM_LMCACHE_USAGE: usage((what: string) => `--policy lmcache_lru: ${what}`),
  // REPORT: lmt report
  REPORT_NO_INPUT: usage(
    () => 'give a trace (--trace), inputs to convert (-i … -f …) or a configuration file',
  ),
  REPORT_UNKNOWN_POLICY: usage(
    (policy: string, known: readonly string[]) =>
      `--policies: unknown policy "${policy}" (known: ${known.join(', ')}, or all)`,
  ),
  REPORT_GROUP_NEEDED: usage(
    (groups: readonly string[]) =>
      `several groups (${groups.join(', ')}): name the one to answer for with --group`,
  ),
  REPORT_NO_ROWS: failure((trace: string) => `${trace}: the trace has no rows`),
  REPORT_OUTPUT_FAILED: failure(outputFailed),
  // REPLAY: lmt replay (docs/storage-replay.md)
  REPLAY_NO_TRACE: usage(() => 'missing trace file'),
  REPLAY_SPEED_NEEDS_REALTIME: usage(() => '--speed applies to --pace realtime only'),
  REPLAY_UNKNOWN_LEVEL: usage((level: string, known: readonly string[]) => {
    const near = closest(level, known)
    return `unknown replay level '${level}'${near ? ` (did you mean '${near}'?)` : ''}; known levels: ${known.join(', ')}`
  }),
  REPLAY_LEVEL_MISMATCH: usage(
    (traceLevel: string, flag: string) => `trace level is '${traceLevel}' but --level ${flag} was given`,
  ),
  REPLAY_SCHEMA_NOT_REPLAYABLE: usage((schema: number, level: string, replayable: readonly number[]) =>
    schema === 1
      ? SCHEMA_1_NOT_REPLAY_SAFE
      : `trace_schema_version ${schema} is not replayable by level ${level} (replayable: ${replayable.join(', ')})`,
  ),
  // a pass-through by design: a replay level (the built-in storage level or a plugin's) checks its own
  // configuration and says what is wrong in its own words
  REPLAY_CONFIG: usage((detail: string) => detail),
  REPLAY_RECORDS_FAILED: failure((count: number) => `${count} record(s) failed`),
  REPLAY_OUTPUT_FAILED: failure(outputFailed),
} as const

/** The kinds whose message is the caller's text, and why (test/errors/catalogue.test.ts holds every other to facts). */
export const PASS_THROUGH_KINDS: readonly ErrorKind[] = [
  'PLUGIN_CONVERTER_FAILED',
  'PLUGIN_USAGE',
  'REPLAY_CONFIG',
]

/**
 * Codes of errors that do not come from the catalogue, in the same scheme: oclif's own parse errors (`--json` code
 * `CLI_USAGE`) and an uncoded error, which is a bug (`CLI_INTERNAL`).
 */
export const NON_CATALOGUE_CODES = ['CLI_USAGE', 'CLI_INTERNAL'] as const

export type ErrorKind = keyof typeof catalogue
type Entry = {exit: number; arity?: number; message: (...a: never[]) => string}
type Args<K extends ErrorKind> = (typeof catalogue)[K]['message'] extends (...a: infer A) => string
  ? A
  : never
type LctKind = {[K in ErrorKind]: (typeof catalogue)[K] extends {detail: unknown} ? K : never}[ErrorKind]
type LctFacts<K extends LctKind> = (typeof catalogue)[K]['detail'] extends (...a: infer A) => string
  ? A
  : never
type ErrorOptions = {suggestions?: string[]; cause?: unknown; exitCode?: number}

export class LmtError extends Error {
  /** The catalogue entry, e.g. `CONVERT_UNKNOWN_FORMAT` (the `--json` error code). */
  readonly kind: ErrorKind
  /** `LMT_<KIND>` */
  readonly code: string
  readonly exitCode: number
  readonly suggestions: readonly string[]

  constructor(kind: ErrorKind, message: string, options: ErrorOptions = {}) {
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

function entryOf(kind: ErrorKind): {arity: number; factory: (...a: unknown[]) => string} {
  const entry = catalogue[kind] as Entry
  const factory = entry.message as (...a: unknown[]) => string
  return {arity: entry.arity ?? factory.length, factory}
}

/** The message of `kind` for these facts: what {@link lmtError} throws, and what tests expect. */
export function lmtMessage<K extends ErrorKind>(kind: K, ...facts: Args<K>): string {
  return entryOf(kind).factory(...facts)
}

/** The exit code of `kind`. */
export function exitCodeOfKind(kind: ErrorKind): number {
  return catalogue[kind].exit
}

/** Every kind of the catalogue. */
export function errorKinds(): ErrorKind[] {
  return Object.keys(catalogue) as ErrorKind[]
}

/** Builds the coded error of `kind` with the catalogue's message. */
export function lmtError<K extends ErrorKind>(
  kind: K,
  ...args: [...Args<K>, options?: ErrorOptions]
): LmtError {
  // plugin code calls this through the public entry, perhaps with a kind lmt no longer has (a name from before the
  // catalogue's naming scheme): that is the converter failing in its own words, not a TypeError inside lmt
  if (!Object.hasOwn(catalogue, kind)) return foreignKindError(kind, args)
  const {arity, factory} = entryOf(kind)
  const last = args.length > arity ? (args[arity] as ErrorOptions) : {}
  return new LmtError(kind, factory(...args.slice(0, arity)), last)
}

/**
 * `lmtError` with a kind outside the catalogue: PLUGIN_CONVERTER_FAILED with the caller's text (or the kind);
 * `CLI_USAGE`, the code of a usage error, is taken as PLUGIN_USAGE.
 */
function foreignKindError(kind: string, args: readonly unknown[]): LmtError {
  const text = typeof args[0] === 'string' ? args[0] : String(kind)
  const last = args.find((a, i) => i > 0 && a !== null && typeof a === 'object') as ErrorOptions | undefined
  return new LmtError(kind === 'CLI_USAGE' ? 'PLUGIN_USAGE' : 'PLUGIN_CONVERTER_FAILED', text, last ?? {})
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

/** Builds the {@link LctError} of `kind` about `source` at byte `offset`, its detail from the facts. */
export function lctError<K extends LctKind>(
  kind: K,
  at: {source: string; offset: number; suggestions?: string[]},
  ...facts: LctFacts<K>
): LctError {
  const detail = (catalogue[kind].detail as (...a: unknown[]) => string)(...facts)
  return new LctError(kind, at.source, detail, at.offset, at.suggestions)
}

// "Did you mean …?": the nearest of a few names by edit distance, for the suggestions of the errors above and
// of the commands' unknown names.

/** Levenshtein distance (insertions, deletions, substitutions), and adjacent swaps count as one edit. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({length: a.length + 1}, (_, i) =>
    Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2][j - 2] + 1)
      rows[i][j] = d
    }
  return rows[a.length][b.length]
}

/**
 * The candidate nearest to `input` (case-insensitive), if it is near enough to be a slip: at most a third of the
 * input's length in edits (at least 1, at most 3), or a candidate that starts with the input. Ties: the first given.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const low = input.toLowerCase()
  const limit = Math.min(3, Math.max(1, Math.floor(low.length / 3)))
  let best: string | undefined
  let bestDistance = Infinity
  for (const c of candidates) {
    const d = c.toLowerCase().startsWith(low) && low.length >= 2 ? 0.5 : editDistance(low, c.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [c, d]
  }
  return bestDistance <= limit ? best : undefined
}
