import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {decodeArgs, decodeArgsInPlace, encodeArgs} from '../../src/lct/codecs.js'
import {openTrace} from '../../src/lct/reader.js'
import {readable} from '../../src/lct/readable.js'
import {InterningReader, ObjectKeyInterner, STAND_IN_KEY} from '../../src/lct/key-intern.js'
import {MsgpackWriter} from '../../src/lct/msgpack.js'
import {MemoryLayoutDesc, ObjectKey} from '../../src/lct/values.js'
import type {LctRecord} from '../../src/lct/types.js'
import {header, record} from './helpers.js'
import {decodeRecordBody} from '../../src/lct/frame-decode.js'
import {type TapeBatch, TapeWriter} from '../../src/lct/record-tape.js'

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

describe('the walk of a reading thread', () => {
  /** `[k, k]` then `k` alone, as msgpack */
  const wire = (k: ObjectKey) => {
    const w = new MsgpackWriter()
    w.value(encodeArgs({a: [k, k], b: k}))
    return Buffer.from(w.bytes())
  }
  const sink = () => {
    const seen: Array<[number, unknown]> = []
    return {
      seen,
      interned: (_s: number, _e: number, id: number, v: unknown) => seen.push([id, v]),
      wrapperLeft() {},
    }
  }

  it('interns a key in the usual layout as the stand-in (no key object), and gives any other read the key', () => {
    for (const k of [key(1), key(2, LONG)]) {
      const bytes = wire(k)
      const interner = new ObjectKeyInterner()
      const spans = sink()
      const r = new InterningReader(bytes, 0, bytes.length, interner, spans)
      r.mapHeader()
      r.mapKey()
      r.walk() // [k, k]: one value, met twice
      expect(spans.seen).toEqual([
        [0, STAND_IN_KEY],
        [0, STAND_IN_KEY],
      ])
      r.mapKey()
      const v = r.value() as unknown as ObjectKey // not a walk: the key itself, though its bytes are cached
      expect(v).not.toBe(STAND_IN_KEY)
      expect(v).toBeInstanceOf(ObjectKey)
      expect(v.id).toBe(k.id)
    }
  })
})

describe('runs of keys remembered in order (the fast lane of a walk)', () => {
  /** a seeded generator in [0, 1) */
  const rng = (seed: number) => {
    let s = seed >>> 0
    return () => {
      s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
      return s / 2 ** 32
    }
  }

  /**
   * Record frames shaped like an engine's: lists of a shared prompt's keys (whole or cut short) and keys of their
   * own, repeated by later records; now and then a repeated key, a layout or a nested list inside a list, and a
   * frame that fails with a prompt key as its t_mono (read outside a walk, so its bytes are cached twice).
   */
  function frames(seed: number, requests: number): Buffer[] {
    const rand = rng(seed)
    let next = 0
    const fresh = () => {
      const i = next++
      const h = Uint8Array.from([i >>> 16, (i >>> 8) & 0xff, i & 0xff, Math.floor(rand() * 256)])
      return new ObjectKey(h, rand() < 0.1 ? LONG : 'Qwen/Qwen3-8B', 0, 0, '')
    }
    const prompts = Array.from({length: 12}, () => Array.from({length: 1 + Math.floor(rand() * 20)}, fresh))
    const out: Buffer[] = []
    for (let r = 0; r < requests; r++) {
      const prompt = prompts[Math.floor(rand() * rand() * prompts.length)]
      const cut = rand() < 0.2 ? Math.floor(rand() * prompt.length) : prompt.length
      const keys: unknown[] = [
        ...prompt.slice(0, cut),
        ...Array.from({length: Math.floor(rand() * 30)}, fresh),
      ]
      const odd = rand()
      if (odd < 0.05 && keys.length > 1) keys.splice(1, 0, keys[0])
      else if (odd < 0.08) keys.splice(Math.floor(rand() * keys.length), 0, layout)
      else if (odd < 0.1 && keys.length > 2) keys.splice(0, 2, [keys[0], keys[1]])
      const args = encodeArgs({keys, layout_desc: layout})
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) out.push(record('q', args))
      if (rand() < 0.03) out.push(record('q', {keys: encodeArgs({k: prompt[0]}).k}, undefined))
      if (rand() < 0.03) out.push(Buffer.concat([Buffer.alloc(4), keyTimeBody(prompt[0])]))
    }
    return out
  }

  /** a record body whose t_mono is a key (malformed; its key is read by value(), not walked) */
  function keyTimeBody(k: ObjectKey): Buffer {
    const w = new MsgpackWriter()
    w.mapHeader(2)
    w.str('t_mono')
    w.value(encodeArgs({k}).k)
    w.str('args')
    w.value({})
    return Buffer.from(w.bytes())
  }

  /** the batches the reading side of a threaded replay would hand over, with or without the lane */
  function batches(
    frameList: Buffer[],
    matchRuns: boolean,
  ): {batches: TapeBatch[]; runs: number; liveFrom: number} {
    const interner = new ObjectKeyInterner(matchRuns)
    let runs = 0
    const match = interner.matchRun.bind(interner)
    interner.matchRun = (...a) => {
      const r = match(...a)
      if (r > 0) runs++
      return r
    }
    const writer = new TapeWriter()
    const out: TapeBatch[] = []
    frameList.forEach((f, index) => {
      const body = f.subarray(4)
      writer.beginRecord()
      writer.setSource(body)
      try {
        writer.addRecord(decodeRecordBody(body, 0, body.length, interner, writer), index, body.length, index)
      } catch (err) {
        if (!(err instanceof Error)) throw err
      }
      if (writer.count >= 500) out.push(writer.take(interner.liveFrom))
    })
    out.push(writer.take(interner.liveFrom))
    return {batches: out, runs, liveFrom: interner.liveFrom}
  }

  /** Whether two batches are the same (typed arrays as bytes: far quicker than element by element). */
  function expectSame(a: TapeBatch, b: TapeBatch): void {
    const bytes = (x: Float64Array | Int32Array | Uint8Array) =>
      Buffer.from(x.buffer, x.byteOffset, x.byteLength)
    for (const k of ['nums', 'ints', 'bytes', 'defs'] as const)
      expect(bytes(a[k]).equals(bytes(b[k]))).toBe(true)
    const rest = (x: TapeBatch) => ({...x, nums: 0, ints: 0, bytes: 0, defs: 0})
    expect(rest(a)).toEqual(rest(b))
  }

  it('hands over the same batches as a lookup per key, across generations of the cache', () => {
    for (const [seed, requests] of [
      [1, 300],
      [2, 300],
      [3, 5000],
    ]) {
      const list = frames(seed, requests)
      const fast = batches(list, true)
      const plain = batches(list, false)
      expect(fast.batches.length).toBe(plain.batches.length)
      fast.batches.forEach((b, i) => expectSame(b, plain.batches[i]))
      expect(fast.runs).toBeGreaterThan(requests / 10)
      expect(plain.runs).toBe(0)
      if (requests > 1000) expect(fast.liveFrom).toBeGreaterThan(0) // the cache started afresh
    }
  })
})
