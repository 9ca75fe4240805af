import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {mergeRuns} from '../../src/convert/merge-runs.js'
import {BufferedWriter, RunReader, timestampOfLine} from '../../src/convert/run-files.js'
import {lineTimestamp} from '../../src/convert/fast/line-timestamp.js'
import {mergeStretches} from '../../src/convert/fast/merge-stretches.js'
import {useAccelerators} from '../../src/convert/seams.js'
import {TraceSorter} from '../../src/convert/trace-sorter.js'
import {tempDir} from '../helpers/cli.js'
import {serializeJson} from '../../src/formats/json/serialize.js'

function text(ts: bigint, n: number): string {
  return `{"timestamp_ns": ${ts}, "n": ${n}, "s": "é"}\n`
}
/** A line of the sorter's default store (a buffer per line). */
function line(ts: bigint, n: number): Buffer {
  return Buffer.from(text(ts, n))
}

/** The runs merged into `out`; its text. */
async function mergedText(runs: Awaited<ReturnType<TraceSorter['finish']>>, out: string): Promise<string> {
  const w = new BufferedWriter(out)
  await mergeRuns(runs, w)
  await w.close()
  return readFileSync(out, 'utf8')
}

async function sortThrough(
  items: Array<[bigint, number]>,
  opts: {windowSize: number; chunkChars: number; direct: boolean},
) {
  const tmp = tempDir()
  const out = join(tmp.dir, 'out.jsonl')
  const sorter = new TraceSorter({
    tempDir: tmp.dir,
    name: 'in',
    directPath: opts.direct ? join(tmp.dir, 'direct.jsonl') : undefined,
    ...opts,
  })
  for (const [ts, n] of items) sorter.push(ts, line(ts, n))
  const runs = await sorter.finish()
  const text = await mergedText(runs, out)
  tmp.cleanup()
  return {text, runs: runs.length, spilled: sorter.spilled}
}

function expected(items: Array<[bigint, number]>): string {
  const sorted = items
    .map((x, i) => ({x, i}))
    .sort((a, b) => (a.x[0] < b.x[0] ? -1 : a.x[0] > b.x[0] ? 1 : a.i - b.i))
  return sorted.map(({x}) => text(x[0], x[1])).join('')
}

