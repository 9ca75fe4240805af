// The report document: what the HTML page and --json show (schemas/report.schema.json), and its trace and
// configuration sections.
import type {LmcacheLookupSection, Notice} from '../simulate/index.js'
import type {CapacityRow} from './capacity-table.js'
import type {Characterization} from './characterize.js'
import type {Curves, Totals} from './curves.js'
import type {OverTimeSeries} from './over-time.js'

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
