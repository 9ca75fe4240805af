import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseJson} from '../../../src/formats/json/parse.js'
import {chunkHashOf, keyOfObjectKey} from '../../../src/convert/lct-bridge.js'
import {parseKvLayout} from '../../../src/convert/kv-layout.js'
import {ObjectKey} from '../../../src/formats/lct/values.js'
import {FIXTURES, lmt, ROOT, spawnLmt, tempDir} from '../../helpers/cli.js'
import {itSlow} from '../../helpers/slow.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const head = join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl')
const conv = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
let lctPath = ''

const rows = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => parseJson(l) as Map<string, unknown>)

beforeAll(async () => {
  lctPath = join(tmp.dir, 'conv.lct')
  const r = await lmt([
    'convert',
    '-q',
    '-i',
    conv,
    '-f',
    'mooncake',
    '--mode',
    'lct',
    '-o',
    lctPath,
    '--bytes-per-block',
    '65536',
    '--l1-size-gb',
    '4',
    '--eviction-policy',
    'LRU',
  ])
  expect(r.exitCode).toBe(0)
})

describe('Get+Write JSONL → .lct → Get+Write JSONL', () => {
  it('keeps keys, types and order', async () => {
    const jsonl = join(tmp.dir, 'head.jsonl')
    expect((await lmt(['convert', '-q', '-i', head, '-f', 'mooncake', '-o', jsonl])).exitCode).toBe(0)
    const lct = join(tmp.dir, 'head.lct')
    expect(
      (
        await lmt([
          'convert',
          '-q',
          '-i',
          head,
          '-f',
          'mooncake',
          '--mode',
          'lct',
          '-o',
          lct,
          '--kv-layout',
          '2x36x512x8x128:bfloat16',
          '--t-wall-start',
          '1750000000',
        ])
      ).exitCode,
    ).toBe(0)
    const back = join(tmp.dir, 'back.jsonl')
    const r = await lmt(['convert', '-i', lct, '-f', 'lmcache_lct', '-o', back, '--json'])
    expect(r.exitCode).toBe(0)
    const a = rows(jsonl)
    const b = rows(back)
    expect(b.map((x) => [x.get('type'), x.get('keys')])).toEqual(a.map((x) => [x.get('type'), x.get('keys')]))
    expect(b[0].get('instance_id')).toBe('instance')
    expect(b[0].get('input_len')).toBe((a[0].get('keys') as unknown[]).length * 256)
    // per get: enter, exit and finish_read_prefetched; per write: reserve_write
    expect(JSON.parse(r.stdout).inputs[0].notes).toEqual({unmapped_records: 800})
  })

  it('the header digest is the one a replay with the same storage flags computes', async () => {
    const r = await lmt(['replay', lctPath, '--l1-size-gb', '4', '--eviction-policy', 'LRU', '--no-csv'])
    expect(r.stdout).toMatch(/Config digest: +match \(/)
  })

  itSlow(
    'the Mooncake trace replays with 0 failed records and a prefix-hit rate that rises with --l1-size-gb',
    async () => {
      const rates: number[] = []
      for (const size of ['0.5', '2', '16']) {
        const out = join(tmp.dir, `r${size}`)
        const r = await lmt([
          'replay',
          lctPath,
          '--l1-size-gb',
          size,
          '--eviction-policy',
          'LRU',
          '--no-csv',
          '-q',
          '--json',
          '--output-dir',
          out,
        ])
        expect(r.exitCode).toBe(0)
        const m = JSON.parse(readFileSync(join(out, 'trace_replay_summary.json'), 'utf8')).model
        rates.push(m.l1.prefix_hit_keys / (m.l1.prefix_hit_keys + m.l1.prefix_miss_keys))
      }
      expect(rates[0]).toBeLessThan(rates[1])
      expect(rates[1]).toBeLessThan(rates[2])
      expect(rates[2]).toBeCloseTo(105592 / 276491, 6) // every written block stays: the infinite-capacity prefix ceiling
    },
  )

  it('simulate gives the same block hit rates on a JSONL and on its .lct round trip', async () => {
    const jsonl = join(tmp.dir, 'conv.jsonl')
    expect((await lmt(['convert', '-q', '-i', conv, '-f', 'mooncake', '-o', jsonl])).exitCode).toBe(0)
    const back = join(tmp.dir, 'conv-back.jsonl')
    expect((await lmt(['convert', '-q', '-i', lctPath, '-f', 'lmcache_lct', '-o', back])).exitCode).toBe(0)
    for (const cap of ['-1', '17090']) {
      const a = await lmt([
        'simulate',
        '--trace',
        jsonl,
        '--block-size',
        '512',
        '--capacity-blocks',
        cap,
        '--no-plots',
        '--json',
        '-o',
        join(tmp.dir, `sa${cap}`),
      ])
      const b = await lmt([
        'simulate',
        '--trace',
        back,
        '--block-size',
        '256',
        '--capacity-blocks',
        cap,
        '--no-plots',
        '--json',
        '-o',
        join(tmp.dir, `sb${cap}`),
      ])
      const ia = JSON.parse(a.stdout).instances[0]
      const ib = JSON.parse(b.stdout).instances[0]
      expect([ib.read_blocks, ib.hit_blocks, ib.block_hit_rate]).toEqual([
        ia.read_blocks,
        ia.hit_blocks,
        ia.block_hit_rate,
      ])
    }
  })
})

describe('replay --verbose into a pipe closed early (`| head`)', () => {
  it('stops printing, finishes the replay and writes its files, exit 0', async () => {
    const out = join(tmp.dir, 'epipe')
    const child = spawnLmt([
      'replay',
      lctPath,
      '--config-from-header',
      '--verbose',
      '-q',
      '--output-dir',
      out,
    ])
    let first = ''
    child.stdout.once('data', (d: Buffer) => {
      first = d.toString()
      child.stdout.destroy() // the reader goes away after its first chunk, as `head` does
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(first).toMatch(/^ {2}\[1\/\d+\] {2}OK /)
    expect(code).toBe(0)
    expect(existsSync(join(out, 'trace_replay_ops.csv'))).toBe(true)
  }, 60_000)
})

describe('key mapping', () => {
  it('chunk hashes are the key bytes, big-endian two’s complement; other hashes use SHA-256 of the identity', () => {
    expect(Buffer.from(chunkHashOf(-1n)).toString('hex')).toBe('ffffffffffffffff')
    expect(keyOfObjectKey(new ObjectKey(chunkHashOf(-7046029254386353131n), 'm', 0))).toBe(
      -7046029254386353131n,
    )
    const short = new ObjectKey(Uint8Array.from([0, 0, 0, 1]), 'test', 0)
    expect(keyOfObjectKey(short)).toBe(
      keyOfObjectKey(new ObjectKey(Uint8Array.from([0, 0, 0, 1]), 'test', 0)),
    )
    expect(keyOfObjectKey(short)).not.toBe(
      keyOfObjectKey(new ObjectKey(Uint8Array.from([0, 0, 0, 2]), 'test', 0)),
    )
  })

  it('parses --kv-layout shorthand and JSON', () => {
    expect(parseKvLayout('2x36x512x8x128:bfloat16').rawSizeBytes()).toBe(2 * 36 * 512 * 8 * 128 * 2)
    expect(parseKvLayout('{"shapes": [[4, 4]], "dtypes": ["torch.float32"]}').rawSizeBytes()).toBe(64)
    expect(() => parseKvLayout('2x0:bfloat16')).toThrow(/positive integer/)
    expect(() => parseKvLayout('2x2:nope')).toThrow(/unknown dtype/)
  })
})
