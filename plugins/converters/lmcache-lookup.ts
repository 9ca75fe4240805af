import {
  BaseConverter,
  type FormatSample,
  hashKey64,
  type InputContext,
  lookupLogFiles,
  parseLookupLine,
  type Trace,
} from 'lmt'

/**
 * LMCache's lookup-hash log (`--lookup-hash-log-dir`): one JSON line per lookup, in rotated
 * `lookup_hashes_*.jsonl` files (a directory input stands for them, in LMCache's order: by name). Each lookup
 * becomes a get (`input_len` = `seq_len`, the partial last chunk included; keys = the full chunks' hashes) and its
 * write, for the instance named by `model_name`, whose block size is the logged `chunk_size`. Hashes are opaque: a
 * 32-byte hex digest keeps its first 64 bits, an integer (or `hex(int)`, negative ones included) is the key itself.
 */
export class LmcacheLookupConverter extends BaseConverter {
  static description = 'LMCache lookup-hash logs (a log directory or its lookup_hashes_*.jsonl files)'

  static looksLike(sample: FormatSample): boolean {
    const r = sample.record as Record<string, unknown> | undefined
    return (
      r !== null &&
      typeof r === 'object' &&
      Array.isArray(r.chunk_hashes) &&
      'seq_len' in r &&
      'chunk_size' in r
    )
  }

  static inputFiles(directory: string): string[] {
    return lookupLogFiles([directory])
  }

  async *convertToTraces(inputPath: string, ctx: InputContext): AsyncIterable<Trace> {
    const given = new Set(this.instanceBlockSizes.keys())
    for await (const line of ctx.lines()) {
      const ev = parseLookupLine(line.text, inputPath, line.lineNo)
      if (typeof ev === 'string') {
        ctx.skip(line, 'invalid_lookup', ev)
        continue
      }
      if (ev.seqLen === 0) {
        ctx.drop(line, 'empty_lookup') // no tokens: nothing to look up (LMCache's simulator passes over it too)
        continue
      }
      const instance = ev.model ?? this.defaultInstanceId
      if (!given.has(instance)) {
        const known = this.instanceBlockSizes.get(instance)
        if (known !== undefined && known !== ev.chunkSize) {
          ctx.skip(
            line,
            'chunk_size_changed',
            `chunk_size ${ev.chunkSize}, but ${known} earlier for ${instance}`,
          )
          continue
        }
        this.instanceBlockSizes.set(instance, ev.chunkSize)
      }
      const keys = ev.hashes.map(hashKey64)
      // microseconds: a float of epoch seconds holds no finer time
      const t = BigInt(Math.round(ev.timestamp * 1e6)) * 1000n
      yield this.createGetTrace(t, keys, instance, {inputLen: ev.seqLen})
      yield this.createWriteTrace(t + 1n, keys, instance)
      ctx.converted(line)
    }
  }
}
