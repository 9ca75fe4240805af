import {describe, expect, it} from 'vitest'
import {
  createLineBatchMapper,
  type PublisherEventBatch,
  type PublisherEventConfig,
} from '../../plugins/converters/publisher-log/_lib/events.js'
import {ScannedEvent, scanPublisherLine} from '../../plugins/converters/publisher-log/_lib/scan.js'
import {packEvents, unpackEvents} from '../../plugins/converters/publisher-log/_lib/pack.js'
import {isEmptyList} from '../../plugins/converters/publisher-log/_lib/input.js'
import {parseJson} from '../../src/jsonl/parse.js'
import type {LineBatch} from '../../src/index.js'
import {LineBatchBuilder} from '../../src/jsonl/line-batch.js'

let seed = 4242
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

const CONFIG: PublisherEventConfig = {
  defaultInstanceId: 'dflt',
  blockSizes: [['instB', 32]],
  defaultBlockSize: 16,
}

/** A random 64-bit key literal (signed), or, when not clean, one at an edge or not an int64 at all. */
function keyText(clean: boolean): string {
  const r = rand()
  const random64 = () =>
    BigInt.asIntN(64, (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32)))
  if (r < 0.7 || (clean && r < 0.95)) return random64().toString()
  if (r < 0.8) return String(Math.floor(rand() * 1e6) * (rand() < 0.5 ? -1 : 1))
  return pick([
    '0',
    '-0',
    '9007199254740993',
    '999999999999999999',
    '1000000000000000000',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775808',
    '-9223372036854775809',
    '18446744073709551615',
    '99999999999999999999',
    '-4294967296',
    '4294967296',
    '1.0',
    '2e3',
    'true',
    'null',
    '"7"',
    '[1]',
    '01',
  ])
}

/** A value for a field the digest reads: usual ones mostly, odd ones sometimes. */
function oddValue(): string {
  return pick([
    '0',
    '-0',
    '-1',
    '1',
    '48',
    '1.5',
    '16.0',
    '1e2',
    '"48"',
    '""',
    '"é"',
    '"a\\"b"',
    'true',
    'false',
    'null',
    '[]',
    '[ ]',
    '[1, 2]',
    '{}',
    '{"a": 1}',
    '1763975741548745',
    '9007199254740991',
    '9007199254740993',
    '12345678901234567',
    '"prefix_match"',
  ])
}

/** A publisher-shaped line with random variations (most valid, some not). */
function line(): string {
  const clean = rand() < 0.6
  const fields: string[] = []
  const add = (k: string, v: string) => fields.push(`${JSON.stringify(k)}:${pick(['', ' ', '\t'])}${v}`)
  const type = pick([
    'GetCacheLocation',
    'StartWriteCache',
    'FinishWriteCache',
    'StartWriteCacheWithMinReplica',
  ])
  add('id', `"x${Math.floor(rand() * 1000)}"`)
  if (rand() < 0.95) add('source', clean ? pick(['"instA"', '"instB"', '"ï"']) : oddValue())
  if (rand() < 0.97) add('type', clean || rand() < 0.5 ? `"${type}"` : oddValue())
  if (rand() < 0.95)
    add('trigger_time_us', clean ? String(1763975741000000 + Math.floor(rand() * 1e6)) : oddValue())
  if (rand() < 0.9) {
    const keys = Array.from({length: Math.floor(rand() * 40)}, () => keyText(clean))
    add('keys', `[${keys.join(pick([',', ', ', ' ,\t']))}]`)
  }
  if (type !== 'GetCacheLocation' || rand() < 0.1)
    add('write_session_id', clean ? `"ws${Math.floor(rand() * 20)}"` : oddValue())
  for (const f of ['input_len', 'input_length', 'input_tokens']) if (rand() < 0.1) add(f, oddValue())
  if (rand() < 0.8) add('tokens', clean ? '[]' : oddValue())
  for (const f of ['query_type', 'block_mask', 'sw_size', 'location_spec_names'])
    if (rand() < 0.8) add(f, clean ? pick(['"prefix_match"', '1', '-1', '[]']) : oddValue())
  if (rand() < 0.3) add('extra', pick(['{"a": [1, {"b": null}]}', '"\\u00e9"', '1.5e400', '[1,]', 'NaN']))
  if (!clean && rand() < 0.15) add(pick(['keys', 'source', 'type', 'trigger_time_us']), oddValue()) // repeated
  if (!clean && rand() < 0.05) add('ke\\u0079s', '[1, 2]') // an escaped field name
  for (let i = fields.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[fields[i], fields[j]] = [fields[j], fields[i]]
  }
  const text = `{${fields.join(pick([',', ', ']))}}`
  const r = rand()
  if (r < 0.02) return text.slice(0, Math.floor(rand() * text.length)) // truncated
  if (r < 0.04) return `[${text}]`
  return text
}

