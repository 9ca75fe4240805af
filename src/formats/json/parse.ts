import {JsonFloat, type JsonObject, type JsonValue} from './json-float.js'

/** A syntax error in one JSON text; `column` is 1-based and counts code points, like Python's message. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly column: number,
  ) {
    super(`${reason} at column ${column}`)
    this.name = 'JsonSyntaxError'
  }
}

/**
 * How deeply arrays and objects may nest in one JSON text. Python's `json.loads` raises RecursionError near its
 * recursion limit (1000 by default), which the original converter reported as a bad line; beyond this depth a
 * recursive descent would also exhaust the JS stack. Deeper texts are refused with {@link JsonDepthError}.
 */
export const MAX_JSON_DEPTH = 1000

/** A JSON text nested deeper than {@link MAX_JSON_DEPTH}: refused before the parser's recursion runs out. */
export class JsonDepthError extends JsonSyntaxError {
  constructor(column: number) {
    super(`nesting deeper than ${MAX_JSON_DEPTH} levels`, column)
    this.name = 'JsonDepthError'
  }
}

const MAX_SAFE_DIGITS = 15 // any run of ≤ 15 digits is exact as a double

/**
 * Lossless JSON parser with Python `json.loads` acceptance: integers stay exact (`number` up to 2^53 − 1,
 * `bigint` beyond), float literals become {@link JsonFloat}, objects are ordered maps (a repeated key keeps its
 * first position and its last value), NaN/Infinity/-Infinity are accepted, lone surrogates are kept.
 */
export function parseJson(text: string): JsonValue {
  return new Parser(text).parseDocument()
}

class Parser {
  private pos = 0
  private depth = 0

  constructor(private readonly s: string) {}

  parseDocument(): JsonValue {
    this.skipWs()
    const value = this.parseValue()
    this.skipWs()
    if (this.pos < this.s.length) this.fail('extra data')
    return value
  }

  private fail(reason: string, at = this.pos): never {
    throw new JsonSyntaxError(reason, this.column(at))
  }

