import {isUtf8} from 'node:buffer'
import {MAX_NESTING} from '../constants.js'

/**
 * The counting path's fast lane: plain functions over the bytes, no reader object, no exceptions, no values built.
 * Each answers "valid, and here is where it ends" or "not sure" (-1 / false); on "not sure" the caller runs the
 * exact decoder, which produces the same outcome and the precise message. So the fast lane only ever has to accept
 * a subset of what the exact path accepts — it never decides an error.
 */

/** Position after one valid msgpack value at `pos` under lmt's rules (docs/lct.md §4.5), or -1. */
export function skipValid(buf: Uint8Array, pos: number, end: number, depth: number): number {
  if (pos >= end) return -1
  const b = buf[pos++]
  if (b <= 0x7f || b >= 0xe0) return pos
  if (b <= 0x8f) return skipMapBody(buf, pos, end, b & 0x0f, depth)
  if (b <= 0x9f) return skipArrayBody(buf, pos, end, b & 0x0f, depth)
  if (b <= 0xbf) return skipStrBody(buf, pos, end, b & 0x1f)
  let n: number
  switch (b) {
    case 0xc0:
    case 0xc2:
    case 0xc3:
      return pos
    case 0xcc:
    case 0xd0:
      n = 1
      break
    case 0xcd:
    case 0xd1:
      n = 2
      break
    case 0xca:
    case 0xce:
    case 0xd2:
      n = 4
      break
    case 0xcb:
    case 0xcf:
    case 0xd3:
      n = 8
      break
    case 0xc4:
      if (pos + 1 > end) return -1
      n = 1 + buf[pos]
      break
    case 0xc5:
      if (pos + 2 > end) return -1
      n = 2 + ((buf[pos] << 8) | buf[pos + 1])
      break
    case 0xd9:
      if (pos + 1 > end) return -1
      return skipStrBody(buf, pos + 1, end, buf[pos])
    case 0xda:
      if (pos + 2 > end) return -1
      return skipStrBody(buf, pos + 2, end, (buf[pos] << 8) | buf[pos + 1])
    case 0xdc:
      if (pos + 2 > end) return -1
      return skipArrayBody(buf, pos + 2, end, (buf[pos] << 8) | buf[pos + 1], depth)
    case 0xde:
      if (pos + 2 > end) return -1
      return skipMapBody(buf, pos + 2, end, (buf[pos] << 8) | buf[pos + 1], depth)
    default:
      return -1 // 32-bit lengths, ext and invalid bytes: rare, left to the exact path
  }
  return pos + n <= end ? pos + n : -1
}

function skipStrBody(buf: Uint8Array, pos: number, end: number, n: number): number {
  const stop = pos + n
  if (stop > end) return -1
  // any byte ≥ 0x80? (four at a time: the loop, not the loads, is the cost)
  let acc = 0
  let i = pos
  for (; i + 4 <= stop; i += 4) acc |= buf[i] | buf[i + 1] | buf[i + 2] | buf[i + 3]
  for (; i < stop; i++) acc |= buf[i]
  if (acc & 0x80 && !isUtf8(buf.subarray(pos, stop))) return -1
  return stop
}

function skipArrayBody(buf: Uint8Array, pos: number, end: number, n: number, depth: number): number {
  if (depth >= MAX_NESTING) return -1
  for (let i = 0; i < n; i++) {
    if (pos >= end) return -1
    const b = buf[pos]
    if (b <= 0x7f || b >= 0xe0) pos++
    else pos = skipValid(buf, pos, end, depth + 1)
    if (pos < 0) return -1
  }
  return pos
}

function skipMapBody(buf: Uint8Array, pos: number, end: number, n: number, depth: number): number {
  if (depth >= MAX_NESTING) return -1
  for (let i = 0; i < n; i++) {
    if (pos >= end) return -1
    let b = buf[pos]
    // keys: str or int only; fixstr keys (nearly all) inline
    if (b >= 0xa0 && b <= 0xbf) pos = skipStrBody(buf, pos + 1, end, b & 0x1f)
    else if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3) || b === 0xd9 || b === 0xda)
      pos = skipValid(buf, pos, end, depth + 1)
    else return -1
    if (pos < 0 || pos >= end) return -1
    b = buf[pos]
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) pos++
    else if (b >= 0xa0 && b <= 0xbf) pos = skipStrBody(buf, pos + 1, end, b & 0x1f)
    else pos = skipValid(buf, pos, end, depth + 1)
    if (pos < 0) return -1
  }
  return pos
}

/** What {@link fastScanRecord} found: the record's t_mono and where its qualname's bytes are. */
export interface ScannedRecord {
  tMono: number
  qualnameStart: number
  qualnameLength: number
}

const F64 = new Float64Array(1)
const F64_BYTES = new Uint8Array(F64.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

function readF64(buf: Uint8Array, at: number): number {
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) F64_BYTES[i] = buf[at + 7 - i]
  else for (let i = 0; i < 8; i++) F64_BYTES[i] = buf[at + i]
  return F64[0]
}

// fixstr keys of a record as bytes after the header byte: type, t_mono, t_wall, qualname, args
const TYPE = 0
const T_MONO = 1
const T_WALL = 2
const QUALNAME = 3
const ARGS = 4
const QUALNAME_BYTES = Uint8Array.from([0x71, 0x75, 0x61, 0x6c, 0x6e, 0x61, 0x6d, 0x65]) // "qualname"
const RECORD_TAG = Uint8Array.from([0xa6, 0x72, 0x65, 0x63, 0x6f, 0x72, 0x64]) // fixstr "record"

