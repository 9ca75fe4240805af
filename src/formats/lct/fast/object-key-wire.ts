// The usual wire form of an ObjectKey, read straight from its bytes (the replay's hot path meets one per new key).
import {ObjectKey} from '../values.js'

const ascii = (s: string) => [...Buffer.from(s, 'latin1')]
/** `{"__t__": "ObjectKey", "v": {"chunk_hash": …` up to the chunk hash's bin8 header */
const HEAD = Uint8Array.from([
  0x82,
  0xa5,
  ...ascii('__t__'),
  0xa9,
  ...ascii('ObjectKey'),
  0xa1,
  ...ascii('v'),
  0x85,
  0xaa,
  ...ascii('chunk_hash'),
  0xc4,
])
const MODEL = Uint8Array.from([0xaa, ...ascii('model_name')])
const RANK = Uint8Array.from([0xa7, ...ascii('kv_rank')])
const GROUP = Uint8Array.from([0xaf, ...ascii('object_group_id')])
const SALT = Uint8Array.from([0xaa, ...ascii('cache_salt')])

function matches(buf: Uint8Array, at: number, bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false
  return true
}

/**
 * The ObjectKey at `[start, end)` when it has exactly the layout LMCache and lmt write (canonical field order, bin8
 * hash, short ASCII strings, small non-negative ints) and passes ObjectKey's checks; otherwise undefined, and the
 * general decoder (which reports any error) takes it. Values are those the general decoder gives.
 */
export function canonicalObjectKey(buf: Uint8Array, start: number, end: number): ObjectKey | undefined {
  if (end - start > 512 || !matches(buf, start, HEAD)) return undefined
  let p = start + HEAD.length
  const hashLength = buf[p]
  const hashStart = p + 1
  p = hashStart + hashLength
  if (p + MODEL.length > end || !matches(buf, p, MODEL)) return undefined
  p += MODEL.length
  const model = shortAscii(buf, p, end)
  if (model === undefined) return undefined
  p = nextPos
  if (p + RANK.length > end || !matches(buf, p, RANK)) return undefined
  p += RANK.length
  const rank = smallUint(buf, p, end)
  if (rank < 0) return undefined
  p = nextPos
  if (p + GROUP.length > end || !matches(buf, p, GROUP)) return undefined
  p += GROUP.length
  const group = smallUint(buf, p, end)
  if (group < 0) return undefined
  p = nextPos
  if (p + SALT.length > end || !matches(buf, p, SALT)) return undefined
  p += SALT.length
  const salt = shortAscii(buf, p, end)
  if (salt === undefined || nextPos !== end) return undefined
  // ObjectKey's rules (an ASCII salt has as many code points as characters); a breach is the general path's error
  // eslint-disable-next-line no-control-regex -- NUL is one of the forbidden characters
  if (model.includes('@') || salt.length > 128 || /[@/\\\u0000]/.test(salt)) return undefined
  return new ObjectKey(hashCopy(buf, hashStart, hashStart + hashLength), model, rank, group, salt)
}

const HASH_CHUNK_BYTES = 64 << 10
/** where the hashes of keys read from Buffers are copied: one ArrayBuffer for many keys (less for the collector) */
let hashChunk = Buffer.allocUnsafeSlow(HASH_CHUNK_BYTES)
let hashUsed = 0

/**
 * A copy of `buf[start, end)` (at most 255 bytes), of the type the general decoder's slice gives: a Buffer, carved
 * from a shared chunk, for a Buffer; a Uint8Array of its own otherwise.
 */
function hashCopy(buf: Uint8Array, start: number, end: number): Uint8Array {
  if (!Buffer.isBuffer(buf)) return Uint8Array.prototype.slice.call(buf, start, end) as Uint8Array
  const n = end - start
  if (hashUsed + n > HASH_CHUNK_BYTES) {
    hashChunk = Buffer.allocUnsafeSlow(HASH_CHUNK_BYTES)
    hashUsed = 0
  }
  for (let i = 0; i < n; i++) hashChunk[hashUsed + i] = buf[start + i]
  const out = Buffer.from(hashChunk.buffer, hashChunk.byteOffset + hashUsed, n)
  hashUsed += n
  return out
}

/** the last string {@link shortAscii} built (ASCII only) */
let lastAscii = ''

/** where the last value read by {@link shortAscii} or {@link smallUint} ended */
let nextPos = 0

/** A fixstr or str8 of ASCII bytes, or undefined. */
function shortAscii(buf: Uint8Array, p: number, end: number): string | undefined {
  const b = buf[p]
  let n: number
  let s: number
  if (b >= 0xa0 && b <= 0xbf) {
    n = b & 0x1f
    s = p + 1
  } else if (b === 0xd9) {
    n = buf[p + 1]
    s = p + 2
  } else return undefined
  if (s + n > end) return undefined
  nextPos = s + n
  if (n === 0) return ''
  // model names (and salts) repeat key after key: the string read last is reused when the bytes are the same
  if (n === lastAscii.length) {
    let same = true
    for (let i = 0; i < n && same; i++) same = buf[s + i] === lastAscii.charCodeAt(i)
    if (same) return lastAscii
  }
  let out = ''
  for (let i = s; i < s + n; i++) {
    const c = buf[i]
    if (c >= 0x80) return undefined
    out += String.fromCharCode(c)
  }
  lastAscii = out
  return out
}

/** A positive fixint, uint8 or uint16, or -1. */
function smallUint(buf: Uint8Array, p: number, end: number): number {
  const b = buf[p]
  if (b <= 0x7f) {
    nextPos = p + 1
    return b
  }
  if (b === 0xcc && p + 2 <= end) {
    nextPos = p + 2
    return buf[p + 1]
  }
  if (b === 0xcd && p + 3 <= end) {
    nextPos = p + 3
    return (buf[p + 1] << 8) | buf[p + 2]
  }
  return -1
}
