// `lmt convert -f lmcache_lookup` of a lookup-hash log directory, and the same directory as a direct input of
// `lmt simulate` with lmt's own policies: rotated files in name order, one instance per model with the logged chunk
// size as its block size, opaque hashes as 64-bit keys, bad lines warned (file, line, reason) and counted.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir('lmt-lmcache-lookup-')
afterAll(() => tmp.cleanup())

const DIGEST_A = `0x0123456789abcdef${'1'.repeat(48)}`
const DIGEST_B = `0xfedcba9876543210${'2'.repeat(48)}`

function logDir(): string {
  const dir = join(tmp.dir, 'logs')
  mkdirSync(dir, {recursive: true})
  const ev = (t: number, model: string, chunk: number, seq: number, hashes: unknown[]) =>
    JSON.stringify({
      timestamp: t,
      request_id: 'r',
      model_name: model,
      chunk_size: chunk,
      seq_len: seq,
      dtypes: ['torch.bfloat16'],
      shapes: [[2, 2, chunk, 8]],
      chunk_hashes: hashes,
    })
  // the second file by name is the later one; its name sorts after the first's
  writeFileSync(
    join(dir, 'lookup_hashes_20251009_000001_000001.jsonl'),
    `${ev(1760000002.5, 'm1', 4, 9, [DIGEST_A, '-0x1f'])}\n`,
  )
  writeFileSync(
    join(dir, 'lookup_hashes_20251009_000000_000000.jsonl'),
    `${ev(1760000001.25, 'm1', 4, 9, [DIGEST_A, DIGEST_B])}\n{"timestamp": \n${ev(1760000001.5, 'org/m2', 8, 8, [1])}\n`,
  )
  writeFileSync(join(dir, 'README.txt'), 'not a log file\n')
  return dir
}

describe('lmt convert -f lmcache_lookup', () => {
  it('converts a log directory in rotation order: a get and a write per lookup, per model', async () => {
    const dir = logDir()
    const out = join(tmp.dir, 'out.jsonl')
    const r = await lmt(['convert', '-i', dir, '-f', 'lmcache_lookup', '-o', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace(/([[,] ?)(-?\d+)(?=[,\]])/g, '$1"$2"')) as Record<string, unknown>)
    const gets = rows.filter((x) => x.type === 'get')
    expect(gets.map((g) => [g.instance_id, g.input_len, g.keys])).toEqual([
      ['m1', 9, ['81985529216486895', '-81985529216486896']],
      ['org/m2', 8, ['1']],
      ['m1', 9, ['81985529216486895', '-31']],
    ])
    const doc = r.result as {
      inputs: Array<{path: string; skipped: Record<string, number>}>
      instances: Array<{instance_id?: string; id?: string; block_size?: number; blockSize?: number}>
    }
    expect(doc.inputs.map((i) => i.path.slice(dir.length + 1))).toEqual([
      'lookup_hashes_20251009_000000_000000.jsonl',
      'lookup_hashes_20251009_000001_000001.jsonl',
    ])
    expect(doc.inputs[0].skipped).toEqual({invalid_lookup: 1})
    expect(r.stderr).toMatch(/lookup_hashes_20251009_000000_000000\.jsonl:2: invalid_lookup: malformed JSON/)
    expect(JSON.stringify(doc.instances)).toMatch(/m1[^}]*4|4[^}]*m1/)
    expect(JSON.stringify(doc.instances)).toMatch(/org\/m2[^}]*8|8[^}]*org\/m2/)
  })

  it('refuses a directory without log files, and a directory for a format that has no directory form', async () => {
    const empty = join(tmp.dir, 'empty')
    mkdirSync(empty, {recursive: true})
    const r = await lmt(['convert', '-i', empty, '-f', 'lmcache_lookup', '-o', join(tmp.dir, 'x.jsonl')])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/no input files of this format/)
    const m = await lmt(['convert', '-i', empty, '-f', 'mooncake', '-o', join(tmp.dir, 'y.jsonl')])
    expect(m.exitCode).not.toBe(0)
  })
})

describe('lmt simulate -i DIR -f lmcache_lookup with lmt policies', () => {
  it("converts on the fly and plays lmt's LRU, bytes per token from the logged layout", async () => {
    const dir = logDir()
    const r = await lmt([
      'simulate',
      '-i',
      dir,
      '-f',
      'lmcache_lookup',
      '--policy',
      'lru',
      '--capacity-blocks',
      '100',
      '-o',
      join(tmp.dir, 'sim'),
      '--no-plots',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const json = JSON.stringify(r.result)
    expect(json).toContain('org/m2')
    // m1 looks up [A B] then [A -0x1f]: 1 of 4 blocks hit (4 tokens of 26 in all)
    const lmc = await lmt([
      'simulate',
      '-i',
      dir,
      '-f',
      'lmcache_lookup',
      '--policy',
      'lmcache_lru',
      '--capacity',
      '1',
      '--json',
    ])
    expect(lmc.exitCode, lmc.stderr).toBe(0)
    const doc = lmc.result as Record<string, number>
    expect([doc.total_tokens, doc.total_hit_tokens, doc.skipped_lines]).toEqual([26, 4, 1])
    // the first lookup's layout: 2 × 2 × 4 × 8 bf16 = 256 bytes per 4-token chunk
    expect(doc.kv_bytes_per_chunk).toBe(256)
  })
})
