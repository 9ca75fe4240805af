import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import type {InputLine} from '../../src/jsonl/line-reader.js'
import type {LineMapperSpec, MappedLine} from '../../src/convert/line-mapper.js'
import {ROOT} from '../helpers/cli.js'

// the worker path needs the built files (a worker runs JavaScript): `npm test` builds first
const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href
const {mapLines} = (await import(
  dist('src/convert/line-pool.js')
)) as typeof import('../../src/convert/line-pool.js')
const ROWS = dist('plugins/converters/_shared/hash-id-rows.js')

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
})
