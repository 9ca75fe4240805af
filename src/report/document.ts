// The report document: what the HTML page and --json show (schemas/report.schema.json), and its trace and
// configuration sections.
import type {LmcacheLookupSection, Notice} from '../simulate/index.js'
import type {CapacityRow} from './capacity-table.js'
import type {Characterization} from './characterize.js'
import type {Curves, Totals} from './curves.js'
import type {LoadedInput} from './load.js'
import type {OverTimeSeries} from './over-time.js'
import type {TimeBins} from './time-bins.js'

export interface ReportAnswer {
  group: string
  wss_blocks: number
  bytes_per_block: number | null
  infinite: Totals
  grid: number[]
  curves: Curves['policies']
  belady: Curves['belady']
  stack: Curves['stack']
  capacity_table: CapacityRow[]
  chosen_capacity: {blocks: number; gb: number | null; source: 'flag' | 'lru_90'}
  /** every policy replayed at the chosen capacity: its token hit rate and over trace time */
  over_time: OverTimeSeries[]
}

export interface ReportDocument {
  format: 'lmt.report'
  format_version: 1
  lmt_version: string
  trace: Record<string, unknown>
  config: Record<string, unknown>
  notices: Notice[]
  characterization: Characterization
  answer: ReportAnswer
  /** an LMCache recording's own figures beside lmt's (a lookup-hash log: its cache simulator) */
  lmcache?: {lookup: LmcacheLookupSection}
  performance: {seconds: number}
}

/** what the trace's table and charts read: the untiered and the tiered page alike */
export type Characterized = Pick<ReportDocument, 'characterization'>

/** the trace read: its file, rows and time span */
export function traceSection(input: LoadedInput, bins: TimeBins): Record<string, unknown> {
  const rows = input.rows
  const first = rows[0].ts
  const last = rows[rows.length - 1].ts
  return {
    path: input.tracePath,
    name: input.traceName,
    bytes: input.stats.bytes,
    rows: input.stats.rows,
    rows_by_type: input.stats.rowsByType,
    invalid_rows: input.stats.invalid,
    first_timestamp_ns: first.toString(),
    last_timestamp_ns: last.toString(),
    duration_seconds: Number(last - first) / 1e9,
    time_bins: bins.count,
    bin_seconds: bins.widthSeconds(),
    instances: input.blockSizes.size,
  }
}

/** the configuration replayed: the group answered for, the eviction and replay modes, every instance's block size */
export function configSection(input: LoadedInput, groupName: string): Record<string, unknown> {
  const cfg = input.config
  return {
    group: groupName,
    eviction_mode: cfg.eviction_params.eviction_mode,
    eviction_batch_size_per_instance: cfg.eviction_params.eviction_batch_size_per_instance,
    replay_mode: cfg.trace_replay.mode,
    instances: [...input.blockSizes].map(([id, c]) => ({
      instance_id: id,
      block_size: c.blockSize,
      block_size_source: c.source,
    })),
  }
}
