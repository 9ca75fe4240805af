import {describe, expect, it} from 'vitest'
import {
  createLineBatchMapper,
  type PublisherEventBatch,
  type PublisherEventConfig,
} from '../../plugins/converters/publisher-log/_lib/events.js'
import {isEmptyList} from '../../plugins/converters/publisher-log/_lib/input.js'
import {parseJson} from '../../src/formats/json/parse.js'
import {serializeJson} from '../../src/formats/json/serialize.js'
import type {LineBatch} from '../../src/index.js'
import {LineBatchBuilder} from '../../src/formats/json/line-batch.js'

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

/** A batch's events with their keys' words and texts in place of slab offsets. */
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
  return r.events.map((e) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(e)) {
      // a NaN session is unique per call, so its key differs between two runs
      if (k === 'session' && String(v).startsWith('nan:')) out[k] = 'nan'
      else out[k] = resolve(v)
    }
    return out
  })
}

describe('publisher events: the digest of a batch', () => {
  it('gives each line one event, its keys as int64 words and their JSON text, for 6,000 random lines', () => {
    const texts = Array.from({length: 6000}, () => line())
    const digest = createLineBatchMapper(CONFIG)
    let withWords = 0
    for (const batch of byteBatches(texts)) {
      const events = eventsOf(digest(batch).result) as Array<{keys?: {text: string; words?: bigint[]}}>
      expect(events).toHaveLength(batch.count)
      for (let i = 0; i < batch.count; i++) {
        const keys = events[i].keys
        if (keys === undefined) continue
        const parsed = (parseJson(batch.text(i)) as Map<string, unknown>).get('keys') as unknown[] | undefined
        expect(keys.text).toBe(serializeJson((parsed ?? []) as never))
        if (keys.words === undefined) continue
        withWords++
        expect(keys.words).toEqual((parsed ?? []).map((k) => BigInt(k as number | bigint)))
      }
    }
    expect(withWords).toBeGreaterThan(texts.length / 10)
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
})
