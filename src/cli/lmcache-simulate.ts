// `lmt simulate -i DIR -f lmcache_lookup --policy lmcache_lru`: the request from the flags, LMCache's cache
// simulator run (src/simulate/lmcache/), and what the console shows of it. The replay and its numbers are the
// library's; this module only checks flags and renders.
import {lmtError} from '../errors.js'
import type {SkippedLine} from '../formats/lmcache/lookup-log.js'
import {
  LMCACHE_FORMAT,
  lmcacheSweepBytes,
  lookupParameterLines,
  lookupPointJson,
  type LookupSimResult,
  lookupStatisticsLines,
  lookupSweepLines,
  simulateLookupLog,
  thousands,
} from '../simulate/index.js'

export const LMCACHE_POLICY = 'lmcache_lru'
export {LMCACHE_FORMAT, layoutBytesPerToken} from '../simulate/index.js'

/** LMCache's default sweep: 0.5 – 500 GiB, 30 points. */
const DEFAULT_SWEEP = {min: 0.5, max: 500, points: 30}

export interface LmcacheSimFlags {
  input?: string[]
  format?: string
  instance?: string
  capacity?: string
  'capacity-blocks'?: number
  'bytes-per-token'?: number
  sweep: boolean
  'sweep-capacities'?: string
  'sweep-min'?: string
  'sweep-max'?: string
  'sweep-points'?: number
  'sweep-unit'?: string
  quiet: boolean
}

export interface LmcacheSimOutput {
  /** the `--json` document */
  json: Record<string, unknown>
  /** the report's lines (stdout) */
  lines: string[]
}

/** A capacity in GiB: a number, optionally followed by `GiB` (or `GB`, the same 2^30 bytes in lmt). */
export function gibValue(flag: string, text: string): number {
  const n = Number(text.trim().replace(/\s*gi?b$/i, ''))
  if (!(n > 0) || !Number.isFinite(n))
    throw lmtError('CLI_BAD_VALUE', `--${flag}`, text, 'a positive number of GiB')
  return n
}

/** The checks of the lmcache_lru form (usage errors, before any work). */
export function checkLmcacheUsage(flags: LmcacheSimFlags, config: string | undefined): void {
  if (config !== undefined || flags.input === undefined || flags.format !== LMCACHE_FORMAT)
    throw lmtError('SIM_LMCACHE_USAGE', `reads lookup-hash logs: give -i LOG_DIR -f ${LMCACHE_FORMAT}`, {
      suggestions: [`lmt simulate -i LOG_DIR -f ${LMCACHE_FORMAT} --policy ${LMCACHE_POLICY} --capacity 64`],
    })
  if (flags['capacity-blocks'] !== undefined)
    throw lmtError('SIM_LMCACHE_USAGE', 'the capacity is in GiB (--capacity), as LMCache counts it')
  if (!flags.sweep && flags.capacity === undefined)
    throw lmtError('CLI_FLAG_NEEDS', `--policy ${LMCACHE_POLICY}`, '--capacity GiB (or --sweep)')
  if (flags.sweep && flags['sweep-unit'] !== undefined && !/^gi?b$/i.test(flags['sweep-unit']))
    throw lmtError('SIM_LMCACHE_USAGE', 'sweep points are capacities in GiB (--sweep-unit gib)')
}

/** The capacities of the run: one (`--capacity`), listed GiB, or LMCache's log-spaced bytes. */
function capacities(flags: LmcacheSimFlags): {gib?: number[]; bytes?: number[]} {
  if (!flags.sweep) return {gib: [gibValue('capacity', flags.capacity as string)]}
  if (flags['sweep-capacities'] !== undefined)
    return {gib: flags['sweep-capacities'].split(',').map((x) => gibValue('sweep-capacities', x))}
  const min = flags['sweep-min'] === undefined ? DEFAULT_SWEEP.min : gibValue('sweep-min', flags['sweep-min'])
  const max = flags['sweep-max'] === undefined ? DEFAULT_SWEEP.max : gibValue('sweep-max', flags['sweep-max'])
  if (max < min) throw lmtError('CLI_OUT_OF_RANGE', '--sweep-max', 'at least --sweep-min')
  return {bytes: lmcacheSweepBytes(min, max, flags['sweep-points'] ?? DEFAULT_SWEEP.points)}
}

