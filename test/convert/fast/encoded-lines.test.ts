// The encoded-lines store (lines in shared slabs, records written straight to bytes or held until written) against
// its plain twin, a buffer per line: the same traces through the same sorter give the same bytes.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {encodedLines} from '../../../src/convert/fast/encoded-lines.js'
import {LineArena} from '../../../src/convert/fast/line-arena.js'
import {deferredRecordSize} from '../../../src/convert/fast/record-encoder.js'
import {bufferPerLine, type LineStore} from '../../../src/convert/lines.js'
import {mergeRuns} from '../../../src/convert/merge-runs.js'
import {GetRecord, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES, WriteRecord} from '../../../src/convert/records.js'
import {BufferedWriter} from '../../../src/convert/run-files.js'
import {TraceSorter} from '../../../src/convert/trace-sorter.js'
import {serializeJson} from '../../../src/formats/json/serialize.js'
import {KeyList} from '../../../src/hash/key-list.js'
import {tempDir} from '../../helpers/cli.js'

type Trace = {ts: bigint; text: string} | {ts: bigint; record: GetRecord | WriteRecord}

/** Seeded traces: text lines (long ones, astral and lone surrogates) and records of every shape the encoder meets. */
function traces(count: number, disorder: number, seed: number): Trace[] {
  const rand = (k: number) => (seed = (seed * 48271) % 2147483647) % k
  const tails: unknown[][] = [
    ['prefix_match', NO_BLOCK_MASK, 0, NO_LOCATION_SPEC_NAMES],
    ['prefix_match', 1, -1, []],
    ['x"é\u0001', [true, false], 1.5, ['loc', null]],
    [null, -0, Number.NaN, 12345678901234567890n],
  ]
  const ids = ['inst', 'inst é', '日本"\\', 'i\ud83d\ude00']
  const out: Trace[] = []
  const base = seed % 2 === 0 ? 1700000000017999872n : -5000n // nanoseconds since 1970, or below zero
  for (let i = 0; i < count; i++) {
    const ts = base + BigInt(i * 10 + rand(disorder + 1))
    const kind = rand(6)
    if (kind === 0) {
      const pad = i % 61 === 0 ? 'ü'.repeat(900) : i % 53 === 0 ? '\ud800\udfff\ud800' : 'é'
      out.push({ts, text: `{"timestamp_ns": ${ts}, "n": ${i}, "s": "${pad}"}`})
      continue
    }
    const ids0 = Array.from({length: i % 89 === 0 ? 300 : 1 + rand(6)}, () => rand(1000))
    const keys = rand(4) === 0 ? ids0.map((k) => BigInt(k) - 500n) : KeyList.prefixHash(ids0)
    const id = ids[rand(ids.length)]
    if (kind === 1) out.push({ts, record: new WriteRecord(id, ts, keys)})
    else {
      const [qt, bm, sw, ls] = tails[rand(3) === 0 ? rand(tails.length) : 0]
      out.push({ts, record: new GetRecord(id, ts, keys, i % 7 === 0 ? 10n ** 22n : 16 * i, qt, bm, sw, ls)})
    }
  }
  return out
}

/** The output of `items` sorted through a sorter on `lines`. */
async function sorted(
  items: Trace[],
  lines: LineStore,
  opts: {windowSize: number; chunkChars: number; direct: boolean},
): Promise<{bytes: Buffer; spilled: boolean}> {
  const tmp = tempDir()
  try {
    const direct = join(tmp.dir, 'direct.jsonl')
    const sorter = new TraceSorter({
      tempDir: tmp.dir,
      name: 'in',
      directPath: opts.direct ? direct : undefined,
      windowSize: opts.windowSize,
      chunkChars: opts.chunkChars,
      lines,
    })
    for (const t of items) sorter.push(t.ts, 'text' in t ? lines.text(t.text) : lines.record(t.record))
    const runs = await sorter.finish()
    const out = join(tmp.dir, 'out.jsonl')
    const w = new BufferedWriter(out)
    await mergeRuns(runs, w)
    await w.close()
    return {bytes: readFileSync(out), spilled: sorter.spilled}
  } finally {
    tmp.cleanup()
  }
}

