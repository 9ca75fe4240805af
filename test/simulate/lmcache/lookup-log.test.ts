// LMCache lookup-hash logs: the files of a directory in rotation order, the lines as lookups (hash kinds, defaults,
// bad lines with their reason), chunk bytes from logged layouts (bare and `torch.` names) and the 64-bit keys.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {
  chunkBytesOf,
  hashKey64,
  lookupLogFiles,
  parseLookupLine,
  readLookupEvents,
  type LookupEvent,
  type SkippedLine,
} from '../../../src/formats/lmcache/lookup-log.js'
import {tempDir} from '../../helpers/cli.js'

const tmp = tempDir('lmt-lookup-log-')
afterAll(() => tmp.cleanup())

const line = (o: Record<string, unknown>) => JSON.stringify(o).replaceAll('":', '": ').replaceAll(',"', ', "')

describe('lookupLogFiles', () => {
  it("lists a directory's lookup_hashes_*.jsonl files by name (creation order), other files and names ignored", () => {
    const dir = join(tmp.dir, 'rotated')
    mkdirSync(dir)
    for (const n of [
      'lookup_hashes_20251009_090000_000002.jsonl',
      'lookup_hashes_20251009_085959_000001.jsonl',
      'lookup_hashes_20251009_085959_000000.jsonl',
      'notes.txt',
      'lookup_hashes_x.json',
    ])
      writeFileSync(join(dir, n), '')
    mkdirSync(join(dir, 'lookup_hashes_dir.jsonl'))
    expect(lookupLogFiles([dir]).map((f) => f.slice(dir.length + 1))).toEqual([
      'lookup_hashes_20251009_085959_000000.jsonl',
      'lookup_hashes_20251009_085959_000001.jsonl',
      'lookup_hashes_20251009_090000_000002.jsonl',
    ])
    const file = join(dir, 'notes.txt')
    expect(lookupLogFiles([file, dir]).length).toBe(4)
    const empty = join(tmp.dir, 'empty')
    mkdirSync(empty)
    const told: string[] = []
    expect(lookupLogFiles([empty], (d) => told.push(d))).toEqual([])
    expect(told).toEqual([empty])
  })
})

describe('parseLookupLine', () => {
  const base = {
    timestamp: 1760000000.5,
    request_id: 'r1',
    model_name: 'm',
    chunk_size: 256,
    seq_len: 600,
    dtypes: ['torch.bfloat16'],
    shapes: [[2, 32, 256, 1024]],
  }

  it('keeps hex, negative hex and integer hashes as distinct opaque keys, integers without losing digits', () => {
    const ev = parseLookupLine(
      '{"timestamp": 1.5, "model_name": "m", "chunk_size": 1, "seq_len": 4, "chunk_hashes": ["0xab", "-0x1f", 18446744073709551615, -7]}',
      'f',
      3,
    ) as LookupEvent
    expect(ev.hashes).toEqual(['0xab', '-0x1f', '#18446744073709551615', '#-7'])
    expect(ev.lineNo).toBe(3)
    expect(ev.seqLen).toBe(4)
  })

  it('takes the defaults LMCache reads missing fields with', () => {
    const ev = parseLookupLine('{}', 'f', 1) as LookupEvent
    expect([ev.timestamp, ev.chunkSize, ev.seqLen, ev.hashes, ev.model]).toEqual([0, 1, 0, [], undefined])
  })

  it('gives the reason of a line that is not a lookup', () => {
    expect(parseLookupLine('{"timestamp": 1', 'f', 1)).toMatch(/^malformed JSON/)
    expect(parseLookupLine('[1, 2]', 'f', 1)).toBe('not a JSON object')
    expect(parseLookupLine(line({...base, chunk_hashes: 'ab'}), 'f', 1)).toBe('chunk_hashes is not a list')
    expect(parseLookupLine(line({...base, chunk_hashes: [1.5]}), 'f', 1)).toMatch(
      /not a string or an integer/,
    )
    expect(parseLookupLine(line({...base, seq_len: -1, chunk_hashes: []}), 'f', 1)).toMatch(/seq_len/)
    expect(parseLookupLine(line({...base, chunk_size: 0, chunk_hashes: []}), 'f', 1)).toMatch(/chunk_size/)
    expect(parseLookupLine(line({...base, timestamp: 'now', chunk_hashes: []}), 'f', 1)).toMatch(/timestamp/)
  })
})

