// `lmt simulate -f lmcache_lookup --policy lmcache_lru`: LMCache's cache simulator over lookup-hash logs, with its
// rules (docs/lmcache-lookup.md): lookups in time order (stable), one chunk cache for every model, the hit prefix
// looked up without touching, then every chunk of the lookup touched or inserted in order — cached chunks after
// the first miss included — evicting as it goes. A sweep plays every capacity in the same pass over the log.
import {statSync} from 'node:fs'
import {lmtError} from '../../errors.js'
import {
  chunkBytesOf,
  type LookupEvent,
  lookupLogFiles,
  readLookupEvents,
  type SkippedLine,
} from '../../formats/lmcache/lookup-log.js'
import {grown} from '../../util/grown.js'
import {pyRound} from '../../util/pyfmt.js'
import {ChunkLru} from './chunk-lru.js'
import {LookupStats} from './lookup-stats.js'

export const GIB = 2 ** 30

export interface LookupSimRequest {
  /** log directories and files, in the order given */
  inputs: readonly string[]
  /** keep only the lookups of this model */
  model?: string
  /** capacities in GiB (one: a single run with the statistics; several: a sweep) */
  capacitiesGib?: readonly number[]
  /** or capacities in bytes (LMCache's sweep computes bytes) */
  capacitiesBytes?: readonly number[]
  /** bytes per token: a chunk is this × the first lookup's chunk size (instead of the logged layout) */
  bytesPerToken?: number
  /** or capacities in chunks (lmt's report compares them with its own grid in blocks) */
  capacitiesChunks?: readonly number[]
  /** compute the seven statistics (single runs) */
  stats: boolean
  /** compute them for this capacity only (its index) */
  statsFor?: number
  signal?: AbortSignal
  onSkip?(line: SkippedLine): void
  onWarning?(message: string): void
  onProgress?(bytes: number, total: number): void
}

/** One capacity's figures, all 0 until the replay adds them up (and its statistics, when they are asked for). */
function newPoint(capacity_gib: number, capacity_bytes: number, capacity_chunks: number, stats: boolean) {
  return {
    capacity_gib,
    capacity_bytes,
    capacity_chunks,
    total_requests: 0,
    total_tokens: 0,
    total_hit_tokens: 0,
    total_miss_tokens: 0,
    token_hit_rate: 0,
    evictions: 0,
    cache_size_at_end_chunks: 0,
    ...(stats ? {stats: new LookupStats()} : {}),
  }
}

export type LookupSimPoint = ReturnType<typeof newPoint>

class OutOfOrder extends Error {}

/** a character above U+00FF (a key without one is copied as one byte per character) */
const WIDE = /[\u0100-\uffff]/

/**
 * Key ids for the hash strings of the whole run: one id per distinct hash, in the order first met. The table keeps a
 * copy of each key of its own: a string JSON.parse makes can be a slice that holds on to its whole line.
 */
export class KeyIds {
  private readonly ids = new Map<string, number>()
  private readonly keys: string[] = []
  /**
   * The id that followed each id the last time (−1: none yet), and the first key of the last lookup: lookups repeat
   * the chains of their prefixes, so the guess is mostly right and the fresh string need not be hashed.
   */
  private follow = new Int32Array(1 << 15).fill(-1)
  private first = -1

  get size(): number {
    return this.keys.length
  }

  /** The ids of the keys of one lookup, in order, into `out`. */
  idsOf(keys: readonly string[], out: Int32Array): void {
    let prev = -1
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]
      const guess = prev < 0 ? this.first : this.follow[prev]
      const id = guess >= 0 && this.keys[guess] === key ? guess : this.idOf(key)
      if (prev < 0) this.first = id
      else this.follow[prev] = id
      out[i] = prev = id
    }
  }

  idOf(key: string): number {
    let id = this.ids.get(key)
    if (id !== undefined) return id
    id = this.keys.length
    const encoding = WIDE.test(key) ? 'utf16le' : 'latin1'
    const copy = Buffer.from(key, encoding).toString(encoding)
    this.keys.push(copy)
    this.ids.set(copy, id)
    if (id === this.follow.length) this.follow = grown(this.follow, id * 2).fill(-1, id)
    return id
  }
}

