// `lmt report -i EVENTS.lct`: the numbers of the report page for an LMCache `events` trace — LMCache's `trace info`
// (the header block and its events summary) beside what the `events` level replays from the batches: per-tier,
// per-backend occupancy and deletions (evictions among them) over time, and the stream's health. Two passes over
// the file: trace info's count, then the replay.
import {basename} from 'node:path'
import {statSync} from 'node:fs'
import {JsonFloat} from '../../formats/json/json-float.js'
import {type EventsSummaryJson, sortedCounts} from '../../formats/lct/events-summary.js'
import {readable} from '../../formats/lct/readable.js'
import {countTrace, openTrace} from '../../formats/lct/reader.js'
import {EventsTarget, eventsObservations, playEventsRecord} from './events-level.js'

export interface EventsReportRequest {
  file: string
  version: string
  onProgress?(p: {phase: string; done: number; total: number}): void
}

/** JsonFloat → number, everywhere in a value (the document is plain JSON). */
function plain(v: unknown): unknown {
  if (v instanceof JsonFloat) return v.value
  if (Array.isArray(v)) return v.map(plain)
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
  return v
}

/** Whether a file is an LMCache `.lct` trace of the `events` level (false for anything else, unreadable included). */
export async function isEventsTrace(file: string): Promise<boolean> {
  try {
    const reader = await openTrace(file)
    const level = reader.header.level
    await reader.close()
    return level === 'events'
  } catch {
    return false
  }
}

/**
 * The report's document: `trace` has `lmt trace info`'s header figures, `lmcache_trace_info` LMCache's `trace info`
 * events block (as `lmt trace info --json`'s `events`), `replay` the events level's replay (as `lmt replay --json`'s
 * model, without the trace-info part), `warnings` the reader's (torn tail, skipped frames).
 */
export async function buildEventsReport(req: EventsReportRequest) {
  const started = performance.now()
  const name = basename(req.file)
  const bytes = statSync(req.file).size
  const progress = (phase: string, done: number) => req.onProgress?.({phase, done, total: bytes})
  const count = await countTrace(req.file, {name, onProgress: (done) => progress('reading the trace', done)})
  const target = new EventsTarget()
  const reader = await openTrace(req.file, {name})
  try {
    for await (const batch of reader.batches())
      for (const r of batch) playEventsRecord(target, r.qualname, r.args)
  } finally {
    await reader.close()
  }
  const {lmcache_trace_info: lmcache, ...replay} = eventsObservations(target).json as Record<
    string,
    unknown
  > & {
    lmcache_trace_info: EventsSummaryJson
  }
  const h = count.header
  return {
    format: 'lmt.events_report',
    format_version: 1,
    lmt_version: req.version,
    trace: {
      path: req.file,
      name,
      bytes,
      level: h.level,
      format_version: h.formatVersion,
      trace_schema_version: h.traceSchemaVersion,
      duration_s: count.maxTMono,
      sm_config_digest: h.smConfigDigest,
      level_meta: readable(h.levelMeta) as Record<string, unknown>,
      total_records: count.totalRecords,
      ops: sortedCounts(count.byQualname),
      frames_skipped: count.framesSkipped,
      truncated: count.truncated,
    },
    lmcache_trace_info: lmcache,
    replay: plain(replay) as Record<string, unknown>,
    warnings: count.warnings.map((w) => w.message),
    performance: {seconds: (performance.now() - started) / 1000},
  }
}

export type EventsReportDocument = Awaited<ReturnType<typeof buildEventsReport>>
