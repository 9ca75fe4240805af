// The fast lane of trace rows over a line's UTF-8 bytes (in a LineBatch): the same subset of rows as RowScanner
// (row-scan.ts) accepts, read without decoding the line into a string — one pass over its bytes, keys taken as
// 64-bit halves straight from their digits and interned only once the whole row is known to be valid (so a row
// the exact path rejects assigns no key ids). Anything unusual gives undefined and parseRow, the exact path, decides.
import {
  isWsByte,
  numberEndBytes,
  skipWsBytes,
  smallIntegerBytes,
  stringEndBytes,
  valueEndBytes,
} from '../../formats/json/fast/json-scan-bytes.js'
import {HalvesList} from '../../formats/json/fast/json-scan-bytes.js'
import type {KeyInterner} from '../input/key-interner.js'
import type {RowType, TraceRow} from '../input/trace-rows.js'

const INT64_MAX = 2n ** 63n - 1n
const TWO32 = 4294967296
const NEG_LIMIT = Buffer.from('9223372036854775808') // |−2^63|
const POS_LIMIT = Buffer.from('18446744073709551615') // 2^64 − 1
const NO_MASK: boolean[] = []
const utf8 = new TextDecoder('utf-8')

const F_TYPE = 1
const F_INSTANCE = 2
const F_TS = 4
const F_KEYS = 8
const F_INPUT_LEN = 16
const F_MASK = 32
const F_QUERY = 64
const F_TTL = 128

const word = (s: string) => Buffer.from(s)
const TYPE = word('type')
const KEYS = word('keys')
const INPUT_LEN = word('input_len')
const BLOCK_MASK = word('block_mask')
const QUERY_TYPE = word('query_type')
const INSTANCE_ID = word('instance_id')
const TIMESTAMP_NS = word('timestamp_ns')
const TTL_US = word('ttl_us')
const GET = word('"get"')
const WRITE = word('"write"')
const REQUEST = word('"request"')
const PREFIX_MATCH = word('"prefix_match"')
const TRUE = word('true')
const FALSE = word('false')

function bytesAt(b: Uint8Array, p: number, w: Uint8Array): boolean {
  for (let i = 0; i < w.length; i++) if (b[p + i] !== w[i]) return false
  return true
}

function fieldOf(b: Uint8Array, start: number, end: number): number {
  switch (end - start) {
    case 4:
      return bytesAt(b, start, TYPE) ? F_TYPE : bytesAt(b, start, KEYS) ? F_KEYS : 0
    case 6:
      return bytesAt(b, start, TTL_US) ? F_TTL : 0
    case 9:
      return bytesAt(b, start, INPUT_LEN) ? F_INPUT_LEN : 0
    case 10:
      return bytesAt(b, start, BLOCK_MASK) ? F_MASK : bytesAt(b, start, QUERY_TYPE) ? F_QUERY : 0
    case 11:
      return bytesAt(b, start, INSTANCE_ID) ? F_INSTANCE : 0
    case 12:
      return bytesAt(b, start, TIMESTAMP_NS) ? F_TS : 0
    default:
      return 0
  }
}

/** The n digits at p are at most `limit` (a digit string of the same length). */
function notAbove(b: Uint8Array, p: number, n: number, limit: Uint8Array): boolean {
  for (let i = 0; i < n; i++) {
    const d = b[p + i] - limit[i]
    if (d !== 0) return d < 0
  }
  return true
}

/**
 * The array of integer keys at p (its `[`), each checked against rule V8 ([−2^63, 2^64 − 1] as written) and taken
 * modulo 2^64 into `out` (cleared first): 15 digits exact in a double, then one carry per run of up to 6 more.
 * The end position, or -1 for anything else (the exact path then decides).
 */
