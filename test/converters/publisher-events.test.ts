import {describe, expect, it} from 'vitest'
import {
  createLineBatchMapper,
  FINISH,
  FINISH_BAD_TIME,
  GET,
  GET_FROM_KEYS,
  PROBLEM,
  type PublisherEventConfig,
  START,
  sessionKey,
  triggerTimeNs,
} from '../../plugins/converters/publisher-log/_lib/events.js'
import {PublisherBatch} from '../../plugins/converters/publisher-log/_lib/input.js'
import {KeyList} from '../../src/hash/key-list.js'
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
    '99999999999999999999',
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

/** The digest of `texts` as the main thread reads it: the batches of columns behind their accessors. */
function digested(texts: string[]): PublisherBatch[] {
  const digest = createLineBatchMapper(CONFIG)
  return byteBatches(texts).map((lines) => new PublisherBatch(lines, digest(lines).result))
}

const json = (v: unknown): string | undefined => (v === undefined ? undefined : serializeJson(v as never))

describe('publisher events: the digest of a batch', () => {
  it('gives each line one event, its keys as int64 words and their JSON text, for 6,000 random lines', () => {
    const texts = Array.from({length: 6000}, () => line())
    let withWords = 0
    for (const batch of digested(texts)) {
      for (let i = 0; i < batch.lines.count; i++) {
        const kind = batch.kind(i)
        if (kind !== GET && kind !== GET_FROM_KEYS && kind !== START) continue
        const keys = batch.keys(i)
        const parsed = (parseJson(batch.lines.text(i)) as Map<string, unknown>).get('keys') as
          unknown[] | undefined
        const text = keys instanceof KeyList ? keys.toJsonBytes().toString() : json(keys)
        expect(text).toBe(json(parsed ?? []))
        if (!(keys instanceof KeyList)) continue
        withWords++
        expect(Array.from(keys.words())).toEqual((parsed ?? []).map((k) => BigInt(k as number | bigint)))
      }
    }
    expect(withWords).toBeGreaterThan(texts.length / 10)
  })

  it("carries every event's instance, time, session, input_len and pass-through values across, beyond int64 too", () => {
    const texts = Array.from({length: 6000}, () => line())
    const seen = new Map<number, number>()
    let wide = 0
    for (const batch of digested(texts)) {
      for (let i = 0; i < batch.lines.count; i++) {
        const kind = batch.kind(i)
        seen.set(kind, (seen.get(kind) ?? 0) + 1)
        if (kind === PROBLEM) {
          expect(batch.problem(i).code).toMatch(/^[a-z_0-9]+$/)
          continue
        }
        const e = parseJson(batch.lines.text(i)) as Map<string, unknown>
        expect(batch.inst(i)).toBe(e.has('source') ? e.get('source') : CONFIG.defaultInstanceId)
        if (kind !== FINISH_BAD_TIME) expect(batch.ts(i)).toBe(triggerTimeNs(e.get('trigger_time_us')))
        if (batch.ts(i) > 2n ** 63n - 1n) wide++
        if (kind === START || kind === FINISH || kind === FINISH_BAD_TIME) {
          const session = sessionKey(e.get('write_session_id')) as {key: string}
          if (!session.key.startsWith('nan:')) expect(batch.session(i)).toBe(session.key)
        }
        if (kind !== GET && kind !== GET_FROM_KEYS) continue
        if (kind === GET_FROM_KEYS) {
          const n = ((e.get('keys') as unknown[]) ?? []).length
          const size = BigInt(e.get('source') === 'instB' ? 32 : 16)
          expect(batch.inputLen(i)).toBe(BigInt(n) * size)
        } else expect(batch.inputLen(i)).toBeGreaterThan(0n)
        const tail = batch.tail(i)
        const fields = ['query_type', 'block_mask', 'sw_size', 'location_spec_names'] as const
        const values = [tail.queryType, tail.blockMask, tail.swSize, tail.locationSpecNames]
        fields.forEach((f, k) => expect(json(values[k])).toBe(e.has(f) ? json(e.get(f)) : undefined))
        // a value is made anew for each get (the pending gets keep their own)
        if (Array.isArray(tail.locationSpecNames))
          expect(batch.tail(i).locationSpecNames).not.toBe(tail.locationSpecNames)
      }
    }
    for (const kind of [PROBLEM, GET, GET_FROM_KEYS, START, FINISH, FINISH_BAD_TIME])
      expect(seen.get(kind) ?? 0).toBeGreaterThan(0)
    expect(wide).toBeGreaterThan(0)
  })
})
