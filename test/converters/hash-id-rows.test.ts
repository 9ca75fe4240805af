import {describe, expect, it} from 'vitest'
import {
  createLineBatchMapper,
  decodeHashIdRow,
  type HashIdBatch,
  type HashIdRowConfig,
  type HashIdRowResult,
  scaledTimestamp,
  scannedTimestamp,
} from '../../plugins/converters/hash-id/_lib/rows.js'
import {ScannedHashIdRow, scanHashIdRowBytes} from '../../plugins/converters/hash-id/_lib/scan.js'
import {parseJson} from '../../src/index.js'
import {GetRecord, type InputContext, KeyList, type LineBatch} from '../../src/index.js'
import {LineBatchBuilder} from '../../src/formats/json/line-batch.js'
import {QwenBailianConverter} from '../../plugins/converters/hash-id/qwen-bailian.js'

let seed = 99
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

const QWEN: HashIdRowConfig = {blockSize: 16, intScale: 1_000_000_000n, floatScale: 1e9}
const MOONCAKE: HashIdRowConfig = {blockSize: 512, intScale: 1_000_000n, floatScale: 1e6}

/** An id literal: mostly small, sometimes at and beyond the 53/63/64-bit edges, negative, or not an integer. */
function idText(clean: boolean): string {
  const r = rand()
  if (r < 0.7 || (clean && r < 0.97)) return String(Math.floor(rand() * 100000))
  if (clean)
    return pick(['-1', '9223372036854775808', '18446744073709551616', '-123456789012345678901234567890'])
  return pick([
    '0',
    '-0',
    '-1',
    '9007199254740991',
    '9007199254740993',
    '-9007199254740993',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775808',
    '18446744073709551615',
    '18446744073709551616',
    '123456789012345678901234567890',
    '-123456789012345678901234567890',
    '1.0',
    '2e3',
    'true',
    'false',
    'null',
    '"7"',
    'NaN',
    '01',
    '1.',
  ])
}

/** A qwen-shaped line with random variations (most valid, some not). */
function line(): string {
  const clean = rand() < 0.6
  const ids = Array.from({length: Math.floor(rand() * 70)}, () => idText(clean))
  const fields: string[] = []
  const add = (k: string, v: string) => fields.push(`${JSON.stringify(k)}:${pick([' ', '', '  ', '\t'])}${v}`)
  if (rand() < 0.9) add('chat_id', String(Math.floor(rand() * 1e6)))
  if (rand() < 0.95)
    add(
      'timestamp',
      clean
        ? pick(['1700000000.018', '0', '-5', '1700000000', '1e3', '-0'])
        : pick(['1700000000.018', '12345678901234567', '"x"', 'null', '1.5e400']),
    )
  if (rand() < 0.95)
    add(
      'input_length',
      clean
        ? pick([String(ids.length * 16 - 3), String(ids.length * 16 + 1), '100'])
        : pick(['0', '-4', '16.0', '"5"', 'true', '1e2', '100']),
    )
  if (rand() < 0.3)
    add(
      'meta',
      pick(
        clean ? ['{"a": [1, 2, {"b": null}]}', '"\\u00e9\\n"', '[]', '{}'] : ['"bad\\x"', '[1,]', 'Infinity'],
      ),
    )
  if (rand() < 0.95) add('hash_ids', `[${ids.join(pick([', ', ',', ' , ']))}]`)
  if (!clean && rand() < 0.2) add('hash_ids', '[1, 2]') // a repeated field
  if (!clean && rand() < 0.2) add('input_length', '32')
  if (rand() < 0.1) add('type', pick(['"text"', '"t\\"x"', '"é"']))
  for (let i = fields.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[fields[i], fields[j]] = [fields[j], fields[i]]
  }
  const text = `{${fields.join(pick([', ', ',']))}}`
  const r = rand()
  if (r < 0.02) return text.slice(0, Math.floor(rand() * text.length)) // truncated
  if (r < 0.04) return `[${text}]`
  if (r < 0.06) return ` ${text} `
  return text
}

