import {putInt64List} from './int64-format.js'

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const LO = LITTLE_ENDIAN ? 0 : 1
const HI = LITTLE_ENDIAN ? 1 : 0
const TWO32 = 4294967296
let textBuffer = Buffer.allocUnsafe(4096)
const EMPTY_LIST = Buffer.from('[]')

/** The golden-ratio constant of the prefix hash, as two 32-bit halves. */
const K_HI = 0x9e3779b9
const K_LO = 0x7f4a7c15

export type HashInput = number | bigint | boolean

/**
 * An immutable list of signed 64-bit keys backed by a BigInt64Array.
 * Immutability lets the serializer cache its JSON text, so a get and its write share one serialization.
 */
export class KeyList implements Iterable<bigint> {
  private text: string | undefined
  private bytes: Buffer | undefined
  private words64: BigInt64Array | undefined
  // a list made from slabs (fromSlabs) keeps offsets and makes its views only when asked
  private slabWords: BigInt64Array | undefined
  private slabText: Buffer | undefined
  private wordStart = 0
  private count = 0
  private textStart = 0
  private textEnd = 0

  private constructor(data: BigInt64Array | undefined) {
    this.words64 = data
    this.count = data?.length ?? 0
  }

  private get data(): BigInt64Array {
    return (this.words64 ??= (this.slabWords as BigInt64Array).subarray(
      this.wordStart,
      this.wordStart + this.count,
    ))
  }

  /**
   * A list over `words[wordStart, wordEnd)` whose JSON text is `text[textStart, textEnd)`, both slabs shared with
   * other lists (the rows of one line-mapper batch): no view is made until one is asked for, and the text is
   * written from the slab as it is (see {@link copyJsonInto}).
   */
  static fromSlabs(
    words: BigInt64Array,
    wordStart: number,
    wordEnd: number,
    text: Buffer,
    textStart: number,
    textEnd: number,
  ): KeyList {
    const list = new KeyList(undefined)
    list.slabWords = words
    list.wordStart = wordStart
    list.count = wordEnd - wordStart
    list.slabText = text
    list.textStart = textStart
    list.textEnd = textEnd
    return list
  }

  /** A list from its int64 words and (optionally) its JSON text, e.g. as computed on a worker thread. */
  static fromParts(words: BigInt64Array, json?: Uint8Array): KeyList {
    const list = new KeyList(words)
    if (json !== undefined) list.bytes = Buffer.from(json.buffer, json.byteOffset, json.byteLength)
    return list
  }

  /** The keys as a BigInt64Array (shared, do not modify). */
  words(): BigInt64Array {
    return this.data
  }

  static from(values: Iterable<bigint | number>): KeyList {
    const arr: bigint[] = []
    for (const v of values) arr.push(BigInt.asIntN(64, BigInt(v)))
    return new KeyList(BigInt64Array.from(arr))
  }

  /** Keys of the chained prefix hash over `ids[0..count)` (one key per id). */
  static prefixHash(ids: ArrayLike<HashInput>, count = ids.length): KeyList {
    const hi = new Uint32Array(count)
    const lo = new Uint32Array(count)
    for (let i = 0; i < count; i++) {
      const v = ids[i] as HashInput
      if (typeof v === 'number') {
        lo[i] = v >>> 0
        hi[i] = Math.floor(v / TWO32) >>> 0
      } else if (typeof v === 'bigint') {
        const u = BigInt.asUintN(64, v)
        lo[i] = Number(u & 0xffffffffn)
        hi[i] = Number(u >> 32n)
      } else lo[i] = v ? 1 : 0
    }
    const data = new BigInt64Array(count)
    KeyList.prefixHashHalves(hi, lo, count, new Uint32Array(data.buffer), 0)
    return new KeyList(data)
  }

  /**
   * The chained prefix hash over ids given as unsigned 32-bit halves (`hi[i]·2^32 + lo[i]`, i < count), written
   * as int64 words (pairs of 32-bit halves in platform order) into `out` from word `at`. The allocation-free form
   * of {@link prefixHash} for scanners that never build numbers.
   */
  static prefixHashHalves(
    hi: Uint32Array,
    lo: Uint32Array,
    count: number,
    out: Uint32Array,
    at: number,
  ): void {
    let uh = 0
    let ul = 0
    for (let i = 0; i < count; i++) {
      const vl = lo[i]
      const vh = hi[i]
      const sl = (ul << 12) >>> 0
      const sh = ((uh << 12) | (ul >>> 20)) >>> 0
      const lowSum = vl + K_LO + sl + uh
      const carry = Math.floor(lowSum / TWO32)
      const rh = (vh + K_HI + sh + carry) >>> 0
      ul = (ul ^ (lowSum >>> 0)) >>> 0
      uh = (uh ^ rh) >>> 0
      out[2 * (at + i) + LO] = ul
      out[2 * (at + i) + HI] = uh
    }
  }

