export interface TraceCounts {
  total: number
  byType: Record<string, number>
}

export interface InputSummary {
  path: string
  bytes: number
  /** null when the converter did not read through the framework's line reader */
  linesRead: number | null
  blankLines: number | null
  converted: number | null
  skipped: Record<string, number>
  dropped: Record<string, number>
  notes: Record<string, number>
  traces: TraceCounts
}

export interface InstanceSummary {
  instanceId: string
  blockSize: number | null
  traces: number
}

/** The `--json` document of `lmt convert` (docs/convert.md §2.6); no bigint anywhere. */
export interface ConvertSummary {
  format: string
  converter: {className: string; source: string; path?: string}
  output: string
  ordering: 'merged' | 'concatenated'
  traces: TraceCounts
  instances: InstanceSummary[]
  inputs: InputSummary[]
  warnings: number
  elapsedMs: number
}