/** Results compared by content (the exact path returns a Buffer, the fast lane a Uint8Array view). */
function norm(r: HashIdRowResult | undefined): unknown {
  if (r === undefined || 'skip' in r) return r
  return {
    ts: r.ts,
    inputLen: r.inputLen,
    words: Array.from(r.words),
    json: Buffer.from(r.json).toString('latin1'),
  }
}

describe('hash-id rows: the exact path', () => {
  it('takes ids beyond 64 bits modulo 2^64 and negative ids in two’s complement (the byte lane leaves them to it)', () => {
    const ids = [
      '18446744073709551617',
      '-1',
      '-18446744073709551615',
      '340282366920938463463374607431768211457',
    ]
    const text = `{"timestamp": 1, "input_length": 64, "hash_ids": [${ids.join(', ')}]}`
    const want = KeyList.prefixHash(ids.map((t) => BigInt.asUintN(64, BigInt(t))))
    const exact = decodeHashIdRow(text, QWEN)
    expect(norm(exact)).toEqual(
      norm({ts: 1_000_000_000n, inputLen: 64n, words: want.words(), json: want.toJsonBytes()}),
    )
    const {result} = createLineBatchMapper(QWEN)(byteBatches([text])[0])
    expect(result.kind[0]).toBe(1)
    expect(norm(result.exact[0])).toEqual(norm(exact))
  })
})

/** The lines as byte batches, as the reader makes them (a few lines each, so batch edges fall everywhere). */
function byteBatches(texts: string[]): LineBatch[] {
  const b = new LineBatchBuilder(37, 4000)
  texts.forEach((t, i) => b.addBytes(i + 1, Buffer.from(t), 0, Buffer.byteLength(t)))
  b.seal()
  return b.take()
}

/** Row i of a batch result, in the exact path's form. */
function rowOf(r: HashIdBatch, i: number, exactAt: {n: number}): unknown {
  if (r.kind[i] === 1) return norm(r.exact[exactAt.n++])
  const k0 = i === 0 ? 0 : r.keyEnd[i - 1]
  return {
    ts: r.ts[i],
    inputLen: BigInt(r.inputLen[i]),
    words: Array.from(new BigInt64Array(r.words.buffer, r.words.byteOffset).subarray(k0, r.keyEnd[i])),
    json: Buffer.from(r.text.subarray(r.textStart[i], r.textEnd[i])).toString('latin1'),
  }
}

