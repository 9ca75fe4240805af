// The Qwen-Bailian / Mooncake lines encoded ahead (the row decoders write each row's get and write lines; the
// framework takes them in runs) pinned to the plain path: the same converter run as a built-in (the encoded lane)
// and as a plugin (records, encoded by the framework) writes the same bytes and the same summary, on random rows
// with colliding, repeated, decreasing, negative and float timestamps, ids the lane leaves to the exact path, and
// bad lines; a subclass that changes how records are made gets its records.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {MooncakeConverter} from '../../plugins/converters/mooncake.js'
import {QwenBailianConverter} from '../../plugins/converters/qwen-bailian.js'
import {EncodedTraces, encodedTraceSource} from '../../src/convert/encoded-traces.js'
import {InputAccounting} from '../../src/convert/input-accounting.js'
import type {ConverterClass} from '../../src/convert/types.js'
import type {GetTrace, GetTraceExtra, Keys} from '../../src/index.js'
import {convertAs} from '../helpers/built-in-or-plugin.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-hash-id-encoded-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

let seed = 7
const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

/** A timestamp literal that moves on from `t` mostly forwards: repeats, steps back, floats, negatives. */
function nextTimestamp(t: number, integer: boolean): string {
  const r = rand()
  const next = r < 0.25 ? t : r < 0.3 ? t - 2 : r < 0.32 ? -t : t + Math.floor(rand() * 3)
  if (integer || rand() < 0.5) return String(next)
  return `${next}.${pick(['5', '018', '999999999', '0'])}`
}

/** `count` rows in Qwen-Bailian / Mooncake shape, with ids shared between rows and a few lines that are not rows. */
function rows(count: number, integer: boolean): string {
  const lines: string[] = []
  let t = 1_700_000
  for (let i = 0; i < count; i++) {
    const ts = nextTimestamp(t, integer)
    t = Math.abs(Math.trunc(Number(ts)))
    const n = Math.floor(rand() * 40)
    const ids = Array.from({length: n}, (_, k) => (k < 5 ? k : Math.floor(rand() * 1e6)))
    if (rand() < 0.03) ids.push(pick([-1, 2 ** 60]) as number) // the exact path's
    const len = n * pick([16, 512]) - Math.floor(rand() * 20)
    const r = rand()
    if (r < 0.02)
      lines.push(`{"timestamp": ${ts}, "hash_ids": [1]}`) // no input_length
    else if (r < 0.03) lines.push('{"timestamp": "x"')
    else lines.push(`{"timestamp": ${ts}, "input_length": ${len}, "hash_ids": [${ids.join(', ')}]}`)
  }
  return lines.join('\n') + '\n'
}

/** Converts `input` with `cls` as lmt's own converter or as a plugin; the output and the summary. */
function convert(
  cls: ConverterClass,
  input: string,
  builtIn: boolean,
  sorterWindow?: number,
): Promise<{output: string; summary: unknown}> {
  return convertAs({
    dir,
    format: 'qwen_bailian',
    converterClass: cls,
    input,
    inputName: 'in.jsonl',
    builtIn,
    sorterWindow,
  })
}

describe('hash-id lines encoded ahead', () => {
  it.each([
    ['qwen_bailian', QwenBailianConverter, false, undefined],
    ['qwen_bailian, a small sort window', QwenBailianConverter, false, 16],
    ['mooncake', MooncakeConverter, true, undefined],
  ] as const)('%s: the built-in lane writes what the records give', async (_name, cls, integer, window) => {
    const input = rows(3000, integer)
    const lane = await convert(cls, input, true, window)
    const plain = await convert(cls, input, false, window)
    expect(lane.output.length).toBeGreaterThan(100_000)
    expect(lane.output).toBe(plain.output)
    expect(lane.summary).toEqual(plain.summary)
  })

  it('hands most rows over as encoded runs, the rest as records in their place', async () => {
    const inputPath = join(dir, 'direct.jsonl')
    writeFileSync(inputPath, rows(2000, false))
    const converter = new QwenBailianConverter({defaultInstanceId: 'instance'})
    const ctx = new InputAccounting(inputPath, 0, {
      strict: false,
      logger: {warn: () => {}, info: () => {}},
      signal: new AbortController().signal,
    })
    const result = converter.convertToTraces(inputPath, ctx) as unknown as {
      [encodedTraceSource](): AsyncIterable<unknown>
    }
    let encoded = 0
    let records = 0
    for await (const t of result[encodedTraceSource]()) {
      if (t instanceof EncodedTraces) encoded += t.count
      else records++
    }
    expect(encoded).toBeGreaterThan(2 * 1000)
    expect(records).toBeGreaterThan(0)
    expect(ctx.convertedLines).toBe((encoded + records) / 2)
  })

  it('a subclass that makes its records differently gets its records, as a built-in too', async () => {
    class Tagged extends QwenBailianConverter {
      override createGetTrace(
        ts: bigint | number,
        keys: Keys,
        id: string | undefined,
        extra: GetTraceExtra,
      ): GetTrace {
        return super.createGetTrace(ts, keys, id, {...extra, queryType: 'tagged'})
      }
    }
    const input = rows(200, false)
    const lane = await convert(Tagged as unknown as ConverterClass, input, true)
    expect(lane.output).toContain('"query_type": "tagged"')
    expect(lane.output).not.toContain('"prefix_match"')
  })
})