/** Why lmt's own policies answer differently on the same log (printed after LMCache's figures). */
export const DIFFERENCE_NOTE = [
  `note: ${LMCACHE_POLICY} is LMCache's cache simulator: one chunk cache shared by every model, and every chunk of`,
  '  a lookup refreshed or inserted in order, cached chunks after the first miss included (evicting as it goes).',
  "  lmt's own policies (--policy lru, leaf_aware_lru, …) keep one prefix cache per model, where a chunk is cached",
  '  only with its whole prefix; run the same command with --policy lru to compare.',
]

/** Runs LMCache's simulator over the logs and renders it; warnings (skipped lines, directories) go to `warn`. */
export async function runLmcacheSimulate(
  flags: LmcacheSimFlags,
  o: {warn(message: string): void; signal?: AbortSignal; onProgress?(bytes: number, total: number): void},
): Promise<LmcacheSimOutput> {
  const caps = capacities(flags)
  const onSkip = (s: SkippedLine) => o.warn(`${s.file}:${s.lineNo}: skipped: ${s.reason}`)
  const result = await simulateLookupLog({
    inputs: flags.input as string[],
    model: flags.instance,
    capacitiesGib: caps.gib,
    capacitiesBytes: caps.bytes,
    bytesPerToken: flags['bytes-per-token'],
    stats: !flags.sweep,
    signal: o.signal,
    onSkip,
    onWarning: o.warn,
    onProgress: o.onProgress,
  })
  return {json: jsonOf(result, flags), lines: linesOf(result, flags, caps.gib?.[0])}
}

function jsonOf(result: LookupSimResult, flags: LmcacheSimFlags): Record<string, unknown> {
  const head = {
    policy: LMCACHE_POLICY,
    format: LMCACHE_FORMAT,
    inputs: flags.input,
    files: result.files,
    model_filter: flags.instance ?? null,
    events: result.events,
    skipped_lines: result.skipped_lines,
    in_order: result.in_order,
    kv_bytes_per_chunk: result.kv_bytes_per_chunk,
    kv_bytes_source: result.kv_bytes_source,
    chunk_size: result.chunk_size ?? null,
  }
  if (flags.sweep) return {...head, points: result.points.map(lookupPointJson)}
  return {...head, ...(result.points[0] ? lookupPointJson(result.points[0]) : {})}
}

function linesOf(result: LookupSimResult, flags: LmcacheSimFlags, gib: number | undefined): string[] {
  const files = result.files.length
  const head = [
    `lmt simulate: ${LMCACHE_POLICY} over ${thousands(result.events)} lookup(s) from ${files} file(s)` +
      (result.skipped_lines > 0 ? `, ${result.skipped_lines} bad line(s) skipped` : ''),
  ]
  if (result.events === 0) return [...head, 'No events to process.']
  head.push(
    `KV bytes per chunk: ${thousands(result.kv_bytes_per_chunk)} (${result.kv_bytes_source === 'layout' ? "the first lookup's dtypes and shapes" : '--bytes-per-token × chunk size'})`,
    '',
  )
  if (flags.sweep) return [...head, ...lookupSweepLines(result, flags.instance), '', ...DIFFERENCE_NOTE]
  const point = result.points[0]
  return [
    ...head,
    ...lookupParameterLines(result, gib as number, flags.instance),
    '',
    ...lookupStatisticsLines(result, point),
    '',
    ...DIFFERENCE_NOTE,
  ]
}
