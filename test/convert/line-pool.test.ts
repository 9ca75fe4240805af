import {join} from 'node:path'
import {readFileSync, writeFileSync} from 'node:fs'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import type {InputLine} from '../../src/formats/json/line-reader.js'
import type {LineMapperSpec, MappedLine} from '../../src/convert/line-mapper.js'
import {FIXTURES, ROOT, tempDir} from '../helpers/cli.js'

// the worker path needs the built files (a worker runs JavaScript): `npm test` builds first
const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href
const {mapLines} = (await import(
  dist('src/convert/line-pool.js')
)) as typeof import('../../src/convert/line-pool.js')
const ROWS = dist('plugins/converters/hash-id/_lib/rows.js')

function qwenLines(n: number): InputLine[] {
  let seed = 99
  const rand = (k: number) => (seed = (seed * 48271) % 2147483647) % k
  return Array.from({length: n}, (_, i) => {
    const ids = Array.from({length: 1 + rand(70)}, () => rand(5000))
    const text =
      i % 97 === 5
        ? '{"timestamp": 1.5, "hash_ids": "oops"}' // an invalid row: a skip result, in its place
        : `{"timestamp": ${(i / 10).toFixed(3)}, "input_length": ${16 * ids.length - rand(16)}, "hash_ids": [${ids.join(', ')}]}`
    return {lineNo: i + 1, text}
  })
}

/** The lines in batches of uneven sizes, as a reader hands them over. */
async function* from(lines: InputLine[]): AsyncGenerator<InputLine[]> {
  for (let i = 0, n = 1; i < lines.length; i += n, n = ((n * 7) % 900) + 1) yield lines.slice(i, i + n)
}

async function run(lines: InputLine[], spec: Partial<LineMapperSpec>): Promise<unknown[]> {
  const out: unknown[] = []
  const config = {blockSize: 16, intScale: 1_000_000_000n, floatScale: 1e9}
  for await (const m of mapLines(from(lines), {module: ROWS, config, ...spec}, 1 << 30) as AsyncIterable<
    MappedLine<Record<string, unknown>>
  >) {
    const r = m.result
    out.push({
      line: m.line.lineNo,
      ...('skip' in r
        ? r
        : {
            ts: r.ts,
            inputLen: r.inputLen,
            words: Array.from(r.words as BigInt64Array),
            json: Buffer.from(r.json as Uint8Array).toString(),
          }),
    })
  }
  return out
}

describe('the line mapper pool', () => {
  it('gives the inline results, in input order, on 1 and 2 worker threads', async () => {
    const lines = qwenLines(6000)
    const inline = await run(lines, {workers: 0})
    expect(inline).toHaveLength(6000)
    expect(inline.filter((r) => 'skip' in (r as object)).length).toBeGreaterThan(50)
    for (const workers of [1, 2]) expect(await run(lines, {workers, inlineBelowBytes: 0})).toEqual(inline)
  })

  it('closes batches at batchChars, so a few long lines still reach every worker', async () => {
    const tmp = tempDir()
    try {
      const module = join(tmp.dir, 'thread-mapper.mjs')
      writeFileSync(
        module,
        "import {threadId} from 'node:worker_threads'\nexport const createLineMapper = () => () => threadId\n",
      )
      const lines = Array.from({length: 40}, (_, i) => ({lineNo: i + 1, text: String(i).repeat(1000)}))
      const threads = async (spec: Partial<LineMapperSpec>) => {
        const ids = new Set<unknown>()
        for await (const m of mapLines(from(lines), {module, config: {}, workers: 2, ...spec}, 1 << 30))
          ids.add(m.result)
        return ids.size
      }
      expect(await threads({})).toBe(1) // 40 lines: one batch of up to 512
      expect(await threads({batchChars: 4000})).toBe(2)
    } finally {
      tmp.cleanup()
    }
  })
})

const {mapLineBatches} = (await import(
  dist('src/convert/line-pool.js')
)) as typeof import('../../src/convert/line-pool.js')
// the worker threads are an accelerator (convert/seams.ts): put in as the doors that run conversions do
await import(dist('src/convert/fast/index.js'))
const {accelerators} = (await import(
  dist('src/convert/seams.js')
)) as typeof import('../../src/convert/seams.js')
const {LineBatchBuilder} = (await import(
  dist('src/formats/json/line-batch.js')
)) as typeof import('../../src/formats/json/line-batch.js')