describe('TraceSorter', () => {
  let seed = 3
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647

  it('streams sorted and locally disordered input through one run', async () => {
    const items: Array<[bigint, number]> = Array.from({length: 3000}, (_, i) => [
      BigInt(i - (i % 7 === 0 ? 3 : 0)),
      i,
    ])
    const r = await sortThrough(items, {windowSize: 16, chunkChars: 1 << 20, direct: true})
    expect(r.spilled).toBe(false)
    expect(r.runs).toBe(1)
    expect(r.text).toBe(expected(items))
  })

  it('keeps a window of late traces (ties in emission order) in one run, in O(log window) per trace', async () => {
    // every other trace half a window late: with a sorted array each late one moved ~30k entries
    const items: Array<[bigint, number]> = []
    for (let i = 0; i < 120_000; i++)
      items.push([BigInt(i % 2 === 0 ? i * 10 : Math.max(0, i * 10 - 300_000)), i])
    for (let i = 0; i < 2_000; i++) items.push([1_200_000n + BigInt(i % 5), 120_000 + i]) // ties, out of order
    const r = await sortThrough(items, {windowSize: 65_536, chunkChars: 1 << 30, direct: true})
    expect(r.spilled).toBe(false)
    expect(r.runs).toBe(1)
    expect(r.text).toBe(expected(items))
  })

  it.each([true, false])(
    'falls back to an external merge sort on shuffled input (direct first run: %s), stably',
    async (direct) => {
      const items: Array<[bigint, number]> = Array.from({length: 5000}, (_, i) => [
        BigInt(Math.floor(rand() * 300)),
        i,
      ])
      const r = await sortThrough(items, {windowSize: 8, chunkChars: 4000, direct})
      expect(r.spilled).toBe(true)
      expect(r.runs).toBeGreaterThan(3)
      expect(r.text).toBe(expected(items))
    },
  )

  it.each([
    ['a few late traces', 0.01, 8],
    ['many late traces', 0.3, 8],
    ['late traces at tied timestamps', 0.05, 2],
  ])(
    'copies the first run a stretch at a time around %s, byte for byte as the plain merge',
    async (_name, lateShare, step) => {
      const tmp = tempDir()
      const sorter = new TraceSorter({
        tempDir: tmp.dir,
        name: 'late',
        directPath: join(tmp.dir, 'direct.jsonl'),
        windowSize: 32,
        chunkChars: 20_000,
      })
      const items: Array<[bigint, number]> = []
      let t = 0
      for (let i = 0; i < 6000; i++) {
        t += Math.floor(rand() * step)
        // late: older than what the window still holds (they force the spill), as a publisher log's final flush
        const ts = BigInt(rand() < lateShare && t > 400 ? t - 300 - Math.floor(rand() * 100) : t)
        items.push([ts, i])
        // some lines longer than the merge's read buffer (64 KiB), which then grows
        const long = i % 997 === 5 ? 'x'.repeat(70_000) : ''
        sorter.push(ts, Buffer.from(text(ts, i).replace('"é"', `"é${long}"`)))
      }
      const runs = await sorter.finish()
      expect(sorter.spilled).toBe(true)
      let copied = 0
      const merged = async (stretches: boolean): Promise<string> => {
        const counted = (): ReturnType<typeof mergeStretches> => {
          const stretch = mergeStretches()
          return (heap, out) => (stretch(heap, out) ? ++copied > 0 : false)
        }
        useAccelerators(stretches ? {mergeStretches: counted} : {})
        const out = join(tmp.dir, `merged-${stretches}.jsonl`)
        const w = new BufferedWriter(out)
        try {
          await mergeRuns(runs, w)
        } finally {
          useAccelerators({})
        }
        await w.close()
        return readFileSync(out, 'utf8')
      }
      const fast = await merged(true)
      const plain = await merged(false)
      expect(fast).toBe(plain)
      expect(plain.split('\n').length).toBe(items.length + 1)
      expect(copied).toBeGreaterThan(0) // the stretches were taken, not only rows one by one
      tmp.cleanup()
    },
  )

  it('BufferedWriter reuses its buffers when the producer drains as it is told (no new buffer per write)', async () => {
    const tmp = tempDir()
    const path = join(tmp.dir, 'big.txt')
    const piece = Buffer.alloc(100_000, 0x61)
    const made = vi.spyOn(Buffer, 'allocUnsafe')
    const w = new BufferedWriter(path)
    for (let i = 0; i < 400; i++) {
      w.range(piece, 0, piece.length)
      if (w.backlogged) await w.drain()
    }
    await w.close()
    const buffers = made.mock.calls.filter(([n]) => n === 1 << 20).length
    made.mockRestore()
    expect(readFileSync(path).length).toBe(400 * piece.length)
    tmp.cleanup()
    // 40 MB written through 1 MiB buffers: the one in use, those in flight, and no more
    expect(buffers).toBeLessThanOrEqual(5)
  })

  it('merges several inputs by (timestamp, input order)', async () => {
    const tmp = tempDir()
    const sorters = [0, 1, 2].map(
      (k) => new TraceSorter({tempDir: tmp.dir, name: `in${k}`, windowSize: 4, chunkChars: 500}),
    )
    const all: Array<[bigint, number]> = []
    for (let k = 0; k < 3; k++)
      for (let i = 0; i < 400; i++) {
        const ts = BigInt(Math.floor(rand() * 50))
        sorters[k].push(ts, line(ts, k * 1000 + i))
        all.push([ts, k * 1000 + i])
      }
    const runs = []
    for (const s of sorters) runs.push(...(await s.finish()))
    expect(await mergedText(runs, join(tmp.dir, 'merged.jsonl'))).toBe(expected(all))
    tmp.cleanup()
  })

  it('reads runs as bytes through buffers smaller than a line, with or without a last newline', () => {
    const tmp = tempDir()
    const lines = Array.from(
      {length: 40},
      (_, i) => `{"timestamp_ns": ${i * 7}, "pad": "${'é'.repeat(i * 3)}"}`,
    )
    const cases = [
      {prefixed: true, text: lines.map((l, i) => `${i * 7}\t${l}\n`).join('')},
      {prefixed: false, text: lines.join('\n')}, // the last line has no newline
    ]
    for (const {prefixed, text} of cases) {
      const path = join(tmp.dir, `run-${prefixed}.txt`)
      writeFileSync(path, text)
      for (const bufferBytes of [1, 5, 64, 1 << 16]) {
        const reader = new RunReader({path, prefixed, count: lines.length}, bufferBytes)
        const got: string[] = []
        for (let row = reader.read(); row; row = reader.read()) {
          expect(row.ts).toBe(BigInt(got.length * 7))
          got.push(row.buf.toString('utf8', row.start, row.end))
        }
        reader.close()
        expect(got).toEqual(lines.map((l, i) => (prefixed || i < lines.length - 1 ? l + '\n' : l)))
      }
    }
    tmp.cleanup()
  })

  it('reads timestamp_ns of unprefixed run lines from their bytes exactly as the parser does', () => {
    let seed = 17
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
    const decoys = [
      '"x"',
      '{"timestamp_ns": 5}',
      '["timestamp_ns", 7]',
      '"timestamp_ns"',
      '1.5e3',
      'null',
      '[[], {}]',
    ]
    for (let i = 0; i < 3000; i++) {
      const ts = [0n, -1n, 7n, 1700000000017999872n, -(10n ** 30n), 10n ** 25n][rand(6)] + BigInt(rand(1000))
      const fields: Array<[string, unknown]> = []
      for (let k = rand(5); k > 0; k--)
        fields.push([`k${rand(9)}${'é'.repeat(rand(2))}`, JSON.parse(decoys[rand(decoys.length)])])
      fields.splice(rand(fields.length + 1), 0, ['timestamp_ns', ts])
      const line = serializeJson(new Map(fields))
      const buf = Buffer.from(line + '\n' + '{"next": 1}\n')
      expect(lineTimestamp(buf, 0, Buffer.byteLength(line))).toBe(timestampOfLine(line))
      expect(buf.toString()).toBe(line + '\n' + '{"next": 1}\n') // the sentinel byte is restored
    }
    // what the scan is unsure of goes to the parser, which decides
    for (const odd of [
      '{"time\\u0073tamp_ns": 3}',
      '{"a": 1, "timestamp_ns": 4}',
      ' {"timestamp_ns" : -0 } ',
    ])
      expect(lineTimestamp(Buffer.from(odd + '\n'), 0, odd.length)).toBe(timestampOfLine(odd))
    expect(() => lineTimestamp(Buffer.from('{"timestamp_ns": 1.5}\n'), 0, 21)).toThrow(/integer timestamp_ns/)
  })
})
