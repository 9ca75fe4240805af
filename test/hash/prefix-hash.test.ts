import {describe, expect, it} from 'vitest'
import {KeyList} from '../../src/hash/key-list.js'
import {hashInt64, prefixHash, tokensToBlockIds} from '../../src/hash/prefix-hash.js'
import {putInt64List} from '../../src/hash/int64-format.js'

describe('prefix hash golden vectors (docs/convert.md §7)', () => {
  it('chains over ids', () => {
    expect(prefixHash([1, 2, 3])).toEqual([
      -7046029254386353130n,
      -8366447756632839738n,
      8024461590772477417n,
    ])
    expect(prefixHash([-5, 7])).toEqual([-7046029254386353136n, -8366447756632880699n])
    expect(prefixHash([42])).toEqual([-7046029254386353089n])
  })

  it('single steps', () => {
    expect(hashInt64(0, 0)).toBe(-7046029254386353131n)
    expect(hashInt64(0, 9707)).toBe(-7046029254386343424n)
    expect(hashInt64(hashInt64(0, 9707), 1879)).toBe(-8366447756651569371n)
    expect(hashInt64(-1, -1)).toBe(7046029250091389932n)
  })

  it('masks inputs to 64 bits (bigint, negative, boolean)', () => {
    expect(prefixHash([2n ** 64n + 1n])).toEqual(prefixHash([1]))
    expect(prefixHash([-(2n ** 63n + 1n)])).toEqual(prefixHash([2n ** 63n - 1n]))
    expect(prefixHash([true, false])).toEqual(prefixHash([1, 0]))
  })

  it('the 32-bit-halves implementation equals the BigInt formula on random chains', () => {
    let seed = 12345
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
    for (let round = 0; round < 200; round++) {
      const ids: Array<number | bigint> = []
      for (let i = 0; i < 20; i++) {
        const r = next() % 4
        ids.push(
          r === 0
            ? next() - 1e9
            : r === 1
              ? BigInt(next()) * 2n ** 40n - 2n ** 62n
              : r === 2
                ? Number.MAX_SAFE_INTEGER - next()
                : -next(),
        )
      }
      let prev = 0n
      const expected = ids.map((v) => (prev = hashInt64(prev, v)))
      expect(prefixHash(ids)).toEqual(expected)
    }
  })

  it('token-block variant', () => {
    const tokens = Array.from({length: 20}, (_, i) => i + 1)
    expect(tokensToBlockIds(tokens, 16)).toEqual([4236612491391242247n, -1568905643309261068n])
    expect(tokensToBlockIds(tokens, 16, true)).toEqual([4236612491391242247n])
    expect(tokensToBlockIds([], 16)).toEqual([])
    expect(tokensToBlockIds(tokens.slice(0, 16), 16)).toEqual([4236612491391242247n])
  })
})

describe('KeyList', () => {
  it('serializes like String(bigint), caches, and shares itself when nothing is cut', () => {
    const keys = KeyList.prefixHash([1, 2, 3])
    expect(keys.toJsonText()).toBe('[-7046029254386353130, -8366447756632839738, 8024461590772477417]')
    expect(keys.head(3)).toBe(keys)
    expect(keys.head(1).toArray()).toEqual([-7046029254386353130n])
    expect(KeyList.from([]).toJsonText()).toBe('[]')
    expect(keys.at(-1)).toBe(8024461590772477417n)
  })

  it('cuts a computed text with the keys: every head serializes like a fresh list of its keys', () => {
    const ids = Array.from({length: 40}, (_, i) => i * 7919 - 150)
    const keys = KeyList.prefixHash(ids)
    keys.toJsonBytes() // computed before the cut
    for (let n = 0; n <= 40; n++) {
      const fresh = KeyList.from(keys.head(n).toArray())
      expect(keys.head(n).toJsonText()).toBe(fresh.toJsonText())
    }
    // a list built from parts (a worker's text) is cut the same way
    const parts = KeyList.fromParts(keys.words(), keys.toJsonBytes())
    expect(parts.head(2).toJsonText()).toBe(KeyList.from(keys.toArray().slice(0, 2)).toJsonText())
    expect(parts.head(0).toJsonText()).toBe('[]')
  })

  it('a list over shared slabs (fromSlabs) is the list of its slice: keys, text, cuts and writes', () => {
    const a = KeyList.prefixHash([5, 6, 7, 8])
    const b = KeyList.prefixHash([9, 10, 11])
    const words = new BigInt64Array([...a.words(), ...b.words()])
    const ta = a.toJsonBytes()
    const text = Buffer.concat([ta, b.toJsonBytes()])
    const sb = KeyList.fromSlabs(words, 4, 7, text, ta.length, text.length)
    expect(sb.length).toBe(3)
    expect(sb.jsonByteLength).toBe(b.toJsonBytes().length)
    const copied = Buffer.alloc(sb.jsonByteLength)
    expect(sb.copyJsonInto(copied, 0)).toBe(copied.length)
    expect(copied.toString()).toBe(b.toJsonText())
    expect(sb.toArray()).toEqual(b.toArray())
    expect([...sb]).toEqual(b.toArray())
    expect(sb.at(0)).toBe(b.at(0))
    expect(sb.toJsonText()).toBe(b.toJsonText())
    expect(sb.head(3)).toBe(sb)
    expect(sb.head(2).toJsonText()).toBe(KeyList.from(b.toArray().slice(0, 2)).toJsonText())
    expect(Array.from(sb.words())).toEqual(Array.from(b.words()))
  })
})

