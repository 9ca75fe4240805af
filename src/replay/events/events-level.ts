// The `events` replay level (docs/lmcache-events.md): LMCache's cache-event batches replayed into the occupancy of
// each compartment (tier, backend, shared) with the capacities its config batches declare; the stream's health
// (cuts, lost batches, dropped events, restarts); LMCache's own `trace info` figures beside them; and occupancy and
// deletions over time. Memory holds the objects alive in the compartments and a bounded time series.
import {JsonFloat} from '../../formats/json/json-float.js'
import type {DecodedArgs} from '../../formats/lct/codecs.js'
import {
  EVENTS_BATCH,
  EVENTS_LIFECYCLE,
  EventsSummary,
  pyInt,
  pyStr,
  pyTruthy,
} from '../../formats/lct/events-summary.js'
import type {RawMap, RawValue} from '../../formats/lct/msgpack.js'
import {type LevelObservations, MapDispatcher, type ReplayLevel} from '../level.js'
import {pyFormatFixed} from '../../util/pyfmt.js'

/** Points kept of the occupancy series: when full, every other point goes (the series spans the whole trace). */
const MAX_POINTS = 512

/** One compartment (tier, backend, shared): its declared capacity, the objects it holds and what happened to them. */
export class Compartment {
  /** declared by the last config batch; 0 = undeclared */
  capacityBytes = 0
  capacityRevision = 0
  usedBytes = 0
  peakBytes = 0
  peakAtS = 0
  objects = new Map<string, number>()
  stores = 0
  storedBytes = 0
  /** a store of an object already present (its size replaced) */
  restores = 0
  deletes = 0
  deletedBytes = 0
  /** deletes of objects this trace never stored (stored before it began, or their store was lost) */
  deletesUnknown = 0
  accesses = 0
  /** accesses of objects not present */
  accessesAbsent = 0
  /** batches after which the compartment held more than its declared capacity */
  overCapacity = 0

  constructor(
    readonly tier: string,
    readonly backend: string,
    readonly shared: boolean,
  ) {}
}

interface StreamState {
  lastSeq: number
  started: boolean
  stopped: boolean
  dropped: number
}

export class EventsTarget {
  summary = new EventsSummary()
  compartments = new Map<string, Compartment>()
  streams = new Map<string, StreamState>()
  batches = 0
  lostBatches = 0
  seqGaps = 0
  seqBackwards = 0
  batchesAfterStop = 0
  firstTs: number | undefined = undefined
  lastTs = 0
  series: Array<{t: number; used: number[]; deletes: number}> = []
  seriesStride = 1
  seriesSeen = 0
  totalDeletes = 0
}

function compartment(t: EventsTarget, tier: string, backend: string, shared: boolean): Compartment {
  const id = `${tier}/${backend || '-'}/${shared ? 'shared' : 'local'}`
  let c = t.compartments.get(id)
  if (!c) t.compartments.set(id, (c = new Compartment(tier, backend, shared)))
  return c
}

function asMap(v: unknown): RawMap | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
    ? (v as RawMap)
    : undefined
}

/** An object's identity: LMCache's ObjectKey fields. */
function objectKey(entry: RawMap): string {
  const k = asMap(entry.key) ?? {}
  return [k.chunk_hash_hex, k.model_name, k.kv_rank, k.object_group_id, k.cache_salt]
    .map((x) => pyStr(x ?? ''))
    .join('|')
}

function elapsed(t: EventsTarget, ts: number): number {
  if (t.firstTs === undefined) t.firstTs = ts
  return ts - t.firstTs
}

/** The stream of (instance, incarnation): consecutive seq, dropped events, marks. */
function stream(t: EventsTarget, instance: string, incarnation: number): StreamState {
  const id = `${instance}#${incarnation}`
  let s = t.streams.get(id)
  if (!s) t.streams.set(id, (s = {lastSeq: 0, started: false, stopped: false, dropped: 0}))
  return s
}