export function keyArrayBytes(b: Uint8Array, p: number, out: HalvesList): number {
  out.length = 0
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x5d) return p + 1
  let n = 0
  let hiArr = out.hi
  let loArr = out.lo
  for (;;) {
    let c = b[p]
    const negative = c === 0x2d
    if (negative) c = b[++p]
    if (!(c >= 0x30 && c <= 0x39)) return -1
    const start = p
    if (c === 0x30 && b[p + 1] >= 0x30 && b[p + 1] <= 0x39) return -1 // a leading zero
    let v = 0
    do {
      v = v * 10 + (c - 0x30)
      c = b[++p]
    } while (c >= 0x30 && c <= 0x39 && p - start < 15)
    let lo = v >>> 0
    let hi = (v - lo) / TWO32
    while (c >= 0x30 && c <= 0x39) {
      let r = 0
      let m = 1
      do {
        r = r * 10 + (c - 0x30)
        m *= 10
        c = b[++p]
      } while (c >= 0x30 && c <= 0x39 && m < 1e6)
      const l = lo * m + r
      const carry = Math.floor(l / TWO32)
      lo = l - carry * TWO32
      hi = (hi * m + carry) >>> 0
    }
    if (c === 0x2e || c === 0x65 || c === 0x45) return -1
    const digits = p - start
    if (digits >= 19) {
      if (negative ? digits > 19 || !notAbove(b, start, 19, NEG_LIMIT) : digits > 20) return -1
      if (!negative && digits === 20 && !notAbove(b, start, 20, POS_LIMIT)) return -1
    }
    if (negative && (hi !== 0 || lo !== 0)) {
      lo = (TWO32 - lo) >>> 0
      hi = (TWO32 - hi - (lo === 0 ? 0 : 1)) >>> 0
    }
    if (n === hiArr.length) {
      out.length = n
      out.grow()
      hiArr = out.hi
      loArr = out.lo
    }
    hiArr[n] = hi
    loArr[n] = lo
    n++
    while (c === 0x20) c = b[++p]
    if (c === 0x2c) {
      c = b[++p]
      while (c === 0x20) c = b[++p]
      if (isWsByte(c)) p = skipWsBytes(b, p)
      continue
    }
    if (isWsByte(c)) {
      p = skipWsBytes(b, p)
      c = b[p]
      if (c === 0x2c) {
        p = skipWsBytes(b, p + 1)
        continue
      }
    }
    if (c !== 0x5d) return -1
    out.length = n
    return p + 1
  }
}

/** A block_mask list of booleans at p (its `[`) into `out`: its end, -2 when an item is no boolean, -1 when unsure. */
function boolListBytes(b: Uint8Array, p: number, out: boolean[]): number {
  p = skipWsBytes(b, p + 1)
  if (b[p] === 0x5d) return p + 1
  for (;;) {
    if (bytesAt(b, p, TRUE)) {
      out.push(true)
      p += 4
    } else if (bytesAt(b, p, FALSE)) {
      out.push(false)
      p += 5
    } else return -2
    p = skipWsBytes(b, p)
    const d = b[p]
    if (d === 0x5d) return p + 1
    if (d !== 0x2c) return -1
    p = skipWsBytes(b, p + 1)
  }
}

/** the longest keys text remembered for the next row (longer lists are read every time) */
const MAX_REMEMBERED_KEYS_TEXT = 1 << 16

/**
 * The text of the last keys array read and its ids: a trace repeats a get's keys in the write that follows it
 * (the Get+Write format writes what the get missed as the same list), and the same text has the same ids, so a
 * repeat is a byte comparison instead of a parse and a lookup per key (no id is assigned: the keys are known).
 */
class RememberedKeys {
  private text = Buffer.allocUnsafe(4096)
  private length = 0
  private ids: number[] = []

  /** The end of the keys array at p when its text is the remembered one, else -1. */
  endIfSame(b: Uint8Array, p: number): number {
    const n = this.length
    // a list of another length (as a longer one sharing a prefix) mostly fails at its last byte: that one first
    if (n === 0 || p + n > b.length || b[p + n - 1] !== 0x5d) return -1
    // memcmp: a list is hundreds of bytes (a byte loop took ~2.5× as long, cold or warm)
    return this.text.compare(b, p, p + n, 0, n) === 0 ? p + n : -1
  }