interface Lane {
  point: LookupSimPoint
  cache: ChunkLru
}

/** The replay state of every capacity. */
class Replay {
  readonly keys = new KeyIds()
  lanes: Lane[] = []
  events = 0
  first: LookupEvent | undefined
  kvBytes = 0
  kvSource: 'layout' | 'bytes-per-token' = 'layout'
  private ids = new Int32Array(256)

  constructor(private readonly req: LookupSimRequest) {}

  /** The first lookup fixes the bytes of a chunk and with them every capacity in chunks. */
  private start(ev: LookupEvent): void {
    this.first = ev
    if (this.req.bytesPerToken !== undefined) {
      this.kvBytes = this.req.bytesPerToken * ev.chunkSize
      this.kvSource = 'bytes-per-token'
    } else {
      const {bytes, unknown} = chunkBytesOf(ev)
      // capacities in chunks do not need the bytes of a chunk (0 when the layout does not tell)
      if ((unknown.length > 0 || bytes <= 0) && this.req.capacitiesChunks === undefined)
        throw lmtError(
          'SIM_LMCACHE_CHUNK_BYTES',
          `${ev.file}:${ev.lineNo}`,
          unknown.length > 0
            ? `unknown dtype ${unknown.map((d) => `'${d}'`).join(', ')}`
            : 'no shapes and dtypes, or a layout of 0 bytes',
          {suggestions: ['pass --bytes-per-token (the bytes of one chunk / chunk_size)']},
        )
      this.kvBytes = unknown.length > 0 ? 0 : bytes
    }
    const inChunks = this.req.capacitiesChunks
    const bytesList =
      inChunks?.map((c) => c * this.kvBytes) ??
      this.req.capacitiesBytes ??
      (this.req.capacitiesGib ?? []).map((g) => Math.trunc(g * GIB))
    this.lanes = bytesList.map((capacityBytes, i) => {
      const chunks = inChunks
        ? Math.max(1, inChunks[i])
        : Math.max(1, Math.floor(capacityBytes / this.kvBytes))
      const stats = this.req.stats || i === this.req.statsFor
      return {
        point: newPoint(this.req.capacitiesGib?.[i] ?? capacityBytes / GIB, capacityBytes, chunks, stats),
        cache: new ChunkLru(chunks, stats),
      }
    })
  }

  play(ev: LookupEvent): void {
    if (this.events === 0) this.start(ev)
    this.events++
    const hashes = ev.hashes
    const n = hashes.length
    if (n === 0 && ev.seqLen === 0) return // LMCache passes over such a lookup (its writer never logs one)
    if (n > this.ids.length) this.ids = new Int32Array(Math.max(n, this.ids.length * 2))
    const ids = this.ids
    this.keys.idsOf(hashes, ids)
    for (const {point, cache} of this.lanes) {
      let hit = 0
      while (hit < n && cache.has(ids[hit])) hit++
      const hitTokens = hit * ev.chunkSize
      point.total_requests++
      point.total_tokens += ev.seqLen
      point.total_hit_tokens += hitTokens
      const stats = point.stats
      if (stats) {
        stats.lookupDone(hitTokens, ev.seqLen, hit, point.total_hit_tokens, point.total_tokens)
        for (let i = 0; i < hit; i++) stats.hitChunk(ids[i], i, cache.rank(ids[i]))
      }
      for (let i = 0; i < n; i++) {
        if (stats) stats.seen(ids[i], i)
        if (i < hit) cache.touch(ids[i])
        else cache.insert(ids[i])
      }
      if (stats) stats.chunkIndex += n
    }
  }