function byteBatches(texts: string[]): LineBatch[] {
  const b = new LineBatchBuilder(37, 6000)
  texts.forEach((t, i) => b.addBytes(i + 1, Buffer.from(t), 0, Buffer.byteLength(t)))
  b.seal()
  return b.take()
}

/** A batch's events with their keys' words and texts in place of slab offsets (the two lanes lay slabs out alike). */
function eventsOf(r: PublisherEventBatch): unknown[] {
  const text = Buffer.from(r.text)
  const words = new BigInt64Array(r.words.buffer, r.words.byteOffset, r.words.length / 2)
  const resolve = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v
    const o = v as {w?: number; n?: number; t0: number; t1: number}
    const out: Record<string, unknown> = {text: text.toString('utf8', o.t0, o.t1)}
    if (o.w !== undefined && o.w >= 0) out.words = Array.from(words.subarray(o.w, o.w + (o.n as number)))
    return out
  }
  return unpackEvents(r.events).map((e) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(e)) {
      // a NaN session is unique per call, so its key differs between two runs
      if (k === 'session' && String(v).startsWith('nan:')) out[k] = 'nan'
      else out[k] = resolve(v)
    }
    return out
  })
}

describe('publisher events: the byte lane', () => {
  it('gives exactly the exact parser’s events for 6,000 random lines, whatever the batch edges', () => {
    const texts = Array.from({length: 6000}, () => line())
    const fast = createLineBatchMapper(CONFIG)
    const exact = createLineBatchMapper(CONFIG, false)
    const scanned = new ScannedEvent()
    let taken = 0
    for (const batch of byteBatches(texts)) {
      for (let i = 0; i < batch.count; i++)
        if (scanPublisherLine(batch.bytes, batch.starts[i], batch.ends[i], scanned)) taken++
      const a = eventsOf(fast(batch).result)
      const b = eventsOf(exact(batch).result)
      expect(a).toEqual(b)
    }
    // most clean lines take the lane (negative, long and small keys alike)
    expect(taken).toBeGreaterThan(texts.length / 4)
  })

  it('carries the usual events across threads as columns, and the rest as they are', () => {
    const texts = Array.from({length: 3000}, () => line())
    const mapper = createLineBatchMapper(CONFIG)
    let packed = 0
    let usual = 0
    for (const batch of byteBatches(texts)) {
      const {result} = mapper(batch)
      const kinds = result.events.kinds
      packed += kinds.filter((k) => k !== 0).length
      const events = unpackEvents(result.events)
      expect(events).toHaveLength(batch.count)
      // unpacked, each event is what the digest made of its line: the same as the exact parser's, field for field
      expect(eventsOf(result)).toEqual(eventsOf(createLineBatchMapper(CONFIG, false)(batch).result))
      usual += events.filter(
        (e) => e.k === 'get' || e.k === 'start' || (e.k === 'finish' && e.ts !== undefined),
      ).length
      expect(result.events.others).toHaveLength(batch.count - kinds.filter((k) => k !== 0).length)
    }
    expect(packed).toBeGreaterThan(usual * 0.9) // nearly every usual event goes as columns
  })

  it('packs events at the edges of the columns as objects, pass-through values from one table', () => {
    const get = (ts: bigint, inputLen: bigint, extra = {}) => ({
      k: 'get' as const,
      inst: 'i',
      ts,
      keys: {w: 0, n: 0, t0: 0, t1: 0},
      inputLen,
      fromKeys: false,
      ...extra,
    })
    const text = Buffer.from('[][]')
    const events = [
      get(2n ** 63n, 1n),
      get(-(2n ** 63n), 1n),
      get(1n, 2n ** 53n),
      get(1n, 5n, {sw: -0}),
      get(1n, 5n, {ls: {t0: 0, t1: 2}, bm: true, qt: 'a'}),
      get(2n, 6n, {ls: {t0: 2, t1: 4}, bm: true, qt: 'a'}),
      get(2n, 6n, {bm: 1n, qt: 'a'}),
      {k: 'finish' as const, inst: 'i', session: 's', timeProblem: 'x'},
      {k: 'start' as const, inst: 'j', ts: -(2n ** 63n) - 1n, keys: {w: 0, n: 0, t0: 0, t1: 0}, session: 's'},
    ]
    const p = unpackEvents(packEvents(events, text))
    const back = packEvents(events, text)
    expect(Array.from(back.kinds)).toEqual([0, 1, 0, 0, 1, 1, 1, 0, 0])
    expect(back.passes).toHaveLength(3) // the two "[]" texts share one entry
    const lsText = (e: object) => {
      const ls = (e as {ls?: {t0: number; t1: number}}).ls
      return ls ? {...e, ls: text.toString('utf8', ls.t0, ls.t1)} : e
    }
    expect(p.map(lsText)).toEqual(events.map((e) => ('ls' in e ? {...e, ls: '[]'} : e)))
  })

  it('takes a pass-through text for an empty list (made without the parser) only when it parses as one', () => {
    const texts = ['[]', '[ ]', '[1]', '{}', '""', '"[]"', '[[]]', '[] ', ' []', 'null', '[0]']
    const text = Buffer.from(`x${texts.join('')}x`)
    let t0 = 1
    for (const t of texts) {
      const t1 = t0 + Buffer.byteLength(t)
      const parsed = parseJson(text.toString('utf8', t0, t1))
      if (isEmptyList(text, t0, t1)) expect(parsed).toEqual([])
      expect(isEmptyList(text, t0, t1)).toBe(t === '[]') // the worker writes an empty list as `[]` exactly
      t0 = t1
    }
  })

  it('reads every length of int64 literal exactly (the halves taken without fmod), near powers of two too', () => {
    const values: bigint[] = []
    for (let digits = 1; digits <= 19; digits++)
      for (let k = 0; k < 40; k++) {
        let v = BigInt(1 + Math.floor(rand() * 9))
        for (let d = 1; d < digits; d++) v = v * 10n + BigInt(Math.floor(rand() * 10))
        if (v <= 2n ** 63n - 1n) values.push(v, -v)
      }
    for (const p of [16n, 31n, 32n, 33n, 48n, 53n, 62n])
      for (const d of [-1n, 0n, 1n]) values.push(2n ** p + d, -(2n ** p) + d, 3n * 2n ** p + d)
    values.push(2n ** 63n - 1n, -(2n ** 63n), 10n ** 18n * 9n, -(10n ** 18n) * 9n)
    const int64 = values.filter((v) => v === BigInt.asIntN(64, v))
    const scanned = new ScannedEvent()
    for (let at = 0; at < int64.length; at += 200) {
      const some = int64.slice(at, at + 200)
      const b = Buffer.from(`{"type":"StartWriteCache","keys":[${some.join(',')}]}\0`)
      expect(scanPublisherLine(b, 0, b.length - 1, scanned)).toBe(true)
      const {hi, lo} = scanned.keys
      const got = some.map((_, i) => BigInt.asIntN(64, (BigInt(hi[i]) << 32n) | BigInt(lo[i])))
      expect(got).toEqual(some)
    }
  })

  it('reads keys at the int64 edges exactly, and leaves out-of-range and "-0" keys to the exact parser', () => {
    const edges = ['9223372036854775807', '-9223372036854775808', '-1', '4294967296', '-4294967297', '0']
    const text = `{"type":"StartWriteCache","write_session_id":"w","keys":[${edges.join(',')}]}`
    const scanned = new ScannedEvent()
    const b = Buffer.from(`${text}\0`)
    expect(scanPublisherLine(b, 0, b.length - 1, scanned)).toBe(true)
    const {hi, lo} = scanned.keys
    const got = edges.map((_, i) => BigInt.asIntN(64, (BigInt(hi[i]) << 32n) | BigInt(lo[i])))
    expect(got).toEqual(edges.map((e) => BigInt(e)))
    for (const bad of ['9223372036854775808', '-9223372036854775809', '-0', '18446744073709551616']) {
      const t = Buffer.from(`{"type":"StartWriteCache","keys":[1,${bad}]}\0`)
      expect(scanPublisherLine(t, 0, t.length - 1, scanned)).toBe(false)
    }
  })
})
