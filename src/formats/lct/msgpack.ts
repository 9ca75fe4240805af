// lmt's own msgpack decoder and encoder, where @msgpack/msgpack does not fit the .lct format: errors here
// carry the byte offset inside the frame; a uint64 is exact (a BigInt beyond 2^53) without turning every 64-bit
// value into a BigInt; an integral float stays a float (Python wrote 1.0, not 1); maps keep their order and are
// null-prototype objects that take "__proto__" keys. @msgpack/msgpack is the independent oracle of the tests
// (docs/lct.md §11).
import {JsonFloat} from '../json/json-float.js'
import {MAX_NESTING} from './constants.js'

/** A decoded msgpack value. Maps are null-prototype objects (see the prototype-pollution note in docs/lct.md §4.5). */
export type RawValue = null | boolean | number | bigint | string | Uint8Array | RawValue[] | RawMap
export interface RawMap {
  [key: string]: RawValue
}

/** Not one well-formed msgpack value; `at` is the byte index within the body. */
export class MsgpackError extends Error {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {
    super(`not valid msgpack (${reason} at byte ${at})`)
    this.name = 'MsgpackError'
  }
}

/** msgpack type families, as named in messages. */
export function familyOf(byte: number): string {
  if (byte <= 0x7f || byte >= 0xe0 || (byte >= 0xcc && byte <= 0xd3)) return 'int'
  if (byte <= 0x8f || byte === 0xde || byte === 0xdf) return 'map'
  if (byte <= 0x9f || byte === 0xdc || byte === 0xdd) return 'array'
  if (byte <= 0xbf || (byte >= 0xd9 && byte <= 0xdb)) return 'str'
  if (byte === 0xc0) return 'nil'
  if (byte === 0xc2 || byte === 0xc3) return 'bool'
  if (byte >= 0xc4 && byte <= 0xc6) return 'bin'
  if (byte === 0xca || byte === 0xcb) return 'float'
  if ((byte >= 0xc7 && byte <= 0xc9) || (byte >= 0xd4 && byte <= 0xd8)) return 'ext'
  return 'invalid'
}

const decoder = new TextDecoder('utf-8', {fatal: true})

/**
 * A new null-prototype object (docs/lct.md §4.5). `Object.create(null)` starts in V8's slow dictionary mode; an empty
 * literal whose prototype is then set to null keeps fast properties — a third cheaper to fill and to read.
 */
export function nullProtoObject<T extends object = RawMap>(): T {
  const o = {}
  Object.setPrototypeOf(o, null)
  return o as T
}

const WORD = new Uint8Array(8)
const WORD_VIEW = new DataView(WORD.buffer)

/** `n` (4 or 8) bytes at `p` copied into one scratch word: no DataView per number on the hot path. */
function wordView(buf: Uint8Array, p: number, n: number): DataView {
  for (let i = 0; i < n; i++) WORD[i] = buf[p + i]
  return WORD_VIEW
}

/**
 * Decoder over one frame body `buf[start, end)`. Never allocates from a declared length
 * before checking it against the bytes left.
 */
export class MsgpackReader {
  pos: number
  protected depth = 0