  /** A copy of the remembered ids (rows never share a keys array). */
  copyOfIds(): number[] {
    return this.ids.slice()
  }

  remember(b: Uint8Array, start: number, end: number, ids: number[]): void {
    const n = end - start
    if (n > MAX_REMEMBERED_KEYS_TEXT) {
      this.length = 0
      return
    }
    if (n > this.text.length) this.text = Buffer.allocUnsafe(Math.max(n, 2 * this.text.length))
    this.text.set(b.subarray(start, end))
    this.length = n
    this.ids = ids // the row's own array (TraceRow.keys is read-only)
  }
}

/** Reusable scratch of the byte scanner (one per trace read). */
export class RowByteScanner {
  end = 0
  /** read `ttl_us` into the rows that are not gets (the rows of a tiered configuration, see parseRow) */
  keepTtl = false
  private readonly keyHalves = new HalvesList()
  private readonly remembered = new RememberedKeys()
  private lastInstance = ''
  private lastInstanceBytes = new Uint8Array(0)

  /** The instance id (a string without escapes at p), the previous one reused when its bytes are equal. */
  private instanceAt(b: Uint8Array, p: number): string | undefined {
    const end = stringEndBytes(b, p, false)
    if (end < 0) return undefined
    this.end = end
    const n = end - p - 2
    const last = this.lastInstanceBytes
    if (n === last.length && bytesAt(b, p + 1, last)) return this.lastInstance
    this.lastInstanceBytes = b.slice(p + 1, end - 1)
    this.lastInstance = utf8.decode(this.lastInstanceBytes)
    return this.lastInstance
  }