describe('chunkBytesOf', () => {
  it('sums shape products × element size, bare or torch.-prefixed names (uint8 of vLLM fp8 caches too)', () => {
    // Llama-3.1-8B, chunk 256, bf16: 2 × 32 × 256 × 1024 × 2
    expect(chunkBytesOf({dtypes: ['bfloat16'], shapes: [[2, 32, 256, 1024]]})).toEqual({
      bytes: 33554432,
      unknown: [],
    })
    expect(chunkBytesOf({dtypes: ['torch.bfloat16'], shapes: [[2, 32, 256, 1024]]}).bytes).toBe(33554432)
    // DeepSeek-V3 MLA fp8, chunk 512: 61 × 512 × 576 × 1
    expect(chunkBytesOf({dtypes: ['float8_e4m3fn'], shapes: [[61, 512, 576]]}).bytes).toBe(17989632)
    expect(chunkBytesOf({dtypes: ['torch.uint8'], shapes: [[61, 512, 576]]}).bytes).toBe(17989632)
    expect(chunkBytesOf({dtypes: ['torch.float16', 'torch.float32'], shapes: [[2, 3], [4]]}).bytes).toBe(
      2 * 3 * 2 + 4 * 4,
    )
    expect(chunkBytesOf({dtypes: ['torch.complex32'], shapes: [[4]]})).toEqual({
      bytes: 0,
      unknown: ['torch.complex32'],
    })
    expect(chunkBytesOf({dtypes: [], shapes: []}).bytes).toBe(0)
  })
})

describe('hashKey64', () => {
  it('keeps integers and short hex in int64 as they are, a 32-byte digest by its first 64 bits', () => {
    expect(hashKey64('#-7')).toBe(-7n)
    expect(hashKey64('#18446744073709551615')).toBe(-1n)
    expect(hashKey64('0x1f')).toBe(31n)
    expect(hashKey64('-0x1f')).toBe(-31n)
    expect(hashKey64(`0x${'00'.repeat(31)}05`)).toBe(0n) // first 8 bytes are zero
    expect(hashKey64(`0xffffffffffffffff${'0'.repeat(48)}`)).toBe(-1n)
    expect(hashKey64('0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef')).toBe(
      0x0123456789abcdefn,
    )
    expect(hashKey64('not hex')).toBe(hashKey64('not hex'))
    expect(hashKey64('not hex')).not.toBe(hashKey64('not hey'))
  })
})

describe('readLookupEvents', () => {
  it('reads files in order, skips blank lines silently and bad lines with file, line and reason, filters a model', async () => {
    const dir = join(tmp.dir, 'read')
    mkdirSync(dir)
    const a = join(dir, 'lookup_hashes_20251009_000000_000000.jsonl')
    const b = join(dir, 'lookup_hashes_20251009_000001_000001.jsonl')
    writeFileSync(a, `${line({timestamp: 1, model_name: 'x', seq_len: 2, chunk_hashes: ['0x1']})}\n\n{oops\n`)
    writeFileSync(
      b,
      `${line({timestamp: 2, model_name: 'y', seq_len: 2, chunk_hashes: ['0x2']})}\r\n${line({timestamp: 3, model_name: 'x', seq_len: 2, chunk_hashes: ['0x3']})}\n`,
    )
    const skipped: SkippedLine[] = []
    const got: string[] = []
    for await (const batch of readLookupEvents(lookupLogFiles([dir]), {
      model: 'x',
      onSkip: (s) => skipped.push(s),
    }))
      for (const ev of batch) got.push(`${ev.file.slice(dir.length + 1)}:${ev.lineNo}:${ev.hashes[0]}`)
    expect(got).toEqual([
      'lookup_hashes_20251009_000000_000000.jsonl:1:0x1',
      'lookup_hashes_20251009_000001_000001.jsonl:2:0x3',
    ])
    expect(skipped.map((s) => [s.file, s.lineNo])).toEqual([[a, 3]])
    expect(skipped[0].reason).toMatch(/^malformed JSON/)
  })
})
