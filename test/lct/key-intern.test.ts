import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {decodeArgs, decodeArgsInPlace, encodeArgs} from '../../src/lct/codecs.js'
import {openTrace} from '../../src/lct/reader.js'
import {readable} from '../../src/lct/readable.js'
import {MemoryLayoutDesc, ObjectKey} from '../../src/lct/values.js'
import type {LctRecord} from '../../src/lct/types.js'
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
  const r = await openTrace(Readable.from([trace()]), {internObjectKeys: intern})
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