  constructor(
    readonly buf: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {
    this.pos = start
  }

  fail(reason: string, at = this.pos): never {
    throw new MsgpackError(reason, at - this.start)
  }

  need(n: number): void {
    if (this.pos + n > this.end) this.fail('truncated value')
  }

  peek(): number {
    if (this.pos >= this.end) this.fail('truncated value')
    return this.buf[this.pos]
  }

  protected u8(): number {
    this.need(1)
    return this.buf[this.pos++]
  }

  protected u16(): number {
    this.need(2)
    const v = (this.buf[this.pos] << 8) | this.buf[this.pos + 1]
    this.pos += 2
    return v
  }

  protected u32(): number {
    this.need(4)
    const v = readU32(this.buf, this.pos)
    this.pos += 4
    return v
  }

  /** Reads a str (validated UTF-8). */
  readStr(): string {
    const b = this.u8()
    let n: number
    if (b >= 0xa0 && b <= 0xbf) n = b & 0x1f
    else if (b === 0xd9) n = this.u8()
    else if (b === 0xda) n = this.u16()
    else if (b === 0xdb) n = this.u32()
    else return this.fail(`expected str, got ${familyOf(b)}`, this.pos - 1)
    return this.strBody(n)
  }

  private strBody(n: number): string {
    this.need(n)
    const s = this.pos
    this.pos += n
    const buf = this.buf
    let ascii = true
    for (let i = s; i < s + n; i++) {
      if (buf[i] >= 0x80) {
        ascii = false
        break
      }
    }
    if (ascii) {
      if (n < 24) {
        let out = ''
        for (let i = s; i < s + n; i++) out += String.fromCharCode(buf[i])
        return out
      }
      return Buffer.from(buf.buffer, buf.byteOffset + s, n).toString('latin1')
    }
    try {
      return decoder.decode(buf.subarray(s, s + n))
    } catch {
      return this.fail('invalid UTF-8', s)
    }
  }

  /** Reads a map header; returns the entry count (or -1 when the value there is not a map, pos unchanged). */
  mapHeader(): number {
    const b = this.peek()
    let n: number
    if (b >= 0x80 && b <= 0x8f) {
      this.pos++
      n = b & 0x0f
    } else if (b === 0xde) {
      this.pos++
      n = this.u16()
    } else if (b === 0xdf) {
      this.pos++
      n = this.u32()
    } else return -1
    if (n * 2 > this.end - this.pos) this.fail('truncated value')
    return n
  }

  /**
   * Decodes one value. One switch over the type byte on purpose (~80 lines): it is the innermost call of every
   * decode, and a call per family would be one more per value. It is the plain decoder the fast lanes fall back
   * to, itself pinned to an independent decoder (`@msgpack/msgpack`) on random values by test/formats/lct/writer.test.ts.
   */
  value(): RawValue {
    const buf = this.buf
    const at = this.pos
    const b = this.u8()
    if (b <= 0x7f) return b
    if (b >= 0xe0) return b - 0x100
    if (b <= 0x8f) return this.mapBody(b & 0x0f, at)
    if (b <= 0x9f) return this.arrayBody(b & 0x0f, at)
    if (b <= 0xbf) return this.strBody(b & 0x1f)
    switch (b) {
      case 0xc0:
        return null
      case 0xc2:
        return false
      case 0xc3:
        return true
      case 0xc4:
        return this.binBody(this.u8())
      case 0xc5:
        return this.binBody(this.u16())
      case 0xc6:
        return this.binBody(this.u32())
      case 0xca: {
        this.need(4)
        const v = wordView(buf, this.pos, 4).getFloat32(0)
        this.pos += 4
        return v
      }
      case 0xcb: {
        this.need(8)
        const v = wordView(buf, this.pos, 8).getFloat64(0)
        this.pos += 8
        return v
      }
      case 0xcc:
        return this.u8()
      case 0xcd:
        return this.u16()
      case 0xce:
        return this.u32()
      case 0xcf: {
        this.need(8)
        const v = wordView(buf, this.pos, 8).getBigUint64(0)
        this.pos += 8
        return v <= 9007199254740991n ? Number(v) : v
      }
      case 0xd0: {
        const v = this.u8()
        return v >= 0x80 ? v - 0x100 : v
      }
      case 0xd1: {
        const v = this.u16()
        return v >= 0x8000 ? v - 0x10000 : v
      }
      case 0xd2: {
        const v = this.u32()
        return v >= 0x80000000 ? v - 0x100000000 : v
      }
      case 0xd3: {
        this.need(8)
        const v = wordView(buf, this.pos, 8).getBigInt64(0)
        this.pos += 8
        return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v
      }
      case 0xd9:
        return this.strBody(this.u8())
      case 0xda:
        return this.strBody(this.u16())
      case 0xdb:
        return this.strBody(this.u32())
      case 0xdc:
        return this.arrayBody(this.u16(), at)
      case 0xdd:
        return this.arrayBody(this.u32(), at)
      case 0xde:
        return this.mapBody(this.u16(), at)
      case 0xdf:
        return this.mapBody(this.u32(), at)
      default:
        if ((b >= 0xc7 && b <= 0xc9) || (b >= 0xd4 && b <= 0xd8)) return this.fail('unsupported ext type', at)
        return this.fail(`invalid type byte 0x${b.toString(16).padStart(2, '0')}`, at)
    }
  }

  private binBody(n: number): Uint8Array {
    this.need(n)
    // a copy: never alias the reader's buffers (Buffer#slice would return a view)
    const out = Uint8Array.prototype.slice.call(this.buf, this.pos, this.pos + n)
    this.pos += n
    return out
  }

  protected enter(at: number): void {
    if (++this.depth > MAX_NESTING) this.fail(`nesting deeper than ${MAX_NESTING}`, at)
  }

  protected arrayBody(n: number, at: number): RawValue[] {
    if (n > this.end - this.pos) this.fail('truncated value')
    this.enter(at)
    const out = new Array<RawValue>(n)
    for (let i = 0; i < n; i++) out[i] = this.value()
    this.depth--
    return out
  }

  protected mapBody(n: number, at: number): RawMap {
    if (n * 2 > this.end - this.pos) this.fail('truncated value')
    this.enter(at)
    const out = nullProtoObject()
    for (let i = 0; i < n; i++) {
      const key = this.mapKey()
      out[key] = this.value()
    }
    this.depth--
    return out
  }

  /** A map key: str as is, int as its decimal string; anything else is malformed. */
  mapKey(): string {
    const b = this.peek()
    const fam = familyOf(b)
    if (fam === 'str') return this.readStr()
    if (fam === 'int') return String(this.value())
    return this.fail(`unsupported map key type ${fam}`)
  }

  /**
   * Advances past a str whose header is at pos, without decoding it; false (pos unchanged) when the value there is
   * not a str. A header cut short fails at its first byte.
   */
  skipStr(): boolean {
    const b = this.peek()
    const head = b >= 0xa0 && b <= 0xbf ? 1 : b === 0xd9 ? 2 : b === 0xda ? 3 : b === 0xdb ? 5 : 0
    if (head === 0) return false
    if (this.pos + head > this.end) this.fail('truncated value')
    const buf = this.buf
    const p = this.pos
    const n =
      head === 1
        ? b & 0x1f
        : head === 2
          ? buf[p + 1]
          : head === 3
            ? (buf[p + 1] << 8) | buf[p + 2]
            : readU32(buf, p + 1)
    this.pos += head
    this.need(n)
    this.pos += n
    return true
  }

  /** The value at pos must end the body. */
  expectEnd(): void {
    if (this.pos !== this.end) this.fail('trailing bytes')
  }
}

export function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) >>> 0
}