  /** Releases the statistics' scratch files (a replay abandoned or failed). */
  close(): void {
    for (const {point} of this.lanes) point.stats?.close()
  }

  result(files: string[], skipped: number, inOrder: boolean) {
    for (const {point, cache} of this.lanes) {
      point.stats?.finish()
      point.total_miss_tokens = point.total_tokens - point.total_hit_tokens
      point.token_hit_rate = point.total_tokens > 0 ? point.total_hit_tokens / point.total_tokens : 0
      point.evictions = cache.evictions
      point.cache_size_at_end_chunks = cache.size
    }
    return {
      files,
      // lookups loaded (after the model filter): LMCache's "Loaded N event(s)"
      events: this.events,
      skipped_lines: skipped,
      kv_bytes_per_chunk: this.kvBytes,
      kv_bytes_source: this.kvSource,
      // the first lookup's chunk size (LMCache's "Chunk size")
      chunk_size: this.first?.chunkSize,
      // false when the lookups were not in time order in the files: they were then loaded whole and sorted
      in_order: inOrder,
      points: this.lanes.map((l) => l.point),
    }
  }
}

function totalBytes(files: readonly string[]): number {
  let total = 0
  for (const f of files) {
    try {
      total += statSync(f).size
    } catch {
      // an unreadable file fails when it is read
    }
  }
  return total
}

/**
 * LMCache's cache simulator over lookup-hash logs. The lookups stream through when the files hold them in time
 * order (what LMCache's writer produces); otherwise the run starts again with the whole log loaded and sorted
 * stably by timestamp, as LMCache's simulator always does.
 */
export async function simulateLookupLog(req: LookupSimRequest) {
  const files = lookupLogFiles(req.inputs, (dir) =>
    req.onWarning?.(`${dir}: no lookup_hashes_*.jsonl files in this directory`),
  )
  const total = totalBytes(files)
  const where = req.inputs.join(', ')
  let skipped = 0
  const onSkip = (s: SkippedLine) => {
    skipped++
    req.onSkip?.(s)
  }
  const options = {
    model: req.model,
    signal: req.signal,
    onSkip,
    onBytes: (b: number) => req.onProgress?.(b, total),
  }
  const streamed = new Replay(req)
  try {
    let last = -Infinity
    for await (const batch of readLookupEvents(files, options))
      for (const ev of batch) {
        if (ev.timestamp < last) throw new OutOfOrder()
        last = ev.timestamp
        streamed.play(ev)
      }
    return streamed.result(files, skipped, true)
  } catch (err) {
    if (!(err instanceof OutOfOrder)) throw err
  } finally {
    streamed.close()
  }
  req.onWarning?.(
    `${where}: the lookups are not in time order in the files; loading the whole log to sort it by timestamp`,
  )
  skipped = 0
  const all: LookupEvent[] = []
  for await (const batch of readLookupEvents(files, {...options, onSkip: () => skipped++}))
    for (const ev of batch) all.push(ev)
  all.sort((a, b) => a.timestamp - b.timestamp) // stable: ties keep file order, then line order
  const sorted = new Replay(req)
  try {
    for (const ev of all) sorted.play(ev)
    return sorted.result(files, skipped, false)
  } finally {
    sorted.close()
  }
}

export type LookupSimResult = ReturnType<Replay['result']>

/**
 * LMCache's sweep capacities in bytes: `points` log-spaced from `min` to `max` GiB, rounded to whole bytes as Python's
 * round() does (ties to even) and deduplicated, ascending.
 */
export function lmcacheSweepBytes(minGib: number, maxGib: number, points: number): number[] {
  const lo = Math.log10(minGib * GIB)
  const hi = Math.log10(maxGib * GIB)
  const step = (hi - lo) / Math.max(points - 1, 1)
  const set = new Set<number>()
  for (let i = 0; i < points; i++) set.add(pyRound(10 ** (lo + i * step), 0))
  return [...set].sort((a, b) => a - b)
}
