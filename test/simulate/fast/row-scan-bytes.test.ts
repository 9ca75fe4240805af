import {describe, expect, it} from 'vitest'
import {KeyInterner} from '../../../src/simulate/input/key-interner.js'
import {LineBatchBuilder} from '../../../src/formats/json/line-batch.js'
import {RowByteScanner} from '../../../src/simulate/fast/row-scan-bytes.js'
import {parseRow, RowError, type TraceRow} from '../../../src/simulate/input/trace-rows.js'
import {itSlow} from '../../helpers/slow.js'

let seed = 4242
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

function keyText(clean: boolean): string {
  if (rand() < 0.8) return String(BigInt.asIntN(64, BigInt(Math.floor(rand() * 2 ** 52)) * 0x9e3779b97n))
  const edge = [
    '0',
    '-0',
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '18446744073709551615',
    '12345',
  ]
  if (clean) return pick(edge)
  return pick([
    ...edge,
    '-9223372036854775809',
    '18446744073709551616',
    '99999999999999999999',
    '123456789012345678901234',
    '1.5',
    '1e3',
    '-1E+2',
    '12345678901234567.0',
    'true',
    'null',
    '"7"',
    '01',
    '-01',
    '-',
    '[1]',
  ])
}

/** the keys of the last row, and how often a row takes them again (a write after its get), changed a little or not */
let lastKeys: string[] = []
let repeatKeys = 0

function keysOfRow(clean: boolean): string[] {
  if (rand() < repeatKeys && lastKeys.length > 0) {
    const k = [...lastKeys]
    const change = rand()
    if (change < 0.15)
      k[k.length - 1] = keyText(clean) // the same length, another last key
    else if (change < 0.3)
      k.push(keyText(clean)) // a longer list sharing the prefix
    else if (change < 0.4) k.pop()
    else if (change < 0.5) k[Math.floor(rand() * k.length)] = keyText(clean) // a key anywhere changed
    return k
  }
  const n = Math.floor(rand() * 12)
  return Array.from({length: n}, () => keyText(clean))
}

/** A row in the converter's layout with random variations; some invalid. */
function row(): string {
  const clean = rand() < 0.6
  const keys = keysOfRow(clean)
  lastKeys = keys
  const n = keys.length
  const type = clean ? pick(['get', 'write', 'request']) : pick(['get', 'write', 'gett', 'g\\u0065t'])
  const f: Array<[string, string]> = [
    ['type', `"${type}"`],
    [
      'instance_id',
      clean
        ? pick(['"instance"', '"i2"', '"é"', '"实例"', '"i😀"'])
        : pick(['""', '"a\\"b"', '"\\u0069"', '5']),
    ],
    ['trace_id', '"trace_instance_1"'],
    [
      'timestamp_ns',
      clean
        ? pick(['1700000000123456789', '0', '42', '9223372036854775807'])
        : pick(['-1', '9223372036854775808', '1.0', '"5"', '123456789012345678901']),
    ],
    ['keys', `[${keys.join(pick([', ', ',']))}]`],
    ['input_len', clean ? String(n * 16 + 8) : pick(['0', '-3', '1.5', '"9"', '9007199254740993', 'null'])],
    ['query_type', clean ? pick(['"prefix_match"', '"other"']) : pick(['5', '"pre\\u0066ix"', 'null'])],
    [
      'block_mask',
      clean
        ? pick(['[]', '3', '0', '[true, false]', '[false]', String(n + 5)])
        : pick(['-1', '[1, 0]', '"x"', '1.5', '[true, 2]', '9223372036854775807']),
    ],
    ['sw_size', pick(['0', '-1', '{"nested": [1, {"x": null}]}'])],
    ['location_spec_names', pick(['[]', '["a", "b"]'])],
  ]
  const fields = f.filter(() => rand() < (clean ? 0.97 : 0.85))
  if (!clean && rand() < 0.2) fields.push(['keys', '[1]']) // repeated field
  if (rand() < 0.3)
    for (let i = fields.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[fields[i], fields[j]] = [fields[j], fields[i]]
    }
  if (rand() < 0.2)
    fields.push([pick(['extra', 'ké', 'k\\u00e9', 'type2', 'key']), pick(['1', '"x"', '[{}]', '-2.5e-3'])])
  const ws = () => (clean || rand() < 0.7 ? '' : pick([' ', '\t', '  ', '\n', '\r', '\f', '\u00a0']))
  const text = `${ws()}{${ws()}${fields.map(([k, v]) => `"${k}"${ws()}:${pick([' ', ''])}${ws()}${v}${ws()}`).join(pick([', ', ',', ' ,  ']))}}${ws()}`
  return rand() < 0.03 ? text.slice(0, Math.floor(rand() * text.length)) : text
}

