// The fast lane of trace rows (simulate.md §3): one pass over the characters of a row in the layout `lmt convert`
// writes, keys looked up in the interner straight from their digits — no parsed object, no BigInt or string per
// key. It gives up (undefined) on anything unusual — escapes, repeated fields, keys beyond the int64 text forms
// it checks, odd masks — and parseRow, the exact path, then decides, errors and messages included.
import {
  HalvesList,
  integerArray,
  IntegerHalves,
  isDigit,
  numberEnd,
  skipWs,
  smallInteger,
  stringEnd,
  valueEnd,
} from '../jsonl/json-scan.js'
import type {KeyInterner} from './key-interner.js'
import type {RowType, TraceRow} from './trace-rows.js'

const INT64_MAX = 2n ** 63n - 1n
const NEG_LIMIT = '9223372036854775808' // |−2^63|
const POS_LIMIT = '18446744073709551615' // 2^64 − 1
const NO_MASK: boolean[] = []

const F_TYPE = 1
const F_INSTANCE = 2
const F_TS = 4
const F_KEYS = 8
const F_INPUT_LEN = 16
const F_MASK = 32
const F_QUERY = 64

function fieldOf(s: string, start: number, end: number): number {
  switch (end - start) {
    case 4:
      return s.startsWith('type', start) ? F_TYPE : s.startsWith('keys', start) ? F_KEYS : 0
    case 9:
      return s.startsWith('input_len', start) ? F_INPUT_LEN : 0
    case 10:
      return s.startsWith('block_mask', start) ? F_MASK : s.startsWith('query_type', start) ? F_QUERY : 0
    case 11:
      return s.startsWith('instance_id', start) ? F_INSTANCE : 0
    case 12:
      return s.startsWith('timestamp_ns', start) ? F_TS : 0
    default:
      return 0
  }
}

/** `digits` (a run of `n` digits at p) is at most `limit` (a digit string of the same length). */
function notAbove(s: string, p: number, n: number, limit: string): boolean {
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(p + i) - limit.charCodeAt(i)
    if (d !== 0) return d < 0
  }
  return true
}

/** Rule V8 on a key as written: an integer in [−2^63, 2^64 − 1] (checked on the digits from 19 on). */
function inKeyRange(int: IntegerHalves, s: string): boolean {
  const {digits, digitsAt, negative} = int
  if (digits > 20) return false
  if (negative) return digits < 19 || (digits === 19 && notAbove(s, digitsAt, 19, NEG_LIMIT))
  return digits < 20 || notAbove(s, digitsAt, 20, POS_LIMIT)
}

/** Reusable scratch of the scanner (one per trace read). */
export class RowScanner {
  end = 0
  private readonly keyHalves = new HalvesList()
  private lastInstance = ''

  /** A string without escapes at p: its text (the previous instance id reused when equal); end in `this.end`. */
  private plainString(s: string, p: number, reuse: boolean): string | undefined {
    const end = stringEnd(s, p, false)
    if (end < 0) return undefined
    this.end = end
    const n = end - p - 2
    if (reuse && n === this.lastInstance.length && s.startsWith(this.lastInstance, p + 1))
      return this.lastInstance
    const text = s.slice(p + 1, end - 1)
    if (reuse) this.lastInstance = text
    return text
  }