describe('hash-id rows: the byte lane (LineBatch)', () => {
  it('gives exactly the exact path’s result for 5,000 random lines, whatever the batch edges', () => {
    for (const config of [QWEN, MOONCAKE]) {
      const texts = Array.from({length: 2500}, () => line()).filter((t) => t.trim() === t && t !== '')
      const map = createLineBatchMapper(config)
      let fast = 0
      let at = 0
      for (const batch of byteBatches(texts)) {
        const {result, transfer} = map(batch)
        expect(transfer).toHaveLength(8)
        const exactAt = {n: 0}
        for (let i = 0; i < batch.count; i++) {
          expect(rowOf(result, i, exactAt)).toEqual(norm(decodeHashIdRow(texts[at + i], config)))
          if (result.kind[i] === 0) fast++
        }
        expect(exactAt.n).toBe(result.exact.length)
        at += batch.count
      }
      expect(at).toBe(texts.length)
      // the lane takes non-negative ids of up to 15 digits: most of the common shapes
      expect(fast).toBeGreaterThan(texts.length / 5)
    }
  })

  it('the converter reads the exact path’s keys and input lengths out of the batches', async () => {
    const texts = Array.from({length: 1500}, () => line()).filter((t) => t.trim() === t && t !== '')
    const skipped: number[] = []
    const ctx = {
      async *lines() {
        yield* texts.map((text, i) => ({lineNo: i + 1, text}))
      },
      skip: (l: {lineNo: number}) => skipped.push(l.lineNo),
      converted: () => {},
    } as unknown as InputContext
    const gets: GetRecord[] = []
    for await (const t of new QwenBailianConverter({}).convertToTraces('', ctx) as AsyncIterable<unknown>)
      if (t instanceof GetRecord) gets.push(t)
    const rows = texts.map((t) => decodeHashIdRow(t, QWEN))
    expect(skipped).toEqual(rows.flatMap((r, i) => ('skip' in r ? [i + 1] : [])))
    const want = rows.flatMap((r) => ('skip' in r ? [] : [norm(r) as {inputLen: bigint; json: string}]))
    expect(gets.map((g) => [BigInt(g.input_len), (g.keys as KeyList).toJsonText()])).toEqual(
      want.map((w) => [w.inputLen, w.json]),
    )
    expect(gets.length).toBeGreaterThan(texts.length / 2)
  })

  it('reads a float timestamp as long as a line (no argument spread)', () => {
    const text = `{"timestamp": 1.${'0'.repeat(300_000)}1, "input_length": 32, "hash_ids": [1, 2]}`
    const {result} = createLineBatchMapper(QWEN)(byteBatches([text])[0])
    expect(result.kind[0]).toBe(0)
    expect(result.ts[0]).toBe(1_000_000_000n)
  })

  it('takes the lane for float timestamps exactly as Number() reads them', () => {
    const stamps = [
      '1700000000.018',
      '0.1',
      '-0.0',
      '12345678.345',
      '1.5e3',
      '0.000000000000000000001',
      '9.999999999999999',
    ]
    const texts = stamps.map((t) => `{"timestamp": ${t}, "input_length": 32, "hash_ids": [1, 2]}`)
    const {result} = createLineBatchMapper(QWEN)(byteBatches(texts)[0])
    texts.forEach((t, i) => {
      expect(result.kind[i]).toBe(0)
      expect(result.ts[i]).toBe((decodeHashIdRow(t, QWEN) as {ts: bigint}).ts)
    })
  })

  it('computes the scanned timestamp as scaledTimestamp does', () => {
    const literals = [
      '0',
      '-0',
      '-0.0',
      '0.5',
      '-1',
      '-1.5',
      '1e-10',
      '1.7e9',
      '17E8',
      'true',
      'false',
      'null',
    ]
    for (const base of [9007199, 9007199254, 4294, 8589, 9223372036, 1700000000, 1733900000000])
      for (const d of [-1, 0, 1]) literals.push(String(base + d), `${base + d}.${Math.floor(rand() * 1e9)}`)
    literals.push('9223372036.854775807', '9223372036.854775808', '-9223372036.854775808', '4294.967295')
    literals.push('123456789012345', '999999999999999', '-999999999999999', '1e300', '-1e300', '5e-324')
    for (let i = 0; i < 3000; i++) {
      const v = Math.floor(rand() * 10 ** Math.floor(rand() * 16)) * (rand() < 0.1 ? -1 : 1)
      literals.push(rand() < 0.5 ? String(v) : `${v}.${Math.floor(rand() * 1e9)}`)
    }
    const scanned = new ScannedHashIdRow()
    for (const config of [
      QWEN,
      MOONCAKE,
      {...QWEN, intScale: 2n ** 60n},
      {...QWEN, intScale: 3n, floatScale: 3},
    ]) {
      for (const literal of literals) {
        const text = `{"timestamp": ${literal}, "input_length": 32, "hash_ids": [1]}`
        const bytes = new Uint8Array([...Buffer.from(text), 0])
        if (!scanHashIdRowBytes(bytes, 0, bytes.length - 1, scanned)) continue
        const want = scaledTimestamp(
          (parseJson(text) as Map<string, unknown>).get('timestamp'),
          config.intScale,
          config.floatScale,
        )
        const inRange = want !== undefined && want >= -(2n ** 63n) && want < 2n ** 63n
        expect(scannedTimestamp(scanned, config.intScale, config.floatScale), literal).toBe(
          inRange ? want : undefined,
        )
      }
    }
  })
})
