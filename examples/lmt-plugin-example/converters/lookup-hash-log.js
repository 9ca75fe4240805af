// A converter example: a lookup log with integer chunk hashes → Get+Write records. LMCache's own lookup-hash logs
// (hex hashes, rotated files in a directory) are read by lmt's built-in format lmcache_lookup.
import {BaseConverter, lmtError, parseJson, pythonInt} from 'lmt'
import {Flags} from 'lmt/flags'

/**
 * One JSON object per line: {"timestamp": <epoch s>, "request_id", "model_name", "chunk_size", "seq_len",
 * "chunk_hashes": [<int>, …]}. Each line becomes a get (keys = the chunk hashes of the full chunks, input_len =
 * seq_len) and its write (all chunk hashes), for the instance named by model_name.
 */
export class LookupHashLogConverter extends BaseConverter {
  static description =
    'Example: lookup log with integer chunk hashes (for LMCache lookup-hash logs use the built-in lmcache_lookup)'
  static aliases = ['lookup_hashes']
  static flags = {
    'lookup-model': Flags.string({
      summary: 'Instance id of the lines that name no model_name (default: --instance-id).',
      helpGroup: 'LOOKUP_HASH_LOG',
    }),
  }

  /** @returns {{model?: string}} what the converter gets as `this.options.settings` */
  static parseOptions(flags) {
    const model = flags['lookup-model']
    if (model !== undefined && model.trim() === '')
      throw lmtError('PLUGIN_USAGE', '--lookup-model must name a model', {
        suggestions: ['leave --lookup-model out to use --instance-id'],
      })
    return {model}
  }

  async *convertToTraces(_inputPath, ctx) {
    for await (const line of ctx.lines()) {
      let row
      try {
        row = parseJson(line.text)
      } catch (err) {
        ctx.skip(line, 'invalid_json', `invalid JSON: ${err.message}`)
        continue
      }
      if (!(row instanceof Map)) {
        ctx.skip(line, 'not_an_object', 'the line is not a JSON object')
        continue
      }
      const ts = row.get('timestamp')
      const seconds = typeof ts === 'number' || typeof ts === 'bigint' ? Number(ts) : ts?.value
      if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
        ctx.skip(line, 'invalid_timestamp', 'timestamp is not a number of seconds')
        continue
      }
      const seqLen = pythonInt(row.get('seq_len'))
      if (seqLen === undefined || seqLen <= 0n) {
        ctx.skip(line, 'invalid_seq_len', 'seq_len must be a positive integer')
        continue
      }
      const hashes = row.get('chunk_hashes')
      if (!Array.isArray(hashes) || !hashes.every((h) => typeof h === 'number' || typeof h === 'bigint')) {
        ctx.skip(line, 'invalid_chunk_hashes', 'chunk_hashes must be a list of integers')
        continue
      }
      const chunk = pythonInt(row.get('chunk_size'))
      if (chunk === undefined || chunk <= 0n) {
        ctx.skip(line, 'invalid_chunk_size', 'chunk_size must be a positive integer')
        continue
      }
      const instance =
        typeof row.get('model_name') === 'string'
          ? row.get('model_name')
          : (this.options.settings?.model ?? this.defaultInstanceId)
      this.instanceBlockSizes.set(instance, Number(chunk)) // the chunk size is the block size of this log
      const keys = hashes.map((h) => BigInt.asIntN(64, BigInt(h)))
      const t = BigInt(Math.trunc(seconds * 1e9))
      const get = this.createGetTrace(t, keys, instance, {inputLen: seqLen})
      yield get
      yield this.createWriteTrace(t + 1n, keys, instance)
      ctx.converted(line)
    }
  }
}