  /** Writes `[k0, k1, …]` (Python layout) for `n` int64 words of `words` from word `at`; returns the end position. */
  static writeJson(words: Uint32Array, at: number, n: number, out: Uint8Array, pos: number): number {
    return putInt64List(words, at, n, out, pos)
  }

  /** Keys of the token-block variant: the chain runs over tokens; a block's key is the hash after its last token. */
  static tokenBlocks(tokens: ArrayLike<HashInput>, blockSize: number, truncate = false): KeyList {
    if (!(blockSize >= 1)) throw new RangeError(`block size must be positive (got ${blockSize})`)
    const chain = KeyList.prefixHash(tokens)
    const full = Math.floor(tokens.length / blockSize)
    const count = truncate || tokens.length % blockSize === 0 ? full : full + 1
    const out = new BigInt64Array(count)
    for (let b = 0; b < count; b++) out[b] = chain.data[Math.min((b + 1) * blockSize, tokens.length) - 1]
    return new KeyList(out)
  }

  get length(): number {
    return this.count
  }

  /** Length in bytes of {@link toJsonBytes}. */
  get jsonByteLength(): number {
    return this.slabText !== undefined ? this.textEnd - this.textStart : this.toJsonBytes().length
  }

  /** Copies the JSON text into `out` at `pos` (room for {@link jsonByteLength} bytes); returns the end. */
  copyJsonInto(out: Uint8Array, pos: number): number {
    if (this.bytes === undefined && this.slabText !== undefined) {
      out.set(this.slabText.subarray(this.textStart, this.textEnd), pos)
      return pos + this.textEnd - this.textStart
    }
    const b = this.toJsonBytes()
    out.set(b, pos)
    return pos + b.length
  }

  at(index: number): bigint | undefined {
    return this.data.at(index)
  }

  toArray(): bigint[] {
    return Array.from(this.data)
  }

  [Symbol.iterator](): Iterator<bigint> {
    return this.data[Symbol.iterator]()
  }

  /** The first `count` keys (this very list when nothing is cut: it is immutable); a computed text is cut too. */
  head(count: number): KeyList {
    if (count >= this.count) return this
    const n = Math.max(0, count)
    const list = new KeyList(this.data.slice(0, n))
    const bytes = this.slabText !== undefined ? this.toJsonBytes() : this.bytes
    if (bytes !== undefined) {
      if (n === 0) list.bytes = EMPTY_LIST
      else {
        // the text ends before the separator after the n-th key (digits hold no comma)
        let at = -1
        for (let k = 0; k < n; k++) at = bytes.indexOf(0x2c, at + 1)
        const cut = Buffer.allocUnsafe(at + 1)
        bytes.copy(cut, 0, 0, at)
        cut[at] = 0x5d
        list.bytes = cut
      }
    }
    return list
  }

  /** JSON array text in Python `json.dumps` layout, computed once. */
  toJsonText(): string {
    if (this.text === undefined) this.text = this.toJsonBytes().toString('latin1')
    return this.text
  }

  /** The same text as ASCII bytes, computed once (records are written from these without re-encoding). */
  toJsonBytes(): Buffer {
    if (this.bytes !== undefined) return this.bytes
    if (this.slabText !== undefined)
      return (this.bytes = this.slabText.subarray(this.textStart, this.textEnd))
    const n = this.data.length
    if (n === 0) return (this.bytes = EMPTY_LIST)
    const words = new Uint32Array(this.data.buffer, this.data.byteOffset, n * 2)
    // digits go straight into bytes: one flat string per list, no per-key strings (20+ chars × 2 + ', ')
    const need = n * 22 + 2
    if (textBuffer.length < need) textBuffer = Buffer.allocUnsafe(Math.max(need, textBuffer.length * 2))
    const end = KeyList.writeJson(words, 0, n, textBuffer, 0)
    return (this.bytes = Buffer.from(textBuffer.subarray(0, end)))
  }
}

/**
 * The key slabs of one line-mapper batch (int64 words as 32-bit halves in platform order, and their JSON texts),
 * viewed once; {@link list} cuts a row's keys from them without a copy.
 */
export class KeySlabs {
  private readonly words: BigInt64Array
  private readonly text: Buffer

  constructor(words: Uint32Array, text: Uint8Array) {
    this.words = new BigInt64Array(words.buffer, words.byteOffset, words.length >> 1)
    this.text = Buffer.from(text.buffer, text.byteOffset, text.byteLength)
  }

  /** The keys words[wordStart, wordEnd) with the text text[textStart, textEnd). */
  list(wordStart: number, wordEnd: number, textStart: number, textEnd: number): KeyList {
    return KeyList.fromSlabs(this.words, wordStart, wordEnd, this.text, textStart, textEnd)
  }

  /** text[start, end) decoded. */
  textOf(start: number, end: number): string {
    return this.text.toString('utf8', start, end)
  }
}