function keyId(buf: Uint8Array, p: number, n: number): number {
  // p: first byte of the key text, n its length; the five names differ in length or first bytes
  switch (n) {
    case 4:
      if (buf[p] === 0x74 && buf[p + 1] === 0x79 && buf[p + 2] === 0x70 && buf[p + 3] === 0x65) return TYPE
      if (buf[p] === 0x61 && buf[p + 1] === 0x72 && buf[p + 2] === 0x67 && buf[p + 3] === 0x73) return ARGS
      return -1
    case 6:
      if (buf[p] !== 0x74 || buf[p + 1] !== 0x5f) return -1 // "t_"
      if (buf[p + 2] === 0x6d && buf[p + 3] === 0x6f && buf[p + 4] === 0x6e && buf[p + 5] === 0x6f)
        return T_MONO
      if (buf[p + 2] === 0x77 && buf[p + 3] === 0x61 && buf[p + 4] === 0x6c && buf[p + 5] === 0x6c)
        return T_WALL
      return -1
    case 8:
      for (let i = 0; i < 8; i++) if (buf[p + i] !== QUALNAME_BYTES[i]) return -1
      return QUALNAME
    default:
      return -1
  }
}

/**
 * Validates a record body in its usual shape (a fixmap of fixstr keys; t_mono a float64 or a small int; qualname a
 * str; args a map of str keys; every value valid) and fills `out`. False when the body is unusual or invalid in
 * any way: then the exact decoder decides.
 *
 * One function on purpose (~90 lines): it is the per-record loop of `countTrace`, a switch over the five fields with
 * its position in a local; split into calls, each field would hand its position back and forth. It is pinned to the
 * exact path (`decodeRecordBody`) on every fixture record and on mutated ones by test/formats/lct/fast-scan.test.ts, and
 * `countTrace` to the full reader by test/formats/lct/fuzz.test.ts.
 */
export function fastScanRecord(buf: Uint8Array, start: number, end: number, out: ScannedRecord): boolean {
  if (start >= end) return false
  const h = buf[start]
  if (h < 0x80 || h > 0x8f) return false
  const n = h & 0x0f
  let pos = start + 1
  let seen = 0
  for (let i = 0; i < n; i++) {
    if (pos >= end) return false
    const kb = buf[pos]
    if (kb < 0xa0 || kb > 0xbf) return false
    const kn = kb & 0x1f
    if (pos + 1 + kn > end) return false
    const id = keyId(buf, pos + 1, kn)
    if (id < 0) {
      pos = skipValid(buf, pos, end, 1) // unknown key: validated, then its value
      if (pos < 0) return false
      pos = skipValid(buf, pos, end, 1)
      if (pos < 0) return false
      continue
    }
    if (seen & (1 << id)) return false // a repeated field: the exact path knows which one wins
    seen |= 1 << id
    pos += 1 + kn
    if (pos >= end) return false
    const vb = buf[pos]
    switch (id) {
      case TYPE:
        if (pos + 7 > end) return false
        for (let j = 0; j < 7; j++) if (buf[pos + j] !== RECORD_TAG[j]) return false
        pos += 7
        break
      case T_MONO:
        if (vb === 0xcb) {
          if (pos + 9 > end) return false
          out.tMono = readF64(buf, pos + 1)
          pos += 9
        } else if (vb <= 0x7f) {
          out.tMono = vb
          pos += 1
        } else return false
        break
      case T_WALL:
        if (vb !== 0xcb && !(vb <= 0x7f) && !(vb >= 0xcc && vb <= 0xd3) && vb !== 0xca && vb < 0xe0)
          return false
        pos = skipValid(buf, pos, end, 1)
        if (pos < 0) return false
        break
      case QUALNAME: {
        let len: number
        let head: number
        if (vb >= 0xa0 && vb <= 0xbf) {
          len = vb & 0x1f
          head = 1
        } else if (vb === 0xd9) {
          if (pos + 2 > end) return false
          len = buf[pos + 1]
          head = 2
        } else return false
        if (pos + head + len > end) return false
        out.qualnameStart = pos + head
        out.qualnameLength = len
        pos += head + len // UTF-8 checked by the caller when it first decodes the name
        break
      }
      case ARGS: {
        let m: number
        if (vb >= 0x80 && vb <= 0x8f) {
          m = vb & 0x0f
          pos += 1
        } else if (vb === 0xde) {
          if (pos + 3 > end) return false
          m = (buf[pos + 1] << 8) | buf[pos + 2]
          pos += 3
        } else return false
        for (let j = 0; j < m; j++) {
          if (pos >= end) return false
          const ak = buf[pos]
          if (!((ak >= 0xa0 && ak <= 0xbf) || ak === 0xd9)) return false // args keys must be str
          pos = skipValid(buf, pos, end, 2)
          if (pos < 0) return false
          pos = skipValid(buf, pos, end, 2)
          if (pos < 0) return false
        }
        break
      }
    }
  }
  // t_mono, t_wall, qualname and args are required; type is optional
  return pos === end && (seen & 0b11110) === 0b11110
}
