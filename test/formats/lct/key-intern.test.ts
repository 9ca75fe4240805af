import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {decodeArgs, decodeArgsInPlace, encodeArgs} from '../../../src/formats/lct/codecs.js'
import {openTrace} from '../../../src/formats/lct/reader.js'
import {fastDecoding} from '../../../src/formats/lct/fast/index.js'
import {readable} from '../../../src/formats/lct/readable.js'
import {ObjectKeyInterner} from '../../../src/formats/lct/fast/key-intern.js'
import {MemoryLayoutDesc, ObjectKey} from '../../../src/formats/lct/values.js'
import type {LctRecord} from '../../../src/formats/lct/types.js'
import {header, record} from './helpers.js'

const key = (i: number, model = 'm') => new ObjectKey(Uint8Array.from([i >> 8, i & 0xff]), model, 0, 0, '')
// wrappers of at least 64 bytes are found by the hash of their head, shorter ones by the hash of all their bytes
const LONG = 'Qwen/Qwen3-8B-Instruct-with-a-name-long-enough'
const layout = new MemoryLayoutDesc([[2, 16, 8]], ['torch.float16'])

/** Frames whose args repeat keys and layouts, plus a wrapper that does not decode. */
function trace(): Buffer {
  const frames = [header()]
  for (let i = 0; i < 300; i++)
    frames.push(
      record('q', encodeArgs({keys: [key(i % 40), key((i * 7) % 40, LONG)], layout_desc: layout, i})),
    )
  frames.push(record('q', {keys: [{__t__: 'ObjectKey', v: {chunk_hash: 5}}]})) // bad payload
  return Buffer.concat(frames)
}

async function read(intern: boolean): Promise<LctRecord[]> {
  const r = await openTrace(Readable.from([trace()]), intern ? {decoding: fastDecoding} : {})
  const out: LctRecord[] = []
  for await (const rec of r) out.push(rec)
  return out
}

describe('interning ObjectKey and MemoryLayoutDesc wrappers', () => {
  it('decodes exactly as without interning, and reuses one instance per distinct byte sequence', async () => {
    const plain = await read(false)
    const interned = await read(true)
    expect(interned).toHaveLength(301)
    for (let i = 0; i < 300; i++) {
      const a = decodeArgs(plain[i].args)
      const b = decodeArgsInPlace(interned[i].args)
      expect(readable(b)).toEqual(readable(a))
    }
    const keysOf = (r: LctRecord) => r.args.keys as unknown as ObjectKey[]
    expect(keysOf(interned[0])[0]).toBe(keysOf(interned[40])[0]) // same bytes, same instance
    expect(keysOf(interned[0])[0]).not.toBe(keysOf(interned[1])[0])
    expect(keysOf(interned[0])[1]).toBe(keysOf(interned[40])[1]) // a long wrapper: same bytes, same instance
    expect(keysOf(interned[0])[1].modelName).toBe(LONG)
    expect(interned[0].args.layout_desc).toBe(interned[1].args.layout_desc)
    expect(interned[0].args.layout_desc).toBeInstanceOf(MemoryLayoutDesc)
    // a wrapper whose payload does not decode stays raw, so decoding the args reports it as before
    expect(() => decodeArgs(plain[300].args)).toThrow(/ObjectKey/)
    expect(() => decodeArgsInPlace(interned[300].args)).toThrow(/ObjectKey/)
  })
})

describe('a key list read again', () => {
  it('gives the same values in a fresh array, and only for a list of interned values', async () => {
    const keys = [key(1), key(2, LONG), key(3)]
    const frames = [header()]
    for (let i = 0; i < 4; i++) frames.push(record('q', encodeArgs({keys, mixed: [key(1), i], i})))
    const bytes = Buffer.concat(frames)
    const read = async (decoding?: typeof fastDecoding) => {
      const out: LctRecord[] = []
      for await (const r of await openTrace(Readable.from([bytes]), decoding ? {decoding} : {})) out.push(r)
      return out
    }
    const plain = await read()
    const interned = await read(fastDecoding)
    for (let i = 0; i < 4; i++)
      expect(readable(decodeArgsInPlace(interned[i].args))).toEqual(readable(decodeArgs(plain[i].args)))
    const list = (r: LctRecord, k: string) => r.args[k] as unknown as unknown[]
    expect(list(interned[1], 'keys')).not.toBe(list(interned[0], 'keys')) // each record owns its arrays
    expect(list(interned[1], 'keys')[1]).toBe(list(interned[0], 'keys')[1])
    expect(list(interned[3], 'mixed')[1]).toBe(3) // a list holding other values is read anew
  })
})

describe('ObjectKeyInterner table', () => {
  const bytesOf = (i: number, n = 24) => {
    const b = Buffer.alloc(n, 0x61)
    b.writeUInt32BE(i, n - 4)
    return b
  }
  const valueOf = (i: number) => new ObjectKey(Uint8Array.from([i & 0xff]), 'm', 0, 0, '')

  it('finds entries by hash and bytes, tells apart equal hashes, and respects the limit', () => {
    const t = new ObjectKeyInterner()
    const a = bytesOf(1)
    const b = bytesOf(2)
    const long = bytesOf(3, 100)
    const va = valueOf(1)
    const vb = valueOf(2)
    const vl = valueOf(3)
    t.remember(a, 0, a.length, 42, va)
    t.remember(b, 0, b.length, 42, vb) // the same hash: probed past the first entry
    t.remember(long, 0, long.length, 7, vl)
    const buf = Buffer.concat([Buffer.from([9, 9]), b, Buffer.from([1])])
    expect(t.lookup(buf, 2, buf.length, 42)).toBe(vb)
    expect(t.found).toBe(b.length)
    expect(t.lookup(a, 0, a.length, 42)).toBe(va)
    expect(t.lookup(a, 0, a.length, 43)).toBeUndefined()
    expect(t.lookup(buf, 2, buf.length - 2, 42)).toBeUndefined() // the entry would run past the limit
    const other = Buffer.from(long)
    other[50] ^= 1 // differs after the hashed head: memcmp tells
    expect(t.lookup(long, 0, long.length, 7)).toBe(vl)
    expect(t.lookup(other, 0, other.length, 7)).toBeUndefined()
    const huge = Buffer.concat([Buffer.from([1, 2, 3]), bytesOf(4, 300)]) // copied by set(), not the byte loop
    const vh = valueOf(4)
    t.remember(huge, 3, huge.length, 9, vh)
    expect(t.lookup(bytesOf(4, 300), 0, 300, 9)).toBe(vh)
    expect(t.found).toBe(300)
  })

  it('starts afresh when full, so its memory is bounded', () => {
    const t = new ObjectKeyInterner()
    const n = (1 << 16) + 10
    for (let i = 0; i < n; i++) t.remember(bytesOf(i), 0, 24, Math.imul(i, 0x9e3779b1), valueOf(i))
    const last = n - 1
    expect(
      (t.lookup(bytesOf(last), 0, 24, Math.imul(last, 0x9e3779b1)) as ObjectKey | undefined)?.chunkHash,
    ).toEqual(Uint8Array.from([last & 0xff]))
    expect(t.lookup(bytesOf(5), 0, 24, Math.imul(5, 0x9e3779b1))).toBeUndefined() // dropped with the first generation
  })
})
