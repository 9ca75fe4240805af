import {existsSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import {availableParallelism} from 'node:os'
import {join, resolve} from 'node:path'
import {BaseConverter, type InputContext, KeyList, lmtError} from '../../src/index.js'
import type {FormatSample, Trace} from '../../src/index.js'
import {looksLikeTextRecord} from './_shared/format-samples.js'
import type {TextRowConfig, TextRowResult} from './_shared/text-rows.js'
import {sharedModule} from './_shared/mapper-module.js'

// the mapper runs on worker threads
const ROW_DECODER = sharedModule('text-rows')
const REQUIRED_FILES = ['tokenizer.json', 'tokenizer_config.json']

/**
 * Timestamped text or chat records tokenized with a Hugging Face tokenizer (offline by default): a get with the
 * full-block keys and a write keeping the partial tail key. Tokenization runs on `numWorkers` worker threads;
 * timestamps are allocated here in input order, so the output does not depend on the worker count. Encoding uses
 * the Rust `tokenizers` package when installed (same ids; LMT_TEXT_TOKENIZER=transformers forces
 * @huggingface/transformers).
 */
export class TextTraceConverter extends BaseConverter {
  static description = 'Timestamped text or chat records, tokenized with a Hugging Face tokenizer'
  static aliases = ['text']

  static looksLike(sample: FormatSample): boolean {
    return looksLikeTextRecord(sample)
  }

  private tokenizerDir: string | undefined

  async init(): Promise<void> {
    try {
      // resolved, not imported: with worker threads only the workers load it (an import costs this thread ~0.15 s)
      createRequire(import.meta.url).resolve('@huggingface/transformers')
    } catch {
      throw lmtError(
        'PLUGIN_CONVERTER_FAILED',
        'text_trace needs @huggingface/transformers (npm i @huggingface/transformers)',
      )
    }
    const {modelName, tokenizerPath, allowDownload} = this.options
    let dir: string | undefined
    if (
      modelName !== undefined &&
      existsSync(join('model', modelName)) &&
      statSync(join('model', modelName)).isDirectory()
    )
      dir = resolve('model', modelName)
    else if (tokenizerPath !== undefined) {
      if (existsSync(tokenizerPath) && statSync(tokenizerPath).isDirectory()) dir = resolve(tokenizerPath)
      else if (allowDownload) {
        this.tokenizerDir = tokenizerPath // a Hub model id, fetched by the library
        return
      } else
        throw lmtError(
          'PLUGIN_CONVERTER_FAILED',
          `tokenizer not found: ${tokenizerPath} is not a directory (pass --allow-download to fetch a model id)`,
          {
            suggestions: [
              'download the tokenizer once on a connected machine (huggingface-cli download <model> tokenizer.json tokenizer_config.json --local-dir DIR) and pass --tokenizer-path DIR',
            ],
          },
        )
    } else
      throw lmtError(
        'PLUGIN_CONVERTER_FAILED',
        `text_trace needs --tokenizer-path DIR${modelName !== undefined ? ` (./model/${modelName} does not exist)` : ''} or --model-name NAME for ./model/NAME`,
      )
    const missing = REQUIRED_FILES.filter((f) => !existsSync(join(dir, f)))
    if (missing.length > 0)
      throw lmtError(
        'PLUGIN_CONVERTER_FAILED',
        `tokenizer folder ${dir} lacks ${missing.join(' and ')} (a tokenizer folder holds tokenizer.json and tokenizer_config.json)`,
      )
    this.tokenizerDir = dir
  }

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const config: TextRowConfig = {
      tokenizerDir: this.tokenizerDir as string,
      allowDownload: this.options.allowDownload ?? false,
      remoteHost: process.env.HF_ENDPOINT || undefined,
      timeField: this.options.timeField ?? 'time',
      contentField: this.options.contentField ?? 'prompt_messages',
      timezone: this.options.timezone ?? 'UTC',
      blockSize: this.getBlockSize(instanceId),
      engine: process.env.LMT_TEXT_TOKENIZER === 'transformers' ? 'transformers' : 'auto',
    }
    // more threads than cores only add tokenizer start-ups (~0.5-1 s of CPU each) and steal the cores' time
    const workers = Math.min(this.options.numWorkers ?? 1, availableParallelism())
    for await (const {line, result} of ctx.mapLines<TextRowResult>({
      module: ROW_DECODER,
      config,
      workers: workers > 1 ? workers : 0,
      // each worker loads its own tokenizer (~0.5 s of CPU): below ~1 MB of text (~0.6 s of encoding) it cannot pay
      inlineBelowBytes: 1 << 20,
      // a conversation costs milliseconds: small batches keep every worker busy on inputs of a few hundred
      batchChars: 64 << 10,
    })) {
      if ('skip' in result) {
        ctx.skip(line, result.skip, result.message)
        continue
      }
      if (result.fallback) {
        ctx.warnLine(line, 'chat_template_fallback', result.fallback)
        ctx.note('chat_template_fallback')
      }
      const keys = KeyList.fromParts(result.words, result.json)
      let get
      try {
        get = this.createGetTrace(result.ts, keys, instanceId, {inputLen: result.tokens})
      } catch {
        ctx.skip(line, 'empty_tokens', 'the content has no tokens') // its timestamp stays used, as in the original
        continue
      }
      yield get
      yield this.createWriteTrace(result.ts + 1n, keys, instanceId)
      ctx.converted(line)
    }
  }
}
