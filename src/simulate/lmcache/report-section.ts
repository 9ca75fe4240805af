// `lmt report -i LOG_DIR -f lmcache_lookup`: LMCache's cache simulator (lmcache_lru) beside lmt's policies on the
// same page — its hit rate at every capacity of the report's grid (the same number of blocks, one chunk per block),
// and its seven statistics at the capacity the page replays over time. One pass over the log for all of them.
import {lookupPointJson} from './lookup-report.js'
import {GIB, simulateLookupLog} from './lookup-sim.js'

export interface LmcacheLookupSectionRequest {
  /** the log's files (or directories) */
  inputs: readonly string[]
  /** the report's grid, in blocks */
  grid: readonly number[]
  chosenBlocks: number
  /** the report's bytes of one block (for the GiB column), null when it has none */
  bytesPerBlock: number | null
  bytesPerToken?: number
  onWarning?(message: string): void
}

export async function lmcacheLookupSection(req: LmcacheLookupSectionRequest) {
  const chunks = [...req.grid, req.chosenBlocks]
  const result = await simulateLookupLog({
    inputs: req.inputs,
    capacitiesChunks: chunks,
    bytesPerToken: req.bytesPerToken,
    stats: false,
    statsFor: chunks.length - 1,
    onWarning: req.onWarning,
  })
  const gb = (blocks: number) => (req.bytesPerBlock === null ? null : (blocks * req.bytesPerBlock) / GIB)
  const points = result.points.slice(0, req.grid.length).map((p) => ({
    capacity_blocks: p.capacity_chunks,
    capacity_gb: gb(p.capacity_chunks),
    token_hit_rate: p.token_hit_rate,
    total_hit_tokens: p.total_hit_tokens,
    total_tokens: p.total_tokens,
    evictions: p.evictions,
  }))
  const chosen = result.points[req.grid.length]
  return {
    policy: 'lmcache_lru' as const,
    // lookups replayed (after the model filter), lines skipped, and whether the files held them in time order
    events: result.events,
    skipped_lines: result.skipped_lines,
    in_order: result.in_order,
    // LMCache's bytes of one chunk (the first lookup's layout, or --bytes-per-token × its chunk size); null: unknown
    kv_bytes_per_chunk: result.kv_bytes_per_chunk > 0 ? result.kv_bytes_per_chunk : null,
    chunk_size: result.chunk_size ?? null,
    // at every capacity of the report's grid
    points,
    // at the report's chosen capacity: what `lmt simulate --policy lmcache_lru --json` gives (the seven statistics)
    chosen: (chosen ? lookupPointJson(chosen) : {capacity_chunks: req.chosenBlocks}) as Record<
      string,
      unknown
    > & {
      capacity_chunks: number
    },
  }
}

export type LmcacheLookupSection = Awaited<ReturnType<typeof lmcacheLookupSection>>