describe('encoded lines against a buffer per line', () => {
  it.each([
    ['time-sorted traces, direct first run', 0, 16, 1 << 20, true],
    ['disorder the window absorbs', 40, 64, 1 << 20, true],
    ['disorder that spills, direct first run', 400, 4, 3000, true],
    ['disorder that spills', 400, 4, 3000, false],
  ])(
    '%s: the same bytes, as the serializer writes them',
    async (_name, disorder, windowSize, chunkChars, direct) => {
      const items = traces(2500, disorder, 11 + disorder)
      const opts = {windowSize, chunkChars, direct}
      const plain = await sorted(items, bufferPerLine, opts)
      // what the sorted traces are, written by the serializer (stable: ties keep emission order)
      const want = items
        .map((t, i) => ({t, i}))
        .sort((a, b) => (a.t.ts < b.t.ts ? -1 : a.t.ts > b.t.ts ? 1 : a.i - b.i))
        .map(({t}) => ('text' in t ? t.text : serializeJson(t.record)) + '\n')
        .join('')
      expect(plain.bytes.equals(Buffer.from(want))).toBe(true)
      expect(plain.spilled).toBe(disorder > 100)
      for (const atOnce of [false, true]) {
        // small slabs: lines cross slab ends, and records are longer than a slab
        const fast = await sorted(items, encodedLines(atOnce, new LineArena(512)), opts)
        expect(fast.spilled).toBe(plain.spilled)
        expect(fast.bytes.equals(plain.bytes), `recordsAtOnce: ${atOnce}`).toBe(true)
      }
    },
  )

  it('holds a record unencoded only when its line costs the same later (KeyList keys, a default get tail)', () => {
    const keys = KeyList.prefixHash([1, 2])
    const get = (mask: unknown) =>
      new GetRecord('i', 1n, keys, 32, 'prefix_match', mask, 0, NO_LOCATION_SPEC_NAMES)
    const write = new WriteRecord('i', 5n, keys)
    expect(deferredRecordSize(get(NO_BLOCK_MASK))).toBe(keys.toJsonBytes().length + 2 + 200)
    const later = encodedLines(false)
    expect(later.record(write)).toBe(write)
    expect(later.size(write)).toBe(deferredRecordSize(write))
    expect(later.record(get(NO_BLOCK_MASK))).toBeInstanceOf(GetRecord)
    // an array of keys, or a tail of arrays, is encoded as it comes
    expect(later.record(get([true, false]))).not.toBeInstanceOf(GetRecord)
    expect(later.record(new WriteRecord('i', 1n, [1n, 2n]))).not.toBeInstanceOf(WriteRecord)
    // a converter that asks for it (encodesRecordsAtOnce) has every record encoded as it comes
    expect(encodedLines(true).record(write)).not.toBeInstanceOf(WriteRecord)
  })

  it.each([false, true])(
    'releases each line once the sorter wrote it, so the arena reuses its slabs (shuffled: %s)',
    async (shuffled) => {
      const arena = new LineArena(512)
      const released = vi.spyOn(arena, 'release')
      let seed = 5
      const items: Trace[] = Array.from({length: 3000}, (_, i) => {
        const ts = shuffled ? BigInt((seed = (seed * 48271) % 2147483647) % 500) : BigInt(i)
        return {ts, text: `{"timestamp_ns": ${ts}, "n": ${i}, "s": "é"}`}
      })
      const made = vi.spyOn(Buffer, 'allocUnsafe')
      const fast = await sorted(items, encodedLines(false, arena), {
        windowSize: 16,
        chunkChars: 3000,
        direct: true,
      })
      const slabs = made.mock.calls.filter(([n]) => n === 512).length
      made.mockRestore()
      const plain = await sorted(items, bufferPerLine, {windowSize: 16, chunkChars: 3000, direct: true})
      expect(fast.bytes.equals(plain.bytes)).toBe(true)
      expect(released).toHaveBeenCalledTimes(items.length)
      expect(new Set(released.mock.calls.map(([l]) => l)).size).toBe(items.length)
      // ~3000 lines of ~50 bytes fill ~300 slabs of 512 bytes: reused ones are not made again
      expect(slabs).toBeLessThan(shuffled ? 120 : 20)
    },
  )
})
