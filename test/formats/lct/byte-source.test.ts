import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {afterAll, describe, expect, it} from 'vitest'
import {ByteWindow} from '../../../src/formats/lct/byte-source.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-byte-source-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** a seeded generator of 32-bit numbers */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return s
  }
}

/**
 * Random steps over a window: ensure some bytes (now and then more than a file chunk), check them against the
 * source's bytes, consume or discard some; the window must show the source's bytes wherever it stands.
 */
async function walk(w: ByteWindow, data: Buffer, seed: number): Promise<void> {
  const next = rng(seed)
  for (let step = 0; w.offset < data.length; step++) {
    const r = next() % 100
    const want = r < 3 ? (1 << 20) + (next() % (1 << 20)) : r < 20 ? next() % 70_000 : next() % 4_000
    const ok = await w.ensure(want)
    const have = Math.min(want, data.length - w.offset)
    expect(ok).toBe(have === want)
    expect(w.available).toBeGreaterThanOrEqual(have)
    const seen = w.buf.subarray(w.pos, w.pos + have)
    expect(seen.equals(data.subarray(w.offset, w.offset + have))).toBe(true)
    if (next() % 10 === 0) {
      const n = next() % 300_000
      const got = await w.discard(n)
      expect(got).toBe(Math.min(n, data.length - (w.offset - got)))
    } else w.consume(Math.min(w.available, next() % (have + 1)))
    if (step > 20_000) throw new Error('no progress')
  }
  expect(await w.ensure(1)).toBe(false)
  await w.close()
}

describe('ByteWindow', () => {
  // a file's chunks are read into two buffers in turn, a stream's each into its own: the window shows the same bytes
  it('shows the same bytes from a file as from a stream, at random steps', async () => {
    const next = rng(7)
    const data = Buffer.alloc(5_300_000)
    for (let i = 0; i < data.length; i++) data[i] = next() & 0xff
    const file = join(dir, 'bytes.bin')
    writeFileSync(file, data)
    for (let seed = 1; seed <= 6; seed++) {
      await walk(ByteWindow.open(file), data, seed)
      const chunks = []
      for (let at = 0; at < data.length; at += 65_536) chunks.push(data.subarray(at, at + 65_536))
      await walk(ByteWindow.open(Readable.from(chunks)), data, seed)
    }
  })

  it('reads a file shorter than a chunk, and an empty one', async () => {
    for (const size of [0, 1, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 1]) {
      const data = Buffer.alloc(size, 0xab)
      const file = join(dir, `short-${size}.bin`)
      writeFileSync(file, data)
      await walk(ByteWindow.open(file), data, size + 1)
    }
  })
})