describe('int64 decimal formatting', () => {
  it('equals String(bigint) on edge and random values', () => {
    const values = [
      0n,
      1n,
      -1n,
      9n,
      10n,
      9999999n,
      10000000n,
      2n ** 31n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n,
      2n ** 53n + 1n,
      2n ** 63n - 1n,
      -(2n ** 63n),
      10n ** 14n,
      10n ** 14n - 1n,
      123456789012345678n,
      ...[4n, 8n, 12n, 16n, 18n].flatMap((e) => [10n ** e - 1n, 10n ** e, 10n ** e + 1n]),
      2n ** 48n - 1n,
      2n ** 48n,
    ]
    let s = 99n
    for (let i = 0; i < 20000; i++) {
      s = BigInt.asUintN(64, s * 6364136223846793005n + 1442695040888963407n)
      values.push(BigInt.asIntN(64, s))
      values.push(BigInt.asIntN(64, BigInt(i) * 10n ** BigInt(i % 19)))
    }
    const out = new Uint8Array(64)
    for (const v of values) {
      const words = new Uint32Array(new BigInt64Array([v]).buffer)
      expect(Buffer.from(out.subarray(0, putInt64List(words, 0, 1, out, 0))).toString()).toBe(`[${v}]`)
    }
  })

  it('lists of keys equal String(bigint) joined, around every 10^8 boundary the quotient steps correct', () => {
    const values: bigint[] = [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)]
    let s = 7n
    for (let i = 0; i < 20000; i++) {
      s = BigInt.asUintN(64, s * 6364136223846793005n + 1442695040888963407n)
      // a multiple of 10^8 (or 10^16) and its neighbours: where a rounded reciprocal would be off by one
      const base = (s % 184467440737n) * 10n ** 8n
      const base16 = (s % 1844n) * 10n ** 16n + ((s >> 20n) % 2n) * 10n ** 8n
      for (const d of [-1n, 0n, 1n]) values.push(BigInt.asIntN(64, base + d), BigInt.asIntN(64, base16 + d))
    }
    const words = new Uint32Array(new BigInt64Array(values).buffer)
    const out = new Uint8Array(values.length * 24 + 16)
    for (let at = 0; at < values.length; at += 997) {
      const n = Math.min(997, values.length - at)
      const end = putInt64List(words, at, n, out, 3)
      const want =
        '[' +
        values
          .slice(at, at + n)
          .map(String)
          .join(', ') +
        ']'
      expect(Buffer.from(out.subarray(3, end)).toString('latin1')).toBe(want)
    }
    // near the end of a buffer: through the scratch buffer
    const tight = new Uint8Array(Buffer.byteLength('[' + values.slice(0, 5).map(String).join(', ') + ']'))
    expect(putInt64List(words, 0, 5, tight, 0)).toBe(tight.length)
    expect(Buffer.from(tight).toString('latin1')).toBe('[' + values.slice(0, 5).map(String).join(', ') + ']')
  })

  it('writes exactly up to the end of a buffer (no room for 4-byte stores there)', () => {
    for (const v of [0n, 7n, 12345n, 10n ** 8n, 2n ** 63n - 1n, -(2n ** 63n), -12345n]) {
      const text = `[${v}]`
      const out = new Uint8Array(text.length + 1)
      out.fill(0x7e)
      const end = putInt64List(new Uint32Array(new BigInt64Array([v]).buffer), 0, 1, out, 1)
      expect(end).toBe(text.length + 1)
      expect(Buffer.from(out.subarray(1)).toString()).toBe(text)
      expect(out[0]).toBe(0x7e) // nothing before pos is touched
    }
  })
})
