// The fast lane of an input (ctx.fast, byte batches, worker threads on large inputs) against the plain path
// (ctx.lines()): every built-in converter that reads through the lane gives the same records and the same line
// accounting both ways.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import type {Converter, ConverterOptions, InputContext, LineMapperSpec} from '../../src/index.js'
import {FIXTURES, ROOT, tempDir} from '../helpers/cli.js'
import {itSlow} from '../helpers/slow.js'

// the worker path needs the built files (a worker runs JavaScript): `npm test` builds first
const dist = async <T>(p: string): Promise<T> =>
  (await import(pathToFileURL(join(ROOT, 'dist', p)).href)) as T
const {InputAccounting} = await dist<typeof import('../../src/convert/input-accounting.js')>(
  'src/convert/input-accounting.js',
)
await dist('src/convert/fast/index.js') // the worker threads (convert/seams.ts), as the doors put them in
const {serializeJson} = await dist<typeof import('../../src/index.js')>('src/index.js')
const {QwenBailianConverter} = await dist<typeof import('../../plugins/converters/hash-id/qwen-bailian.js')>(
  'plugins/converters/hash-id/qwen-bailian.js',
)
const {MooncakeConverter} = await dist<typeof import('../../plugins/converters/hash-id/mooncake.js')>(
  'plugins/converters/hash-id/mooncake.js',
)
const {PublisherLogConverter} = await dist<
  typeof import('../../plugins/converters/publisher-log/publisher-log.js')
>('plugins/converters/publisher-log/publisher-log.js')

type ConverterCtor = new (options: Partial<ConverterOptions>) => Converter
const tmp = tempDir()
afterAll(() => tmp.cleanup())
const CONVERT = join(FIXTURES, 'convert')

interface Run {
  records: string[]
  warnings: string[]
  accounting: unknown
  /** calls of ctx.fast's methods */
  fastCalls: number
}

/** Converts `path` with a fresh converter, through the fast lane or (plain) a context without one. */
async function convert(Cls: ConverterCtor, path: string, plain: boolean): Promise<Run> {
  const warnings: string[] = []
  const logger = {warn: (m: string) => warnings.push(m), info() {}}
  const ctx = new InputAccounting(path, 0, {strict: false, logger, signal: new AbortController().signal})
  let fastCalls = 0
  const lane = ctx.fast as NonNullable<typeof ctx.fast> // the test runs with LMT_PLAIN unset
  const counted = {
    lineBatches() {
      fastCalls++
      return lane.lineBatches()
    },
    mapLineBatches<R>(spec: LineMapperSpec) {
      fastCalls++
      return lane.mapLineBatches<R>(spec)
    },
  }
  Object.defineProperty(ctx, 'fast', {value: plain ? undefined : counted})
  const converter = new Cls({instanceBlockSizes: {instA: 16, instB: 32}, logger})
  const records: string[] = []
  for await (const t of (await converter.convertToTraces?.(path, ctx as InputContext)) ?? [])
    records.push(serializeJson(t))
  const accounting = {
    linesRead: ctx.linesRead,
    blankLines: ctx.blankLines,
    converted: ctx.convertedLines,
    skipped: Object.fromEntries(ctx.skipped),
    dropped: Object.fromEntries(ctx.dropped),
    notes: Object.fromEntries(ctx.notes),
  }
  return {records, warnings, accounting, fastCalls}
}

/** A copy of fixture lines, repeated until the file is over 4 MiB (where the lane maps on worker threads). */
function large(name: string, sources: string[]): string {
  const text = sources.map((s) => readFileSync(s, 'utf8')).join('\n')
  const path = join(tmp.dir, name)
  writeFileSync(path, text.repeat(Math.ceil((5 << 20) / text.length)))
  return path
}

const SAMPLES = join(ROOT, 'samples')
const cases: Array<{name: string; Cls: ConverterCtor; input: () => string}> = [
  {
    name: 'qwen_bailian, bad lines',
    Cls: QwenBailianConverter,
    input: () => join(CONVERT, 'qwen_bailian_sample.jsonl'),
  },
  {
    name: 'mooncake',
    Cls: MooncakeConverter,
    input: () => join(CONVERT, 'mooncake_conversation_head200.jsonl'),
  },
  {name: 'publisher_log', Cls: PublisherLogConverter, input: () => join(CONVERT, 'event_publisher.log')},
  {
    name: 'publisher_log edge cases',
    Cls: PublisherLogConverter,
    input: () => join(CONVERT, 'publisher_edge_cases.log'),
  },
  {
    name: 'qwen_bailian, 5 MiB (worker threads)',
    Cls: QwenBailianConverter,
    input: () =>
      large('qwen.jsonl', [
        join(SAMPLES, 'mooncake_conversation_trace.jsonl'),
        join(CONVERT, 'qwen_bailian_sample.jsonl'),
      ]),
  },
  {
    name: 'publisher_log, 5 MiB (worker threads)',
    Cls: PublisherLogConverter,
    input: () =>
      large('publisher.log', [
        join(CONVERT, 'event_publisher.log'),
        join(CONVERT, 'publisher_edge_cases.log'),
      ]),
  },
]

describe('the fast lane (ctx.fast) against the plain line reader (ctx.lines())', () => {
  for (const c of cases)
    // the 5 MiB inputs (worker threads) in npm run test:all
    (c.name.includes('MiB') ? itSlow : it)(
      `${c.name}: the same records, warnings and accounting both ways`,
      async () => {
        const input = c.input()
        const fast = await convert(c.Cls, input, false)
        const plain = await convert(c.Cls, input, true)
        expect(fast.fastCalls).toBe(1) // the converter did read through the lane ...
        expect(plain.fastCalls).toBe(0) // ... and without it, through ctx.lines()
        expect(fast.records.length).toBeGreaterThan(0)
        expect(plain.records).toEqual(fast.records)
        expect(plain.warnings).toEqual(fast.warnings)
        expect(plain.accounting).toEqual(fast.accounting)
      },
    )
})

describe('lineBatchesOf', () => {
  it('gives the same lines, numbers and bytes with and without the fast lane', async () => {
    const {lineBatchesOf} = await dist<typeof import('../../src/index.js')>('src/index.js')
    const path = join(tmp.dir, 'mixed.jsonl')
    writeFileSync(
      path,
      '\ufeff  {"a": 1}\r\n\n\u00e9t\u00e9 \u2028\rx\n\n   \n' + 'y'.repeat(300_000) + '\nlast',
    )
    const read = async (plain: boolean) => {
      const logger = {warn() {}, info() {}}
      const ctx = new InputAccounting(path, 0, {strict: false, logger, signal: new AbortController().signal})
      if (plain) Object.defineProperty(ctx, 'fast', {value: undefined})
      const lines: Array<[number, string]> = []
      for await (const b of lineBatchesOf(ctx))
        for (let i = 0; i < b.count; i++) {
          expect(b.bytes[b.ends[i]]).toBe(0) // the sentinel after every line
          lines.push([b.lineNos[i], b.text(i)])
        }
      return {lines, linesRead: ctx.linesRead, blank: ctx.blankLines}
    }
    const fast = await read(false)
    expect(fast.lines.map(([n]) => n)).toEqual([1, 3, 4, 7, 8])
    expect(await read(true)).toEqual(fast)
  })
})
