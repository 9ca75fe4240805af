// The `events:` block of `lmcache trace info` for an `events`-level trace (docs/lmcache-events.md): instances and
// their incarnations, batches per (type, tier, backend, shared), entries per type, stored bytes, store entries that
// carry token ids, lifecycle marks. It reads the wire dicts as they are (missing fields take LMCache's defaults), so
// a file from a newer server still summarises.
import type {RawMap, RawValue} from './msgpack.js'
import {pythonFloatRepr} from '../../util/float-repr.js'
import {openTrace, type LctSource} from './reader.js'
import type {LctReadOptions} from './types.js'

export const EVENTS_BATCH = 'events.batch'
export const EVENTS_LIFECYCLE = 'events.lifecycle'

/** Python `str()` of a decoded msgpack scalar (lists and maps as their JSON text). */
export function pyStr(v: RawValue | undefined): string {
  if (typeof v === 'string') return v
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pythonFloatRepr(v)
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (v === null || v === undefined) return 'None'
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
}

/** Python `int()` of a decoded value (floats truncate, digit strings parse; anything else 0). */
export function pyInt(v: RawValue | undefined): number {
  if (typeof v === 'number') return Math.trunc(v)
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) return Number(v)
  return 0
}

/** Python truthiness of a decoded value. */
export function pyTruthy(v: RawValue | undefined): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === 0n || v === '') return false
  if (Array.isArray(v)) return v.length > 0
  if (v instanceof Uint8Array) return v.length > 0
  if (typeof v === 'object') return Object.keys(v).length > 0
  return true
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Counts by name as an object, its keys in code-point order. */
export function sortedCounts(counts: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const k of [...counts.keys()].sort(byCodePoint)) out[k] = counts.get(k) as number
  return out
}

export class EventsSummary {
  private readonly incarnations = new Map<string, Set<number>>()
  /** per (event_type, tier, backend, shared) */
  private readonly batches = new Map<
    string,
    {event_type: string; tier: string; backend: string; shared: boolean; count: number}
  >()
  private readonly entries = new Map<string, number>()
  storeBytes = 0
  entriesWithTokens = 0
  private readonly lifecycle = new Map<string, number>()

  /** One record folded in (other qualnames are ignored). */
  add(qualname: string, args: RawMap): void {
    if (qualname === EVENTS_LIFECYCLE) {
      const phase = pyStr(args.phase ?? '?')
      this.lifecycle.set(phase, (this.lifecycle.get(phase) ?? 0) + 1)
      return
    }
    if (qualname !== EVENTS_BATCH) return
    const instance = pyStr(args.instance_id ?? '?')
    let incs = this.incarnations.get(instance)
    if (!incs) this.incarnations.set(instance, (incs = new Set()))
    incs.add(pyInt(args.incarnation ?? 0))
    const eventType = pyStr(args.event_type ?? '?')
    const raw = args.entries
    const entries = Array.isArray(raw) ? raw : []
    const tier = pyStr(args.tier ?? '?')
    const backend = pyStr(args.backend ?? '')
    const shared = pyTruthy(args.shared ?? false)
    const id = JSON.stringify([eventType, tier, backend, shared])
    let b = this.batches.get(id)
    if (!b) this.batches.set(id, (b = {event_type: eventType, tier, backend, shared, count: 0}))
    b.count++
    this.entries.set(eventType, (this.entries.get(eventType) ?? 0) + entries.length)
    if (eventType !== 'store') return
    for (const e of entries) {
      if (e === null || typeof e !== 'object' || Array.isArray(e) || e instanceof Uint8Array) continue
      const entry = e
      this.storeBytes += pyInt(entry.size_bytes ?? 0)
      if (pyTruthy(entry.token_ids)) this.entriesWithTokens++
    }
  }

  json() {
    const instances = [...this.incarnations.keys()].sort(byCodePoint).map((id) => {
      const incs = [...(this.incarnations.get(id) as Set<number>)].sort((a, b) => a - b)
      return {instance_id: id, incarnations: incs, restarts: Math.max(0, incs.length - 1)}
    })
    const batches = [...this.batches.values()]
      .sort(
        (a, b) =>
          byCodePoint(a.event_type, b.event_type) ||
          byCodePoint(a.tier, b.tier) ||
          byCodePoint(a.backend, b.backend) ||
          Number(a.shared) - Number(b.shared),
      )
      .map((b) => ({...b}))
    return {
      instances,
      batches,
      entries: sortedCounts(this.entries),
      store_bytes: this.storeBytes,
      entries_with_tokens: this.entriesWithTokens,
      lifecycle: sortedCounts(this.lifecycle),
    }
  }
}

/** The events block as `--json` shows it. */
export type EventsSummaryJson = ReturnType<EventsSummary['json']>

function row(label: string, value: string | number): string {
  return '    ' + `${label}:`.padEnd(28) + String(value)
}

/** The block's lines, as `lmcache trace info` prints them. */
export function eventsSummaryLines(s: EventsSummaryJson): string[] {
  const out = ['  events:', row('instances', s.instances.length)]
  for (const i of s.instances)
    out.push(`      ${i.instance_id}: incarnations=[${i.incarnations.join(', ')}] restarts=${i.restarts}`)
  out.push('    batches (type/tier/backend/shared):')
  for (const b of s.batches)
    out.push(
      `      ${b.event_type}/${b.tier}/${b.backend || '-'}/${b.shared ? 'shared' : 'local'}: ${b.count}`,
    )
  out.push('    entries:')
  for (const [t, n] of Object.entries(s.entries)) out.push(`      ${t}: ${n}`)
  out.push(row('store_bytes', s.store_bytes), row('entries_with_tokens', s.entries_with_tokens))
  const marks = Object.entries(s.lifecycle)
  if (marks.length > 0) out.push(row('lifecycle', marks.map(([k, v]) => `${k}=${v}`).join(', ')))
  return out
}

/** The events block of a trace: one pass over its records (after `countTrace`, whose warnings are the ones told). */
export async function summarizeEvents(
  source: LctSource,
  opts: LctReadOptions = {},
): Promise<EventsSummaryJson> {
  const reader = await openTrace(source, opts)
  const summary = new EventsSummary()
  try {
    for await (const batch of reader.batches()) for (const r of batch) summary.add(r.qualname, r.args)
  } finally {
    await reader.close()
  }
  return summary.json()
}