function onBatch(t: EventsTarget, args: DecodedArgs): void {
  const raw = args as RawMap
  t.summary.add(EVENTS_BATCH, raw)
  t.batches++
  const s = stream(t, pyStr(raw.instance_id ?? '?'), pyInt(raw.incarnation ?? 0))
  const seq = pyInt(raw.seq ?? 0)
  if (s.stopped) t.batchesAfterStop++
  if (seq > s.lastSeq + 1) {
    t.seqGaps++
    t.lostBatches += seq - s.lastSeq - 1
  } else if (seq <= s.lastSeq) t.seqBackwards++
  s.lastSeq = Math.max(s.lastSeq, seq)
  s.dropped = Math.max(s.dropped, pyInt(raw.dropped_events ?? 0))
  const ts = typeof raw.ts === 'number' ? raw.ts : t.lastTs
  const at = elapsed(t, ts)
  t.lastTs = ts
  const eventType = pyStr(raw.event_type ?? '?')
  const tier = pyStr(raw.tier ?? '?')
  const backend = pyStr(raw.backend ?? '')
  const shared = pyTruthy(raw.shared ?? false)
  const entries = Array.isArray(raw.entries) ? (raw.entries as RawValue[]) : []
  if (eventType === 'config') {
    const c = compartment(t, tier, backend, shared)
    c.capacityBytes = pyInt(raw.capacity_bytes ?? 0)
    c.capacityRevision = pyInt(raw.capacity_revision ?? 0)
  } else if (eventType === 'store' || eventType === 'delete') {
    const c = compartment(t, tier, backend, shared)
    for (const e of entries) {
      const entry = asMap(e)
      if (!entry) continue
      const key = objectKey(entry)
      const before = c.objects.get(key)
      if (eventType === 'store') {
        const size = pyInt(entry.size_bytes ?? 0)
        c.stores++
        c.storedBytes += size
        if (before !== undefined) c.restores++
        c.objects.set(key, size)
        c.usedBytes += size - (before ?? 0)
      } else {
        c.deletes++
        t.totalDeletes++
        if (before === undefined) c.deletesUnknown++
        else {
          c.deletedBytes += before
          c.usedBytes -= before
          c.objects.delete(key)
        }
      }
    }
    if (c.usedBytes > c.peakBytes) {
      c.peakBytes = c.usedBytes
      c.peakAtS = at
    }
    if (c.capacityBytes > 0 && c.usedBytes > c.capacityBytes) c.overCapacity++
  } else if (eventType === 'access') {
    for (const e of entries) {
      const entry = asMap(e)
      if (!entry) continue
      const key = objectKey(entry)
      // an L1 access names no medium: the L1 compartment that holds the object
      let c: Compartment | undefined
      if (backend === '' && tier === 'l1') {
        for (const x of t.compartments.values()) if (x.tier === 'l1' && x.objects.has(key)) c = x
        c ??= compartment(t, tier, backend, shared)
      } else c = compartment(t, tier, backend, shared)
      c.accesses++
      if (!c.objects.has(key)) c.accessesAbsent++
    }
  }
  sample(t, at)
}

/** One point of the series per flush time (its batches share `ts`), thinned to at most MAX_POINTS. */
function sample(t: EventsTarget, at: number): void {
  const used = [...t.compartments.values()].map((c) => c.usedBytes)
  const last = t.series[t.series.length - 1]
  if (last && last.t === at) {
    last.used = used
    last.deletes = t.totalDeletes
    return
  }
  t.seriesSeen++
  if ((t.seriesSeen - 1) % t.seriesStride !== 0) return
  t.series.push({t: at, used, deletes: t.totalDeletes})
  if (t.series.length >= MAX_POINTS) {
    t.series = t.series.filter((_, i) => i % 2 === 0)
    t.seriesStride *= 2
  }
}

function onLifecycle(t: EventsTarget, args: DecodedArgs): void {
  const raw = args as RawMap
  t.summary.add(EVENTS_LIFECYCLE, raw)
  const phase = pyStr(raw.phase ?? '?')
  if (phase !== 'start' && phase !== 'stop') return
  const instance = pyStr(raw.instance_id ?? '?')
  // a stop mark carries no incarnation: it ends the instance's latest stream
  let s: StreamState | undefined
  if (phase === 'start') s = stream(t, instance, pyInt(raw.incarnation ?? 0))
  else for (const [id, x] of t.streams) if (id.startsWith(`${instance}#`)) s = x
  if (!s) return
  if (phase === 'start') s.started = true
  else s.stopped = true
}

