import {closeSync, openSync, rmSync, writeSync} from 'node:fs'
import {lmtError, OUTPUT_WRITE_HINT} from '../../errors.js'
import {formatG} from '../../util/format-g.js'
import {grown} from '../../util/grown.js'
import {targetOfTemp} from '../../util/atomic-write.js'

export const CSV_HEADER =
  'TimestampNs,CachedBlocks,CachedBlocksAllInstances,ReadBlocks,LocalHitBlocks,RemoteHitBlocks,HitBlocks,InputTokens,LocalHitTokens,RemoteHitTokens,HitTokens,LocalHitRate,RemoteHitRate,HitRate,AccReadBlocks,AccHitBlocks,AccInputTokens,AccLocalHitTokens,AccRemoteHitTokens,AccHitTokens,AccLocalHitRate,AccRemoteHitRate,AccHitRate,AccWriteBlocks'

/** Writes 0 ≤ n < 2^31 in decimal at `pos`; returns the position after it. */
function putDigits(buf: Uint8Array, pos: number, n: number): number {
  let digits = 1
  for (let v = n; v >= 10; v = (v / 10) | 0) digits++
  let p = pos + digits
  let v = n
  do {
    const q = (v / 10) | 0
    buf[--p] = 0x30 + v - q * 10
    v = q
  } while (v > 0)
  return pos + digits
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

export function rate(a: number, b: number): number {
  return b > 0 ? a / b : 0
}

/**
 * One instance's `<id>_hit_rates.csv`, written to `path`: a fresh temporary name (created exclusively: never a file
 * or link someone put there), renamed into place with the run's other outputs.
 */
export class HitRateCsv {
  private fd: number
  // rows are ASCII: copied into one byte buffer as they come (latin1 is a plain copy), written when it fills
  private buf = Buffer.allocUnsafe(1 << 20)
  private used = 0

  constructor(
    readonly path: string,
    header = CSV_HEADER,
  ) {
    this.fd = openSync(path, 'wx', 0o666)
    this.write(header + '\n')
  }

  /** Appends `src[start, end)` (ASCII bytes). */
  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start
    if (this.used + n > this.buf.length) {
      this.flush()
      if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n)
    }
    const buf = this.buf
    let p = this.used
    for (let i = start; i < end; i++) buf[p++] = src[i] // a row's few hundred bytes: a loop beats a view and a call
    this.used = p
  }

  /** Appends a non-negative integer and the line end. */
  intLine(n: number): void {
    if (!(n >= 0 && n < 2147483648)) return this.write(`${n}\n`)
    if (this.used + 12 > this.buf.length) this.flush()
    const end = putDigits(this.buf, this.used, n)
    this.buf[end] = 0x0a
    this.used = end + 1
  }

  write(text: string): void {
    if (this.used + text.length > this.buf.length) {
      this.flush()
      if (text.length > this.buf.length) this.buf = Buffer.allocUnsafe(text.length)
    }
    this.used += this.buf.write(text, this.used, 'latin1')
  }

  private flush(): void {
    let off = 0
    try {
      while (off < this.used) off += writeSync(this.fd, this.buf, off, this.used - off)
    } catch (err) {
      throw this.failure(err)
    }
    this.used = 0
  }

  /** writes what is buffered and closes the file (complete; else {@link abandon}) */
  finish(): void {
    this.flush()
    const fd = this.fd
    this.fd = -1 // closed even when close fails: the descriptor is gone either way
    try {
      closeSync(fd)
    } catch (err) {
      throw this.failure(err)
    }
  }

  private failure(err: unknown): Error {
    return lmtError('SIM_OUTPUT_FAILED', `cannot write ${targetOfTemp(this.path)}`, (err as Error).message, {
      suggestions: [OUTPUT_WRITE_HINT],
    })
  }

  abandon(): void {
    if (this.fd >= 0) {
      const fd = this.fd
      this.fd = -1
      try {
        closeSync(fd)
      } catch {
        // the temporary file is removed below all the same
      }
    }
    rmSync(this.path, {force: true})
  }
}

/** The running totals of an instance a CSV row repeats (the instance's counters, passed as they are). */
export interface AccumulatedCounts {
  read_blocks: number
  hit_blocks: number
  input_tokens: number
  local_hit_tokens: number
  remote_hit_tokens: number
  hit_tokens: number
}