  /** The row, when its text is in the usual layout; undefined leaves the line to parseRow. */
  scan(s: string, lineNo: number, interner: KeyInterner): TraceRow | undefined {
    let type: RowType | undefined
    let instance: string | undefined
    let ts = 0n
    let inputLen = -1
    let mask: boolean[] | number = NO_MASK
    let maskBad = false
    let queryType: string | undefined = 'prefix_match'
    let seen = 0
    let p = skipWs(s, 0)
    if (s.charCodeAt(p) !== 0x7b) return undefined
    p = skipWs(s, p + 1)
    for (;;) {
      if (s.charCodeAt(p) !== 0x22) return undefined
      const keyEnd = stringEnd(s, p, false)
      if (keyEnd < 0) return undefined
      const field = fieldOf(s, p + 1, keyEnd - 1)
      if (field !== 0 && seen & field) return undefined
      seen |= field
      p = skipWs(s, keyEnd)
      if (s.charCodeAt(p) !== 0x3a) return undefined
      p = skipWs(s, p + 1)
      const c = s.charCodeAt(p)
      switch (field) {
        case F_TYPE: {
          if (c !== 0x22) return undefined
          const t = this.plainString(s, p, false)
          if (t !== 'get' && t !== 'write' && t !== 'request') return undefined
          type = t
          p = this.end
          break
        }
        case F_INSTANCE:
          if (c !== 0x22) return undefined
          instance = this.plainString(s, p, true)
          if (!instance) return undefined
          p = this.end
          break
        case F_TS: {
          const v = smallInteger(s, p, this)
          if (v >= 0) ts = BigInt(v)
          else {
            const end = numberEnd(s, p)
            if (end < 0 || c === 0x2d || end - p > 19) return undefined
            for (let i = p; i < end; i++) if (!isDigit(s.charCodeAt(i))) return undefined
            ts = BigInt(s.slice(p, end))
            if (ts > INT64_MAX) return undefined
            this.end = end
          }
          p = this.end
          break
        }
        case F_KEYS:
          if (c !== 0x5b) return undefined
          p = integerArray(s, p, this.keyHalves, inKeyRange)
          break
        case F_INPUT_LEN: {
          const v = smallInteger(s, p, this)
          if (v >= 1) {
            inputLen = v
            p = this.end
          } else p = valueEnd(s, p, 1) // only a get or request needs it: decided at the end
          break
        }
        case F_MASK: {
          if (c === 0x5b) {
            const open = p
            const q = skipWs(s, p + 1)
            if (s.charCodeAt(q) === 0x5d) {
              mask = []
              p = q + 1
            } else {
              const bools: boolean[] = []
              p = q
              for (;;) {
                if (s.startsWith('true', p)) {
                  bools.push(true)
                  p += 4
                } else if (s.startsWith('false', p)) {
                  bools.push(false)
                  p += 5
                } else {
                  maskBad = true
                  p = valueEnd(s, open, 1)
                  break
                }
                p = skipWs(s, p)
                const d = s.charCodeAt(p)
                if (d === 0x5d) {
                  p++
                  break
                }
                if (d !== 0x2c) return undefined
                p = skipWs(s, p + 1)
              }
              mask = bools
            }
          } else {
            const v = smallInteger(s, p, this)
            if (v >= 0) {
              mask = v
              p = this.end
            } else {
              maskBad = true
              p = valueEnd(s, p, 1)
            }
          }
          break
        }
        case F_QUERY:
          if (c === 0x22 && s.startsWith('"prefix_match"', p)) {
            queryType = 'prefix_match' // the usual value: no string per row
            p += 14
          } else if (c === 0x22) {
            queryType = this.plainString(s, p, false)
            p = queryType === undefined ? -1 : this.end
          } else {
            queryType = undefined
            p = valueEnd(s, p, 1)
          }
          break
        default:
          p = valueEnd(s, p, 1)
      }
      if (p < 0) return undefined
      p = skipWs(s, p)
      const d = s.charCodeAt(p)
      if (d === 0x7d) break
      if (d !== 0x2c) return undefined
      p = skipWs(s, p + 1)
    }
    if (skipWs(s, p + 1) !== s.length) return undefined
    if (type === undefined || instance === undefined || !(seen & F_TS) || !(seen & F_KEYS)) return undefined
    if (type !== 'write') {
      if (inputLen < 1 || maskBad || queryType === undefined) return undefined
    } else {
      // a write ignores these fields (parseRow reads them only for gets and requests)
      inputLen = 0
      mask = NO_MASK
      queryType = 'prefix_match'
    }
    const k = this.keyHalves
    const ids = new Array<number>(k.length)
    for (let i = 0; i < k.length; i++) ids[i] = interner.idOf(k.hi[i], k.lo[i])
    if (typeof mask === 'number') mask = Math.min(mask, ids.length)
    return {type, instance, ts, keys: ids, inputLen, mask, queryType, lineNo}
  }
}
