import {closeSync, openSync, renameSync, rmSync, writeSync} from 'node:fs'
import {formatG} from './format-g.js'

export const CSV_HEADER =
  'TimestampNs,CachedBlocks,CachedBlocksAllInstances,ReadBlocks,LocalHitBlocks,RemoteHitBlocks,HitBlocks,InputTokens,LocalHitTokens,RemoteHitTokens,HitTokens,LocalHitRate,RemoteHitRate,HitRate,AccReadBlocks,AccHitBlocks,AccInputTokens,AccLocalHitTokens,AccRemoteHitTokens,AccHitTokens,AccLocalHitRate,AccRemoteHitRate,AccHitRate,AccWriteBlocks'

export function rate(a: number, b: number): number {
  return b > 0 ? a / b : 0
}

/** One instance's `<id>_hit_rates.csv`, written to `<path>.tmp` and renamed on {@link commit}. */
export class HitRateCsv {
  private fd: number
  // rows are ASCII: copied into one byte buffer as they come (latin1 is a plain copy), written when it fills
  private buf = Buffer.allocUnsafe(1 << 20)
  private used = 0

  constructor(readonly path: string) {
    this.fd = openSync(path + '.tmp', 'w')
    this.write(CSV_HEADER + '\n')
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
    while (off < this.used) off += writeSync(this.fd, this.buf, off, this.used - off)
    this.used = 0
  }

  commit(): void {
    this.flush()
    closeSync(this.fd)
    renameSync(this.path + '.tmp', this.path)
  }

  abandon(): void {
    try {
      closeSync(this.fd)
    } catch {
      // closed
    }
    rmSync(this.path + '.tmp', {force: true})
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

/** The fields of a read record known at the get; AccWriteBlocks is filled when the timestamp is over. */
export function csvRowPrefix(
  ts: bigint,
  cached: number,
  cachedAll: number,
  read: number,
  localHit: number,
  remoteHit: number,
  inputTokens: number,
  bs: number,
  acc: AccumulatedCounts,
): string {
  const hit = localHit + remoteHit
  const lt = localHit * bs
  const rt = remoteHit * bs
  const ht = hit * bs
  // one template literal: this runs once per replayed get
  return `${ts},${cached},${cachedAll},${read},${localHit},${remoteHit},${hit},${inputTokens},${lt},${rt},${ht},${formatG(
    rate(lt, inputTokens),
  )},${formatG(rate(rt, inputTokens))},${formatG(rate(ht, inputTokens))},${acc.read_blocks},${acc.hit_blocks},${acc.input_tokens},${
    acc.local_hit_tokens
  },${acc.remote_hit_tokens},${acc.hit_tokens},${formatG(rate(acc.local_hit_tokens, acc.input_tokens))},${formatG(
    rate(acc.remote_hit_tokens, acc.input_tokens),
  )},${formatG(rate(acc.hit_tokens, acc.input_tokens))}`
}
