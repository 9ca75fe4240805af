// The first step of a run: its configuration resolved, its output directory made (or found) and checked, the
// names of its files, and the error of a run that plays no row.
import {existsSync} from 'node:fs'
import {basename, join} from 'node:path'
import {lmtError} from '../../errors.js'
import {ensureDirectory, refuseNonRegularOutput} from '../../util/output-path.js'
import {readConfigFile, resolveConfig} from '../config/config.js'
import {Notes} from '../config/notes.js'
import type {SimulateRequest} from '../config/request.js'
import type {Player} from '../engine/player.js'
import {foreignFormats, notConvertedError} from '../input/foreign-trace.js'
import {firstRowType, newStats} from '../input/trace-source.js'
import {CsvNames} from '../output/csv-names.js'
import type {PendingFiles} from '../../util/pending-files.js'

/** the outputs of a run besides the CSVs: refused before any work when one is a device, a FIFO or a folder */
const FIXED_OUTPUTS = [
  'summary.json',
  'sweep.csv',
  'hit_rate_over_time.svg',
  'hit_rate_over_time.vl.json',
  'sweep_hit_rate.svg',
  'sweep_hit_rate.vl.json',
]

/** What a failed run must undo or explain: set as soon as it is known. */
export interface RunContext {
  /** the run's outputs until they are committed together, and its temporaries */
  pending: PendingFiles
  tracePath?: string
  /** the output directory, and whether this run created it */
  out?: string
  createdOut?: string
}

/** Resolves the configuration and makes the output directory (noting in `run` what a failure must undo). */
export async function setUpRun(req: SimulateRequest, run: RunContext) {
  const started = performance.now()
  const file = req.configPath ? await readConfigFile(req.configPath) : undefined
  const first = !file && req.flags.trace ? await firstRowType(req.flags.trace) : undefined
  const resolved = resolveConfig(file, req.flags, first)
  const notes = new Notes([...resolved.notices])
  const cfg = resolved.config
  const out = cfg.output_result_path
  const createdOut = existsSync(out) ? undefined : out
  ensureDirectory(out, 'SIM_OUTPUT_FAILED')
  run.out = out
  run.createdOut = createdOut
  for (const name of FIXED_OUTPUTS) refuseNonRegularOutput(join(out, name), 'SIM_OUTPUT_FAILED')
  const tracePath = cfg.trace_file_path
  run.tracePath = tracePath
  const pending = run.pending
  pending.protect(
    [tracePath, req.configPath],
    FIXED_OUTPUTS.map((name) => join(out, name)),
  )
  return {
    req,
    // performance.now() at the start
    started,
    resolved,
    cfg,
    notes,
    out,
    tracePath,
    traceName: basename(tracePath),
    // the trace's read statistics (filled by the read that counts: the streamed one, or the sorted load)
    stats: newStats(tracePath),
    pending,
    csvNames: new CsvNames(notes, pending),
    // the names of the files written, in order (summary.json `outputs`)
    outputs: [] as string[],
  }
}

/** What every step of a run reads. */
export type RunSetup = Awaited<ReturnType<typeof setUpRun>>

/** Why a run played no row, as the no-rows error says it. */
export async function noRowsError(setup: RunSetup, skips?: Player['skips']): Promise<Error> {
  const {req, tracePath, stats} = setup
  const formats = await foreignFormats(tracePath, req.recogniseFormats)
  if (formats.length > 0) return notConvertedError(tracePath, formats)
  const invalid = Object.entries(stats.invalid)
  const why =
    stats.rows === 0
      ? 'the trace has no rows'
      : invalid.length > 0
        ? `${invalid.reduce((a, [, n]) => a + n, 0)} of ${stats.rows} rows were invalid and skipped (${invalid.map(([rule, n]) => `${rule} ${n}`).join(', ')})`
        : skips !== undefined && skips.unknown_instance > 0
          ? `${skips.unknown_instance} rows are of instances that are not configured (${[...skips.unknownInstances.keys()].slice(0, 5).join(', ')})`
          : 'no row reached a configured instance'
  return lmtError('SIM_NO_ROWS', basename(tracePath), why, {
    suggestions: [
      invalid.length > 0
        ? 'run without --skip-invalid to see the first invalid row and why'
        : 'check the trace and the configuration; a run must replay at least one row',
    ],
  })
}