/**
 * CSV row prefixes written as ASCII bytes (digits by a loop, no string per field): the rows of one timestamp wait
 * here until AccWriteBlocks is known, then move to their instance's file.
 */
export class CsvRowBuffer {
  buf = new Uint8Array(1 << 16)
  used = 0

  private room(n: number): void {
    if (this.used + n <= this.buf.length) return
    this.buf = grown(this.buf, Math.max(this.buf.length * 2, this.used + n), this.used)
  }

  ascii(s: string): void {
    this.room(s.length)
    const buf = this.buf
    let p = this.used
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i)
    this.used = p
  }

  /**
   * `%g` of the rate a/b (0 when b is 0), then a comma. Rates in [1e-4, 1) are written from one rounded
   * product: x·10^k is within 2^-53 relative of its exact value, so unless its fraction is within 1e-6 of a half
   * the rounding is the correctly rounded one C uses; every other value goes through {@link formatG}.
   */
  rate(a: number, b: number): void {
    const x = b > 0 ? a / b : 0
    if (x >= 0.0001 && x < 1) {
      const k = x >= 0.1 ? 6 : x >= 0.01 ? 7 : x >= 0.001 ? 8 : 9
      const y = x * POW10[k]
      const r = Math.round(y)
      const f = y - Math.floor(y)
      if (r < POW10[k] && (f < 0.499999 || f > 0.500001)) {
        this.room(k + 3)
        const buf = this.buf
        let p = this.used
        buf[p++] = 0x30
        buf[p++] = 0x2e
        // r with k digits (leading zeros kept), then the trailing zeros dropped
        let v = r
        let end = p + k
        for (let i = end - 1; i >= p; i--) {
          const q = (v / 10) | 0
          buf[i] = 0x30 + v - q * 10
          v = q
        }
        while (buf[end - 1] === 0x30) end--
        buf[end] = 0x2c
        this.used = end + 1
        return
      }
    }
    this.ascii(formatG(x) + ',')
  }

  /** A non-negative integer (counters), then a comma. */
  int(n: number): void {
    if (!(n >= 0 && n < 2147483648)) return this.ascii(`${n},`)
    this.room(11)
    const end = putDigits(this.buf, this.used, n)
    this.buf[end] = 0x2c
    this.used = end + 1
  }

  clear(): void {
    this.used = 0
  }
}

/** The numbers of one read record known at its get (AccWriteBlocks comes once its timestamp is over). */
export interface ReadRecord {
  cached: number
  cachedAll: number
  read: number
  localHit: number
  remoteHit: number
  inputTokens: number
  bs: number
}

/** A zeroed {@link ReadRecord}, for a caller that fills and reuses one. */
export function newReadRecord(): ReadRecord {
  return {cached: 0, cachedAll: 0, read: 0, localHit: 0, remoteHit: 0, inputTokens: 0, bs: 0}
}

export function newAccumulatedCounts(): AccumulatedCounts {
  return {
    read_blocks: 0,
    hit_blocks: 0,
    input_tokens: 0,
    local_hit_tokens: 0,
    remote_hit_tokens: 0,
    hit_tokens: 0,
  }
}

/** Writes the fields of a read record known at the get (AccWriteBlocks is added when the timestamp is over). */
export function writeCsvRowPrefix(
  out: CsvRowBuffer,
  ts: bigint,
  r: ReadRecord,
  acc: AccumulatedCounts,
): void {
  const {cached, cachedAll, read, localHit, remoteHit, inputTokens, bs} = r
  const hit = localHit + remoteHit
  const lt = localHit * bs
  const rt = remoteHit * bs
  const ht = hit * bs
  out.ascii(`${ts},`)
  out.int(cached)
  out.int(cachedAll)
  out.int(read)
  out.int(localHit)
  out.int(remoteHit)
  out.int(hit)
  out.int(inputTokens)
  out.int(lt)
  out.int(rt)
  out.int(ht)
  out.rate(lt, inputTokens)
  out.rate(rt, inputTokens)
  out.rate(ht, inputTokens)
  out.int(acc.read_blocks)
  out.int(acc.hit_blocks)
  out.int(acc.input_tokens)
  out.int(acc.local_hit_tokens)
  out.int(acc.remote_hit_tokens)
  out.int(acc.hit_tokens)
  out.rate(acc.local_hit_tokens, acc.input_tokens)
  out.rate(acc.remote_hit_tokens, acc.input_tokens)
  out.rate(acc.hit_tokens, acc.input_tokens)
}