function exact(text: string, lineNo: number, keys: KeyInterner): TraceRow | string {
  try {
    return parseRow(text, lineNo, keys)
  } catch (err) {
    if (err instanceof RowError) return `${err.rule}: ${err.message}`
    throw err
  }
}

/** The line as the reader hands it over: its trimmed UTF-8 bytes in a batch, followed by the sentinel. */
function asBytes(text: string): {bytes: Uint8Array; start: number; end: number} {
  const b = new LineBatchBuilder(1, 1)
  b.addText(1, text)
  const [batch] = b.take()
  return {bytes: batch.bytes, start: batch.starts[0], end: batch.ends[0]}
}

/** A scan as the reader does it: on the trimmed line's bytes (a blank line never reaches the scanner). */
function scan(scanner: RowByteScanner, text: string, lineNo: number, keys: KeyInterner | undefined) {
  const t = text.replace(/^[ \t\n\r\f\v\u00a0]+|[ \t\n\r\f\v\u00a0]+$/g, '')
  if (t === '') return {text: t, row: undefined}
  const {bytes, start, end} = asBytes(t)
  return {text: t, row: scanner.scan(bytes, start, end, lineNo, keys)}
}

describe('the trace-row fast lane (bytes)', () => {
  itSlow('gives parseRow’s rows (and interns keys in the same order) on 20,000 random rows', () => {
    const scanner = new RowByteScanner()
    const production = new KeyInterner()
    const reference = new KeyInterner()
    let fast = 0
    let handedOver = 0
    for (let i = 1; i <= 20_000; i++) {
      const {text, row: scanned} = scan(scanner, row(), i, production)
      if (text === '') continue
      if (scanned) fast++
      else handedOver++
      const got = scanned ?? exact(text, i, production) // what readTraceRowBatches does
      expect(got).toEqual(exact(text, i, reference))
    }
    expect(fast).toBeGreaterThan(5000)
    expect(handedOver).toBeGreaterThan(5000)
    expect(production.size).toBe(reference.size)
  })

  it('a row repeating the keys of the one before (or nearly) gives parseRow’s row, never a shared keys array', () => {
    repeatKeys = 0.7
    const scanner = new RowByteScanner()
    const production = new KeyInterner()
    const reference = new KeyInterner()
    let previous: TraceRow | undefined
    let repeats = 0
    for (let i = 1; i <= 20_000; i++) {
      const {text, row: scanned} = scan(scanner, row(), i, production)
      if (text === '') continue
      const got = scanned ?? exact(text, i, production)
      expect(got).toEqual(exact(text, i, reference))
      if (typeof got === 'string') continue
      if (previous !== undefined && got.keys.length > 0) {
        expect(got.keys).not.toBe(previous.keys)
        if (got.keys.join() === previous.keys.join()) repeats++
      }
      previous = got
    }
    repeatKeys = 0
    expect(repeats).toBeGreaterThan(1500)
    expect(production.size).toBe(reference.size)
  })

  it('without an interner (the block-size pre-pass) gives the same rows with every key id 0', () => {
    const scanner = new RowByteScanner()
    const discard = {id: (v: unknown) => (new KeyInterner().id(v) === undefined ? undefined : 0)}
    for (let i = 1; i <= 10_000; i++) {
      const {text, row: scanned} = scan(scanner, row(), i, undefined)
      if (text === '') continue
      const reference = exact(text, i, discard as unknown as KeyInterner)
      if (scanned) expect(scanned).toEqual(reference)
      else if (typeof reference !== 'string') {
        // handed over: the exact path decides (and the scanner gave up only on something it does not read)
        expect(scan(new RowByteScanner(), text, i, new KeyInterner()).row).toBeUndefined()
      }
    }
  })

  it('hands over the rows it must: escapes, floats, big integers, repeated fields', () => {
    const scanner = new RowByteScanner()
    const base = '"instance_id": "i", "timestamp_ns": 1, "input_len": 32'
    for (const text of [
      `{"type": "g\\u0065t", ${base}, "keys": [1]}`,
      `{"type": "get", ${base}, "keys": [1.0]}`,
      `{"type": "get", ${base}, "keys": [1e2]}`,
      `{"type": "get", ${base}, "keys": [18446744073709551616]}`,
      `{"type": "get", ${base}, "keys": [-9223372036854775809]}`,
      `{"type": "get", ${base}, "keys": [1], "keys": [2]}`,
      `{"type": "get", "instance_id": "i", "timestamp_ns": 1.5, "input_len": 32, "keys": [1]}`,
      `{"type": "get", "instance_id": "i", "timestamp_ns": 9223372036854775808, "input_len": 32, "keys": [1]}`,
      `{"type": "get", ${base}, "keys": [1], "x": NaN}`,
      `{"type": "get", ${base}, "keys": [1]} x`,
    ])
      expect(scan(scanner, text, 1, new KeyInterner()).row, text).toBeUndefined()
    const ok = scan(
      scanner,
      `\t{ "keys" :[ 5 ,\t-1 ], "extra": {"a": [1, 2.5]}, "type":"get",${base} }`,
      7,
      new KeyInterner(),
    )
    expect(ok.row).toEqual(exact(ok.text, 7, new KeyInterner()))
  })

  it('takes the exact key values: unsigned forms beyond 2^63 are their signed keys', () => {
    const keys = new KeyInterner()
    const a = scan(
      new RowByteScanner(),
      '{"type": "write", "instance_id": "i", "timestamp_ns": 1, "keys": [18446744073709551615, -1, 9223372036854775808, -9223372036854775808]}',
      1,
      keys,
    ).row
    expect(a?.keys).toEqual([0, 0, 1, 1])
    expect(keys.id(-1n)).toBe(0)
    expect(keys.id(2n ** 63n)).toBe(1)
    expect(keys.id(-(2n ** 63n) - 1n)).toBeUndefined()
    expect(keys.id(2n ** 64n)).toBeUndefined()
  })
})