describe('the byte-batch mapper pool', () => {
  async function runBatches(lines: InputLine[], spec: Partial<LineMapperSpec>): Promise<unknown[]> {
    const builder = new LineBatchBuilder(300, 1 << 16)
    for (const l of lines) builder.addText(l.lineNo, l.text)
    builder.seal()
    const batches = builder.take()
    async function* source() {
      yield* batches
    }
    const config = {blockSize: 16, intScale: 1_000_000_000n, floatScale: 1e9}
    const out: unknown[] = []
    for await (const {lines: batch, result} of mapLineBatches<Record<string, ArrayLike<unknown>>>(
      source(),
      {module: ROWS, config, ...spec},
      1 << 30,
    ))
      out.push({
        lineNos: Array.from(batch.lineNos),
        kind: Array.from(result.kind as Uint8Array),
        ts: Array.from(result.ts as BigInt64Array),
        text: Buffer.from(result.text as Uint8Array).toString(),
        exact: (result.exact as unknown[]).length,
      })
    return out
  }

  it('gives the inline results, batch by batch in input order, on 1 and 2 worker threads', async () => {
    expect(accelerators().batchWorkers).toBeTypeOf('function') // not the inline path twice
    const lines = qwenLines(6000)
    const inline = await runBatches(lines, {workers: 0})
    expect(inline.length).toBeGreaterThan(15)
    expect(inline.reduce((n: number, b) => n + (b as {exact: number}).exact, 0)).toBeGreaterThan(50)
    for (const workers of [1, 2])
      expect(await runBatches(lines, {workers, inlineBelowBytes: 0})).toEqual(inline)
  })
})

describe('the publisher event decoder on a worker', () => {
  it('gives the inline events (columns, tables, key slabs) on 1 and 2 worker threads', async () => {
    const text = readFileSync(join(FIXTURES, 'convert', 'event_publisher.log'), 'utf8')
    const edge = readFileSync(join(FIXTURES, 'convert', 'publisher_edge_cases.log'), 'utf8')
    const lines = [...text.split('\n'), ...edge.split('\n')].filter((l) => l.trim() !== '')
    const run = async (spec: Partial<LineMapperSpec>) => {
      const builder = new LineBatchBuilder(50, 1 << 16)
      lines.forEach((l, i) => builder.addText(i + 1, l.trim()))
      builder.seal()
      const batches = builder.take()
      async function* source() {
        yield* batches
      }
      const config = {defaultInstanceId: 'instance', blockSizes: [['a', 4]], defaultBlockSize: 16}
      const out: unknown[] = []
      for await (const {result} of mapLineBatches<Record<string, unknown>>(
        source(),
        {module: dist('plugins/converters/publisher-log/_lib/events.js'), config, ...spec},
        1 << 30,
      ))
        out.push(
          Object.fromEntries(
            Object.entries(result).map(([k, v]) => [
              k,
              ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v,
            ]),
          ),
        )
      return out
    }
    const inline = await run({workers: 0})
    expect(inline.length).toBeGreaterThan(5)
    expect(Object.keys(inline[0] as object)).toContain('kinds')
    for (const workers of [1, 2]) expect(await run({workers, inlineBelowBytes: 0})).toEqual(inline)
  })
})

const {LineReader} = (await import(
  dist('src/formats/json/line-reader.js')
)) as typeof import('../../src/formats/json/line-reader.js')
const {LineBatchSpares} = (await import(
  dist('src/formats/json/line-batch.js')
)) as typeof import('../../src/formats/json/line-batch.js')

describe('byte batches handed back after their trip (spares)', () => {
  it('are built again in the buffers of batches the consumer is done with, with the same lines and results', async () => {
    const tmp = tempDir()
    try {
      const path = join(tmp.dir, 'rows.jsonl')
      writeFileSync(
        path,
        qwenLines(3000)
          .map((l) => l.text + (l.lineNo % 7 === 0 ? '\n\n' : '\n'))
          .join(''),
      )
      const config = {blockSize: 16, intScale: 1_000_000_000n, floatScale: 1e9}
      const run = async (workers: number, withSpares: boolean) => {
        const spares = withSpares ? new LineBatchSpares() : undefined
        const reader = new LineReader(path, {}, {reuseReadBuffers: true, chunkBytes: 50_000})
        const seen = new Set<ArrayBufferLike>()
        const out: unknown[] = []
        const spec = {module: ROWS, config, workers, inlineBelowBytes: 0}
        for await (const {lines, result} of mapLineBatches<Record<string, ArrayLike<unknown>>>(
          reader.lineBatches({maxLines: 100, spares}),
          spec,
          1 << 30,
          spares,
        )) {
          seen.add(lines.bytes.buffer)
          const texts = Array.from({length: lines.count}, (_, i) => `${lines.lineNos[i]} ${lines.text(i)}`)
          out.push({
            texts,
            kind: Array.from(result.kind as Uint8Array),
            ts: Array.from(result.ts as BigInt64Array),
          })
        }
        return {out, buffers: seen.size}
      }
      const plain = await run(0, false)
      expect(plain.out.length).toBeGreaterThan(25) // 100 lines a batch, and one at each chunk's end
      expect(plain.buffers).toBe(plain.out.length) // a new buffer per batch
      const inline = await run(0, true)
      expect(inline.out).toEqual(plain.out)
      // a handful over and over: the batches one chunk seals are all alive before the first is handed back
      expect(inline.buffers).toBeLessThanOrEqual(6)
      for (const workers of [1, 2]) expect((await run(workers, true)).out).toEqual(plain.out)
    } finally {
      tmp.cleanup()
    }
  })
})
