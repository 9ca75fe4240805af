// How a batch's publisher events cross from the worker to the main thread: the usual gets, starts and finishes as
// columns of typed arrays (transferred, not cloned), with their instances, sessions and pass-through values as small
// tables; anything else (problems, timestamps or lengths beyond the columns) as the event object itself. Cloning an
// object per line cost the main thread more than building it again from columns.

import type {PassThrough, PublisherEvent} from './event-types.js'

/** What a packed line is: an event of `others`, or a column-packed get (input_len given or from keys), start, finish. */
const OTHER = 0
const GET = 1
const GET_FROM_KEYS = 2
const START = 3
const FINISH = 4

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

type PassTuple = [
  PassThrough | undefined,
  PassThrough | undefined,
  PassThrough | undefined,
  PassThrough | undefined,
]

export interface PackedEvents {
  /** per line: OTHER, GET, GET_FROM_KEYS, START or FINISH */
  kinds: Uint8Array
  /** per packed line: its instance, an index into `strings` */
  inst: Int32Array
  ts: BigInt64Array
  /** per packed get or start: the w, n, t0, t1 of its keys (see KeysRef) */
  keys: Int32Array
  /** per packed get: input_len */
  inputLen: Float64Array
  /** per packed get: its query_type, block_mask, sw_size, location_spec_names, an index into `passes` */
  pass: Int32Array
  passes: PassTuple[]
  strings: string[]
  /** the sessions of the packed starts and finishes, in line order */
  sessions: string[]
  /** the events not packed, in line order */
  others: PublisherEvent[]
}

const decoder = new TextDecoder()

/** A pass-through value as part of a table key (strings quoted: no raw separator can occur). */
function passKey(v: PassThrough | undefined, text: Uint8Array): string {
  if (v === undefined) return 'u'
  if (v === null) return 'n'
  if (typeof v === 'object') return 't' + JSON.stringify(decoder.decode(text.subarray(v.t0, v.t1)))
  if (typeof v === 'string') return 's' + JSON.stringify(v)
  return (typeof v === 'boolean' ? 'b' : typeof v === 'bigint' ? 'i' : 'd') + String(v)
}

const fitsColumn = (ts: bigint): boolean => ts >= INT64_MIN && ts <= INT64_MAX

/** Whether two pass-through values are the same: the same scalar, or texts of the same bytes. */
function samePass(a: PassThrough | undefined, b: PassThrough | undefined, text: Uint8Array): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b)
  const n = a.t1 - a.t0
  if (b.t1 - b.t0 !== n) return false
  for (let i = 0; i < n; i++) if (text[a.t0 + i] !== text[b.t0 + i]) return false
  return true
}

/** A pass-through value that a table can hold for many lines (-0 would print as 0 in its key). */
const tabled = (v: PassThrough | undefined): boolean => !Object.is(v, -0)

/** Packs one batch's events (`text`: the batch's text slab, which pass-through texts point into). */
export function packEvents(events: readonly PublisherEvent[], text: Uint8Array): PackedEvents {
  const n = events.length
  const p: PackedEvents = {
    kinds: new Uint8Array(n),
    inst: new Int32Array(n),
    ts: new BigInt64Array(n),
    keys: new Int32Array(4 * n),
    inputLen: new Float64Array(n),
    pass: new Int32Array(n),
    passes: [],
    strings: [],
    sessions: [],
    others: [],
  }
  const strings = new Map<string, number>()
  const passes = new Map<string, number>()
  // the last line's instance and pass-through values, reused without a lookup when the next line has the same
  let lastString = ''
  let lastStringIndex = -1
  let lastTuple: PassTuple | undefined
  let lastPass = -1
  const stringIndex = (s: string): number => {
    if (s === lastString && lastStringIndex >= 0) return lastStringIndex
    let k = strings.get(s)
    if (k === undefined) strings.set(s, (k = p.strings.push(s) - 1))
    lastString = s
    return (lastStringIndex = k)
  }
  const passIndex = (tuple: PassTuple): number => {
    const last = lastTuple
    if (last !== undefined && tuple.every((v, j) => samePass(v, last[j], text))) return lastPass
    const key = tuple.map((v) => passKey(v, text)).join(',')
    let k = passes.get(key)
    if (k === undefined) passes.set(key, (k = p.passes.push(tuple) - 1))
    lastTuple = p.passes[k]
    return (lastPass = k)
  }
  for (let i = 0; i < n; i++) {
    const e = events[i]
    let kind = OTHER
    if (e.k === 'get') {
      const tuple: PassTuple = [e.qt, e.bm, e.sw, e.ls]
      if (fitsColumn(e.ts) && e.inputLen <= BigInt(Number.MAX_SAFE_INTEGER) && tuple.every(tabled)) {
        kind = e.fromKeys ? GET_FROM_KEYS : GET
        p.pass[i] = passIndex(tuple)
        p.inputLen[i] = Number(e.inputLen)
      }
    } else if (e.k === 'start') {
      if (fitsColumn(e.ts)) kind = START
    } else if (e.k === 'finish' && e.ts !== undefined && fitsColumn(e.ts)) kind = FINISH
    p.kinds[i] = kind
    if (kind === OTHER) {
      p.others.push(e)
      continue
    }
    const ev = e as PublisherEvent & {inst: string; ts: bigint}
    p.inst[i] = stringIndex(ev.inst)
    p.ts[i] = ev.ts
    if (e.k === 'start' || e.k === 'finish') p.sessions.push(e.session)
    if (e.k === 'get' || e.k === 'start') {
      p.keys[4 * i] = e.keys.w
      p.keys[4 * i + 1] = e.keys.n
      p.keys[4 * i + 2] = e.keys.t0
      p.keys[4 * i + 3] = e.keys.t1
    }
  }
  return p
}

/** The buffers of a packed batch, to transfer. */
export function packedBuffers(p: PackedEvents): ArrayBuffer[] {
  return [p.kinds, p.inst, p.ts, p.keys, p.inputLen, p.pass].map((a) => a.buffer as ArrayBuffer)
}

/** The events of a packed batch, one per line, as {@link packEvents} was given them. */
export function unpackEvents(p: PackedEvents): PublisherEvent[] {
  const {kinds, inst, ts, keys, inputLen, pass, passes, strings, sessions, others} = p
  const n = kinds.length
  const events = new Array<PublisherEvent>(n)
  let other = 0
  let session = 0
  for (let i = 0; i < n; i++) {
    const kind = kinds[i]
    if (kind === OTHER) {
      events[i] = others[other++]
      continue
    }
    if (kind === FINISH) {
      events[i] = {k: 'finish', inst: strings[inst[i]], session: sessions[session++], ts: ts[i]}
      continue
    }
    const k = 4 * i
    const keysRef = {w: keys[k], n: keys[k + 1], t0: keys[k + 2], t1: keys[k + 3]}
    if (kind === START) {
      events[i] = {k: 'start', inst: strings[inst[i]], ts: ts[i], keys: keysRef, session: sessions[session++]}
      continue
    }
    const [qt, bm, sw, ls] = passes[pass[i]]
    const get: PublisherEvent = {
      k: 'get',
      inst: strings[inst[i]],
      ts: ts[i],
      keys: keysRef,
      inputLen: BigInt(inputLen[i]),
      fromKeys: kind === GET_FROM_KEYS,
    }
    // set only when present, as the digest does
    if (qt !== undefined) get.qt = qt
    if (bm !== undefined) get.bm = bm
    if (sw !== undefined) get.sw = sw
    if (ls !== undefined) get.ls = ls
    events[i] = get
  }
  return events
}
