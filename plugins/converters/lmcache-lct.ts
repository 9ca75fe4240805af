import {
  BaseConverter,
  chosenDecoding,
  CodecError,
  type ConverterFlagValues,
  decodeArgs,
  type InputContext,
  KeyList,
  keyOfObjectKey,
  ObjectKey,
  openTrace,
  PrefetchRequestSpec,
  PyTuple,
  STORAGE_MANAGER_QUALNAME,
  type Trace,
} from 'lmt'
import {Flags} from 'lmt/flags'

function objectKeys(v: unknown): ObjectKey[] | undefined {
  const list = v instanceof PyTuple ? v.items : v
  return Array.isArray(list) && list.every((k) => k instanceof ObjectKey) ? (list as ObjectKey[]) : undefined
}

/**
 * LMCache storage `.lct` traces → Get+Write records: every `submit_prefetch_task` is a get (keys from the
 * ObjectKeys' chunk hashes, input_len = keys × chunk tokens), every `finish_write` a write; timestamps from t_wall;
 * the instance is the keys' model name (with `#<kv_rank>` for ranks other than 0).
 */
export class LmcacheLctConverter extends BaseConverter<{chunkTokens: number}> {
  static description = 'LMCache storage .lct traces (submit_prefetch_task → get, finish_write → write)'

  static flags = {
    'chunk-tokens': Flags.integer({
      summary:
        "Reading .lct traces (-f lmcache_lct): tokens per LMCache chunk (a get's input_len = keys × this).",
      default: 256,
      min: 1,
      helpGroup: 'INPUT',
    }),
  }

  /** tokens per LMCache chunk: a get's input_len is its keys × this */
  static parseOptions(flags: ConverterFlagValues): {chunkTokens: number} {
    const n = flags['chunk-tokens']
    return {chunkTokens: typeof n === 'number' ? n : 256}
  }

  async *convertToTraces(inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const chunkTokens = BigInt((this.options.settings ?? LmcacheLctConverter.parseOptions({})).chunkTokens)
    const reader = await openTrace(inputPath, {decoding: chosenDecoding()})
    try {
      for await (const r of reader) {
        const op = r.qualname.slice(STORAGE_MANAGER_QUALNAME.length + 1)
        const ours = r.qualname === `${STORAGE_MANAGER_QUALNAME}.${op}`
        if (!ours || (op !== 'submit_prefetch_task' && op !== 'finish_write')) {
          ctx.note('unmapped_records')
          continue
        }
        let args
        try {
          args = decodeArgs(r.args)
        } catch (err) {
          if (!(err instanceof CodecError)) throw err
          ctx.note('undecodable_records')
          continue
        }
        const keys = objectKeys(args.spec instanceof PrefetchRequestSpec ? args.spec.keys : args.keys)
        if (!keys || keys.length === 0) {
          ctx.note(keys ? 'empty_key_records' : 'unmapped_records')
          continue
        }
        const ns = Math.round(r.tWall * 1e9)
        if (!Number.isFinite(ns)) {
          ctx.note('invalid_time_records') // t_wall NaN or ±∞, or beyond ±1.8e299 s: no timestamp
          continue
        }
        const k0 = keys[0]
        const instance = Number(k0.kvRank) === 0 ? k0.modelName : `${k0.modelName}#${k0.kvRank}`
        const list = KeyList.from(keys.map(keyOfObjectKey))
        const ts = BigInt(ns)
        if (op === 'submit_prefetch_task')
          yield this.createGetTrace(ts, list, instance, {inputLen: BigInt(keys.length) * chunkTokens})
        else yield this.createWriteTrace(ts, list, instance)
      }
    } finally {
      await reader.close()
    }
  }
}