describe('ttl_us in the fast lane (rows of a tiered configuration)', () => {
  const rows = [
    '{"type":"write","instance_id":"a","timestamp_ns":5,"keys":[1,2],"ttl_us":400000}',
    '{"type":"write","instance_id":"a","timestamp_ns":6,"keys":[1,2],"ttl_us":-1}',
    '{"type":"request","instance_id":"a","timestamp_ns":7,"keys":[1],"input_len":16,"ttl_us":0}',
    '{"type":"get","instance_id":"a","timestamp_ns":8,"keys":[1],"input_len":16,"ttl_us":5}',
    '{"type":"write","instance_id":"a","timestamp_ns":9,"keys":[3]}',
  ]

  it('reads ttl_us as parseRow does (not on gets), and only when asked to', () => {
    const scanner = new RowByteScanner()
    scanner.keepTtl = true
    const got = rows.map((r, i) => scan(scanner, r, i + 1, new KeyInterner()).row)
    const expected = rows.map((r, i) => parseRow(r, i + 1, new KeyInterner(), true))
    expect(got).toEqual(expected)
    expect(got.map((r) => r?.ttlUs)).toEqual([400000n, -1n, 0n, undefined, undefined])
    const plain = new RowByteScanner()
    expect(rows.map((r, i) => scan(plain, r, i + 1, new KeyInterner()).row?.ttlUs)).toEqual(
      rows.map(() => undefined),
    )
  })

  it('leaves a ttl_us that is not an integer to parseRow, which refuses it', () => {
    const scanner = new RowByteScanner()
    scanner.keepTtl = true
    const text = '{"type":"write","instance_id":"a","timestamp_ns":5,"keys":[1],"ttl_us":1.5}'
    expect(scan(scanner, text, 1, new KeyInterner()).row).toBeUndefined()
    expect(() => parseRow(text, 1, new KeyInterner(), true)).toThrow(RowError)
  })
})