/** Decodes a whole body that must hold exactly one value. */
export function decodeBody(buf: Uint8Array, start = 0, end = buf.length): RawValue {
  const r = new MsgpackReader(buf, start, end)
  const v = r.value()
  r.expectEnd()
  return v
}

/** Raised by the encoder for values msgpack (as LMCache writes it) cannot hold. */
export class MsgpackEncodeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MsgpackEncodeError'
  }
}

const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

/**
 * msgpack writer with LMCache's (msgspec's default) choices: smallest int forms, float64 always, str8 for 32–255
 * bytes, bin for bytes, maps in source order. A `number` is an int when it is a safe integer, else float64; so an
 * integral float decoded from a foreign record is re-encoded as an int (see docs/lct.md §3).
 */
export class MsgpackWriter {
  private buf = Buffer.allocUnsafe(1024)
  private pos = 0

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos)
  }

  float64(v: number): void {
    this.ensure(9)
    this.buf[this.pos] = 0xcb
    this.buf.writeDoubleBE(v, this.pos + 1)
    this.pos += 9
  }

  int(v: number | bigint): void {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new MsgpackEncodeError(`not an integer: ${v}`)
      if (v >= 0) {
        if (v <= 0x7f) return this.byte(v)
        if (v <= 0xff) return this.head(0xcc, v, 1)
        if (v <= 0xffff) return this.head(0xcd, v, 2)
        if (v <= 0xffffffff) return this.head(0xce, v, 4)
        return this.word64(0xcf, BigInt(v))
      }
      if (v >= -32) return this.byte(v + 0x100)
      if (v >= -128) return this.head(0xd0, v + 0x100, 1)
      if (v >= -32768) return this.head(0xd1, v + 0x10000, 2)
      if (v >= -2147483648) return this.head(0xd2, v + 0x100000000, 4)
      return this.word64(0xd3, BigInt(v))
    }
    if (v >= -9007199254740991n && v <= 9007199254740991n) return this.int(Number(v))
    if (v > 0n) {
      if (v > UINT64_MAX) throw new MsgpackEncodeError(`integer out of range: ${v}`)
      return this.word64(0xcf, v)
    }
    if (v < INT64_MIN) throw new MsgpackEncodeError(`integer out of range: ${v}`)
    return this.word64(0xd3, v)
  }

  private byte(b: number): void {
    this.ensure(1)
    this.buf[this.pos++] = b
  }

  private head(type: number, v: number, n: number): void {
    this.ensure(1 + n)
    this.buf[this.pos++] = type
    if (n === 1) this.buf[this.pos] = v
    else if (n === 2) this.buf.writeUInt16BE(v, this.pos)
    else this.buf.writeUInt32BE(v, this.pos)
    this.pos += n
  }

  /** uint64 (0xcf) or int64 (0xd3) */
  private word64(type: 0xcf | 0xd3, v: bigint): void {
    this.ensure(9)
    this.buf[this.pos] = type
    if (type === 0xcf) this.buf.writeBigUInt64BE(v, this.pos + 1)
    else this.buf.writeBigInt64BE(v, this.pos + 1)
    this.pos += 9
  }

  str(s: string): void {
    const len = s.length
    if (len <= 31) {
      // short ASCII strings (keys, names, ids) by a loop: no calls into the runtime
      this.ensure(len + 1)
      const buf = this.buf
      const at = this.pos
      let i = 0
      for (; i < len; i++) {
        const c = s.charCodeAt(i)
        if (c >= 0x80) break
        buf[at + 1 + i] = c
      }
      if (i === len) {
        buf[at] = 0xa0 | len
        this.pos = at + 1 + len
        return
      }
    }
    const n = Buffer.byteLength(s, 'utf8')
    if (n <= 31) this.byte(0xa0 | n)
    else if (n <= 0xff) this.head(0xd9, n, 1)
    else if (n <= 0xffff) this.head(0xda, n, 2)
    else this.head(0xdb, n, 4)
    this.ensure(n)
    this.pos += this.buf.write(s, this.pos, 'utf8')
  }

  private bin(b: Uint8Array): void {
    const n = b.length
    if (n <= 0xff) this.head(0xc4, n, 1)
    else if (n <= 0xffff) this.head(0xc5, n, 2)
    else this.head(0xc6, n, 4)
    this.ensure(n)
    this.buf.set(b, this.pos)
    this.pos += n
  }

  arrayHeader(n: number): void {
    if (n <= 15) this.byte(0x90 | n)
    else if (n <= 0xffff) this.head(0xdc, n, 2)
    else this.head(0xdd, n, 4)
  }

  mapHeader(n: number): void {
    if (n <= 15) this.byte(0x80 | n)
    else if (n <= 0xffff) this.head(0xde, n, 2)
    else this.head(0xdf, n, 4)
  }

  /** A generic value: the forms of docs/lct.md §3 (plain objects and Maps as ordered maps). */
  value(v: unknown): void {
    if (v === null) return this.byte(0xc0)
    switch (typeof v) {
      case 'boolean':
        return this.byte(v ? 0xc3 : 0xc2)
      case 'number':
        return Number.isSafeInteger(v) ? this.int(v) : this.float64(v)
      case 'bigint':
        return this.int(v)
      case 'string':
        return this.str(v)
      case 'object':
        break
      default:
        throw new MsgpackEncodeError(`cannot encode a ${typeof v}`)
    }
    if (v instanceof JsonFloat) return this.float64(v.value)
    if (v instanceof Uint8Array) return this.bin(v)
    if (Array.isArray(v)) {
      this.arrayHeader(v.length)
      for (const item of v) this.value(item)
      return
    }
    if (v instanceof Map) {
      this.mapHeader(v.size)
      for (const [k, item] of v) {
        if (typeof k !== 'string') throw new MsgpackEncodeError('map keys must be strings')
        this.str(k)
        this.value(item)
      }
      return
    }
    const proto = Object.getPrototypeOf(v)
    if (proto === Object.prototype || proto === null) {
      const keys = Object.keys(v)
      this.mapHeader(keys.length)
      for (const k of keys) {
        this.str(k)
        this.value((v as Record<string, unknown>)[k])
      }
      return
    }
    throw new MsgpackEncodeError(
      `cannot encode an object of class ${(v as object).constructor?.name ?? 'unknown'}`,
    )
  }
}