  /** The 1-based column of position `at`, in code points, as Python reports characters of a str. */
  private column(at: number): number {
    let column = 1
    for (let i = 0; i < at && i < this.s.length; i++) {
      const c = this.s.charCodeAt(i)
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < at) {
        const d = this.s.charCodeAt(i + 1)
        if (d >= 0xdc00 && d <= 0xdfff) i++
      }
      column++
    }
    return column
  }

  private skipWs(): void {
    const s = this.s
    let p = this.pos
    for (;;) {
      const c = s.charCodeAt(p)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++
      else break
    }
    this.pos = p
  }

  private parseValue(): JsonValue {
    const c = this.s.charCodeAt(this.pos)
    switch (c) {
      case 0x22: // "
        return this.parseString()
      case 0x7b: // {
        return this.parseObject()
      case 0x5b: // [
        return this.parseArray()
      case 0x74: // t
        return this.literal('true', true)
      case 0x66: // f
        return this.literal('false', false)
      case 0x6e: // n
        return this.literal('null', null)
      case 0x4e: // N
        return this.literal('NaN', new JsonFloat(NaN))
      case 0x49: // I
        return this.literal('Infinity', new JsonFloat(Infinity))
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber()
        return this.fail('expecting value')
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.s.startsWith(word, this.pos)) this.fail('expecting value')
    this.pos += word.length
    return value
  }

  private parseNumber(): JsonValue {
    const s = this.s
    const start = this.pos
    let p = start
    if (s.charCodeAt(p) === 0x2d) {
      p++
      if (s.startsWith('Infinity', p)) {
        this.pos = p + 8
        return new JsonFloat(-Infinity)
      }
    }
    let c = s.charCodeAt(p)
    let acc = 0 // digits accumulated while scanning: exact for up to 15 digits
    if (c === 0x30) p++
    else if (c >= 0x31 && c <= 0x39) {
      do {
        acc = acc * 10 + (c - 0x30)
        p++
      } while ((c = s.charCodeAt(p)) >= 0x30 && c <= 0x39)
    } else return this.fail('expecting value', start)
    const intEnd = p
    let isFloat = false
    if (s.charCodeAt(p) === 0x2e) {
      const q = p + 1
      c = s.charCodeAt(q)
      if (c >= 0x30 && c <= 0x39) {
        p = q + 1
        while ((c = s.charCodeAt(p)) >= 0x30 && c <= 0x39) p++
        isFloat = true
      }
      // a dot without digits ends the number (Python then reports the dot as extra data)
    }
    c = s.charCodeAt(p)
    if (c === 0x65 || c === 0x45) {
      let q = p + 1
      c = s.charCodeAt(q)
      if (c === 0x2b || c === 0x2d) q++
      c = s.charCodeAt(q)
      if (c >= 0x30 && c <= 0x39) {
        p = q + 1
        while ((c = s.charCodeAt(p)) >= 0x30 && c <= 0x39) p++
        isFloat = true
      }
    }
    this.pos = p
    if (isFloat) return new JsonFloat(Number(s.slice(start, p)))
    const digits = intEnd - start - (s.charCodeAt(start) === 0x2d ? 1 : 0)
    // ≤ 15 digits are exact as a double; so is a 16-digit value up to 2^53 − 1 (each step of the accumulation
    // rounds correctly, and rounding is monotonic: a true value above that cannot come out at or below it), which
    // covers microsecond timestamps without a BigInt
    if (digits <= MAX_SAFE_DIGITS || (digits === MAX_SAFE_DIGITS + 1 && acc <= Number.MAX_SAFE_INTEGER))
      return acc === 0 ? 0 : s.charCodeAt(start) === 0x2d ? -acc : acc // "-0" is the integer 0
    const big = BigInt(s.slice(start, intEnd))
    return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big
  }

  private parseString(): string {
    const s = this.s
    const start = this.pos + 1
    let p = start
    // fast path: no escapes, no control characters
    for (;;) {
      const c = s.charCodeAt(p)
      if (c === 0x22) {
        this.pos = p + 1
        return s.slice(start, p)
      }
      if (c === 0x5c || c < 0x20 || Number.isNaN(c)) break
      p++
    }
    let out = s.slice(start, p)
    for (;;) {
      if (p >= s.length) this.fail('unterminated string', start - 1)
      const c = s.charCodeAt(p)
      if (c === 0x22) {
        this.pos = p + 1
        return out
      }
      if (c < 0x20) this.fail('invalid control character', p)
      if (c !== 0x5c) {
        const runStart = p
        while (p < s.length) {
          const d = s.charCodeAt(p)
          if (d === 0x22 || d === 0x5c || d < 0x20) break
          p++
        }
        out += s.slice(runStart, p)
        continue
      }
      const e = s.charCodeAt(p + 1)
      switch (e) {
        case 0x22:
          out += '"'
          break
        case 0x5c:
          out += '\\'
          break
        case 0x2f:
          out += '/'
          break
        case 0x62:
          out += '\b'
          break
        case 0x66:
          out += '\f'
          break
        case 0x6e:
          out += '\n'
          break
        case 0x72:
          out += '\r'
          break
        case 0x74:
          out += '\t'
          break
        case 0x75: {
          const hex = s.slice(p + 2, p + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\uXXXX escape', p)
          // pairs of escapes combine naturally: UTF-16 code units side by side
          out += String.fromCharCode(parseInt(hex, 16))
          p += 6
          continue
        }
        default:
          this.fail('invalid escape', p)
      }
      p += 2
    }
  }

  /** Opens the array or object at pos (past its bracket); true when it closes at once (`close`: its bracket). */
  private open(close: number): boolean {
    if (++this.depth > MAX_JSON_DEPTH) throw new JsonDepthError(this.column(this.pos))
    this.pos++
    this.skipWs()
    return this.closes(close)
  }

  /** Past the closing bracket `close` when it is at pos (true). */
  private closes(close: number): boolean {
    if (this.s.charCodeAt(this.pos) !== close) return false
    this.pos++
    this.depth--
    return true
  }

  /** After an item: true past a `,` (another item follows), false past the closing bracket `close`. */
  private more(close: number): boolean {
    this.skipWs()
    if (this.s.charCodeAt(this.pos) === 0x2c) {
      this.pos++
      this.skipWs()
      return true
    }
    if (this.closes(close)) return false
    return this.fail("expecting ',' delimiter")
  }

  private parseArray(): JsonValue[] {
    const out: JsonValue[] = []
    if (this.open(0x5d)) return out
    do out.push(this.parseValue())
    while (this.more(0x5d))
    return out
  }

  private parseObject(): JsonObject {
    const out: JsonObject = new Map()
    if (this.open(0x7d)) return out
    do {
      if (this.s.charCodeAt(this.pos) !== 0x22) this.fail('expecting property name enclosed in double quotes')
      const key = this.parseString()
      this.skipWs()
      if (this.s.charCodeAt(this.pos) !== 0x3a) this.fail("expecting ':' delimiter")
      this.pos++
      this.skipWs()
      out.set(key, this.parseValue())
    } while (this.more(0x7d))
    return out
  }
}