/** One record of an events trace (other qualnames are not the level's). */
export function playEventsRecord(t: EventsTarget, qualname: string, args: unknown): void {
  if (qualname === EVENTS_BATCH) onBatch(t, args as DecodedArgs)
  else if (qualname === EVENTS_LIFECYCLE) onLifecycle(t, args as DecodedArgs)
}

function gib(n: number): string {
  return `${pyFormatFixed(n / 2 ** 30, 2)} GiB`
}

export function eventsObservations(t: EventsTarget): LevelObservations {
  const lmcache = t.summary.json()
  const streams = [...t.streams.entries()].map(([id, s]) => ({
    stream: id,
    last_seq: s.lastSeq,
    start_mark: s.started,
    stop_mark: s.stopped,
    dropped_events: s.dropped,
  }))
  const cuts = streams.filter((s) => !s.stop_mark).length
  const dropped = streams.reduce((a, s) => a + s.dropped_events, 0)
  const restarts = lmcache.instances.reduce((a, i) => a + i.restarts, 0)
  const comps = [...t.compartments.entries()].map(([id, c]) => ({
    compartment: id,
    tier: c.tier,
    backend: c.backend,
    shared: c.shared,
    capacity_bytes: c.capacityBytes,
    capacity_revision: c.capacityRevision,
    used_bytes_final: c.usedBytes,
    objects_final: c.objects.size,
    used_bytes_peak: c.peakBytes,
    used_bytes_peak_at_s: new JsonFloat(c.peakAtS),
    stores: c.stores,
    stored_bytes: c.storedBytes,
    restores: c.restores,
    deletes: c.deletes,
    deleted_bytes: c.deletedBytes,
    deletes_of_unknown_objects: c.deletesUnknown,
    accesses: c.accesses,
    accesses_of_absent_objects: c.accessesAbsent,
    batches_over_capacity: c.overCapacity,
  }))
  const json = {
    lmcache_trace_info: lmcache,
    stream: {
      batches: t.batches,
      streams,
      cut_streams: cuts,
      lost_batches: t.lostBatches,
      seq_gaps: t.seqGaps,
      seq_backwards: t.seqBackwards,
      batches_after_stop: t.batchesAfterStop,
      dropped_events: dropped,
      restarts,
    },
    compartments: comps,
    over_time: {
      compartments: [...t.compartments.keys()],
      points: t.series.map((p) => ({t_s: new JsonFloat(p.t), used_bytes: p.used, deletes: p.deletes})),
    },
  }
  const rows: LevelObservations['rows'] = [
    ['Event batches', t.batches],
    ['Instances (restarts)', `${lmcache.instances.length} (${restarts})`],
    ['Streams cut (no stop mark)', cuts],
    ['Batches lost (seq gaps)', t.lostBatches],
    ['Dropped events', dropped],
    ['Stored bytes (LMCache store_bytes)', lmcache.store_bytes],
    ['Store entries with token ids', lmcache.entries_with_tokens],
  ]
  for (const c of comps) {
    const p = c.compartment
    rows.push(
      [`${p} capacity`, c.capacity_bytes > 0 ? gib(c.capacity_bytes) : 'undeclared'],
      [`${p} used peak / final`, `${gib(c.used_bytes_peak)} / ${gib(c.used_bytes_final)}`],
      [`${p} stores / deletes / accesses`, `${c.stores} / ${c.deletes} / ${c.accesses}`],
    )
  }
  return {json, rows}
}

/** The built-in `events` level. */
export const eventsLevel: ReplayLevel<EventsTarget, Record<string, never>> = {
  name: 'events',
  description:
    "LMCache cache events (--trace-level events): per-tier, per-backend occupancy from the store/delete/access/config batches, the stream's cuts, lost batches and dropped events, and LMCache's trace info figures",
  flags: {},
  replayableSchemaVersions: [2],
  parseConfig: () => ({}),
  createTarget: () => new EventsTarget(),
  buildDispatcher() {
    const d = new MapDispatcher<EventsTarget>()
    d.register(EVENTS_BATCH, ({target}, args) => onBatch(target, args))
    d.register(EVENTS_LIFECYCLE, ({target}, args) => onLifecycle(target, args))
    return d
  },
  observations: eventsObservations,
}