  /**
   * The row on the bytes b[start, end) (followed by a sentinel byte, as in a LineBatch), when in the usual layout;
   * undefined leaves the line to parseRow. Without `interner` the keys are checked but not interned: the row's
   * `keys` then holds as many zeros (what a block-size pre-pass needs). It is one function on purpose: it is the
   * measured per-row hot path of reading a trace (docs/architecture.md), and test/simulate/fast/
   * row-scan-bytes.test.ts pins its rows to parseRow's (the plain path) on random rows.
   */
  scan(
    b: Uint8Array,
    start: number,
    end: number,
    lineNo: number,
    interner: KeyInterner | undefined,
  ): TraceRow | undefined {
    let type: RowType | undefined
    let instance: string | undefined
    let ts = 0n
    let inputLen = -1
    let mask: boolean[] | number = NO_MASK
    let maskBad = false
    let queryType: string | undefined = 'prefix_match'
    let seen = 0
    let keysStart = -1 // the keys array's text, when read (not the remembered one)
    let keysEnd = -1
    let sameKeys = false
    let ttl: number | undefined
    let p = skipWsBytes(b, start)
    if (b[p] !== 0x7b) return undefined
    p = skipWsBytes(b, p + 1)
    for (;;) {
      if (b[p] !== 0x22) return undefined
      const keyEnd = stringEndBytes(b, p, false)
      if (keyEnd < 0) return undefined
      const field = fieldOf(b, p + 1, keyEnd - 1)
      if (field !== 0 && seen & field) return undefined
      seen |= field
      p = skipWsBytes(b, keyEnd)
      if (b[p] !== 0x3a) return undefined
      p = skipWsBytes(b, p + 1)
      const c = b[p]
      switch (field) {
        case F_TYPE:
          if (bytesAt(b, p, GET)) {
            type = 'get'
            p += 5
          } else if (bytesAt(b, p, WRITE)) {
            type = 'write'
            p += 7
          } else if (bytesAt(b, p, REQUEST)) {
            type = 'request'
            p += 9
          } else return undefined
          break
        case F_INSTANCE:
          if (c !== 0x22) return undefined
          instance = this.instanceAt(b, p)
          if (!instance) return undefined
          p = this.end
          break
        case F_TS: {
          const v = smallIntegerBytes(b, p, this)
          if (v >= 0) {
            ts = BigInt(v)
            p = this.end
          } else {
            const e = numberEndBytes(b, p)
            if (e < 0 || c === 0x2d || e - p > 19) return undefined
            let t = 0n
            for (let i = p; i < e; i++) {
              const d = b[i]
              if (!(d >= 0x30 && d <= 0x39)) return undefined
              t = t * 10n + BigInt(d - 0x30)
            }
            if (t > INT64_MAX) return undefined
            ts = t
            p = e
          }
          break
        }
        case F_KEYS: {
          if (c !== 0x5b) return undefined
          const e = this.remembered.endIfSame(b, p)
          sameKeys = e >= 0
          if (sameKeys) p = e
          else {
            keysStart = p
            p = keysEnd = keyArrayBytes(b, p, this.keyHalves)
          }
          break
        }
        case F_INPUT_LEN: {
          const v = smallIntegerBytes(b, p, this)
          if (v >= 1) {
            inputLen = v
            p = this.end
          } else p = valueEndBytes(b, p, 1) // only a get or request needs it: decided at the end
          break
        }
        case F_MASK:
          if (c === 0x5b) {
            const bools: boolean[] = []
            const e = boolListBytes(b, p, bools)
            if (e === -2) {
              maskBad = true
              p = valueEndBytes(b, p, 1)
            } else p = e
            mask = bools
          } else {
            const v = smallIntegerBytes(b, p, this)
            if (v >= 0) {
              mask = v
              p = this.end
            } else {
              maskBad = true
              p = valueEndBytes(b, p, 1)
            }
          }
          break
        case F_QUERY:
          if (bytesAt(b, p, PREFIX_MATCH)) {
            queryType = 'prefix_match' // the usual value: no string per row
            p += 14
          } else if (c === 0x22) {
            const e = stringEndBytes(b, p, false)
            queryType = e < 0 ? undefined : utf8.decode(b.subarray(p + 1, e - 1))
            p = e
          } else {
            queryType = undefined
            p = valueEndBytes(b, p, 1)
          }
          break
        case F_TTL:
          if (this.keepTtl) {
            const negative = c === 0x2d
            const v = smallIntegerBytes(b, negative ? p + 1 : p, this)
            if (v < 0) return undefined
            ttl = negative ? -v : v
            p = this.end
          } else p = valueEndBytes(b, p, 1)
          break
        default:
          p = valueEndBytes(b, p, 1)
      }
      if (p < 0) return undefined
      p = skipWsBytes(b, p)
      const d = b[p]
      if (d === 0x7d) break
      if (d !== 0x2c) return undefined
      p = skipWsBytes(b, p + 1)
    }
    if (skipWsBytes(b, p + 1) !== end) return undefined
    if (type === undefined || instance === undefined || !(seen & F_TS) || !(seen & F_KEYS)) return undefined
    if (type !== 'write') {
      if (inputLen < 1 || maskBad || queryType === undefined) return undefined
    } else {
      // a write ignores these fields (parseRow reads them only for gets and requests)
      inputLen = 0
      mask = NO_MASK
      queryType = 'prefix_match'
    }
    const ids = sameKeys ? this.remembered.copyOfIds() : this.idsOfKeys(interner)
    if (keysStart >= 0) this.remembered.remember(b, keysStart, keysEnd, ids)
    const n = ids.length
    if (typeof mask === 'number') mask = Math.min(mask, n)
    const row: TraceRow = {type, instance, ts, keys: ids, inputLen, mask, queryType, lineNo}
    if (ttl !== undefined && type !== 'get') row.ttlUs = BigInt(ttl)
    return row
  }

  /** The ids of the keys read (zeros without an interner: a pre-pass counts them only). */
  private idsOfKeys(interner: KeyInterner | undefined): number[] {
    const k = this.keyHalves
    const n = k.length
    const ids = new Array<number>(n)
    if (interner === undefined) ids.fill(0)
    else {
      const {hi, lo} = k
      let id = -1
      for (let i = 0; i < n; i++) ids[i] = id = interner.idAfter(id, hi[i], lo[i])
    }
    return ids
  }
}
