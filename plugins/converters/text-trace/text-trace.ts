import {existsSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import {availableParallelism} from 'node:os'
import {extname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {BaseConverter, type InputContext, KeyList, lmtError, plainPaths} from 'lmt'
import type {ConverterFlagValues, FormatSample, InputLine, Trace} from 'lmt'
import {Flags} from 'lmt/flags'
import {decodeTextRow, type TextRowConfig, type TextRowResult} from './_lib/rows.js'
import {loadRustTextTokenizer, type TextTokenizer} from './_lib/tokenizer.js'

// the mapper runs on worker threads
const ROW_DECODER = new URL(`./_lib/rows${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href
const REQUIRED_FILES = ['tokenizer.json', 'tokenizer_config.json']
const TEXT_GROUP = 'TEXT CONVERSION'

/** The options of a text_trace conversion, from its flags (and `--model-name`, which `--mode lct` uses too). */
export interface TextTraceSettings {
  tokenizerPath?: string
  modelName?: string
  timeField: string
  contentField: string
  /** `UTC`, `local` or an IANA zone name */
  timezone: string
  allowDownload: boolean
}

/** Resolves `--timezone`: `UTC`, `local`, or an IANA name known to this runtime. */
export function checkTimezone(zone: string): string {
  if (zone === 'UTC' || zone === 'local') return zone
  try {
    new Intl.DateTimeFormat('en-US', {timeZone: zone})
  } catch {
    throw lmtError('CONVERT_UNKNOWN_TIMEZONE', zone, {
      suggestions: ['use UTC, local, or an IANA name such as Europe/Berlin'],
    })
  }
  return zone
}

/** a "%Y-%m-%d %H:%M:%S" time, the start of a text record's time field */
const TIME_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/

function isRow(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

// text_trace's lines decoded on the main thread while the Rust core encodes: parsing and chat-template rendering run
// here, up to `depth` lines ahead of the one being yielded, and their encodings run on libuv's threads (as many at
// once as the tokenizer allows). One tokenizer start-up for the whole input and nothing copied between threads:
// worker threads each paid ~0.9 s of CPU to load their own tokenizer and template renderer.
/** `lines` decoded with `tok`, `depth` lines in flight at most, results in input order. */
export async function* decodeAhead(
  lines: AsyncIterable<InputLine>,
  config: TextRowConfig,
  tok: TextTokenizer,
  depth: number,
): AsyncGenerator<{line: InputLine; result: TextRowResult}> {
  const queue: {line: InputLine; result: Promise<TextRowResult>}[] = []
  const take = async () => {
    const head = queue.shift() as (typeof queue)[number]
    return {line: head.line, result: await head.result}
  }
  for await (const line of lines) {
    const result = decodeTextRow(line.text, config, tok)
    result.catch(() => {}) // awaited in turn below; a line left behind when the caller stops must not crash lmt
    queue.push({line, result})
    if (queue.length >= depth) yield await take()
  }
  while (queue.length > 0) yield await take()
}

/**
 * Timestamped text or chat records tokenized with a Hugging Face tokenizer (offline by default): a get with the
 * full-block keys and a write keeping the partial tail key. Tokenization runs on `numWorkers` worker threads;
 * timestamps are allocated here in input order, so the output does not depend on the worker count. Encoding uses
 * the Rust `tokenizers` package when installed (same ids; LMT_TEXT_TOKENIZER=transformers forces
 * @huggingface/transformers).
 */
export class TextTraceConverter extends BaseConverter<TextTraceSettings> {
  static description = 'Timestamped text or chat records, tokenized with a Hugging Face tokenizer'
  static aliases = ['text']

  static flags = {
    'tokenizer-path': Flags.string({
      summary: 'Tokenizer directory (or a Hub model id with --allow-download).',
      helpGroup: TEXT_GROUP,
    }),
    'time-field': Flags.string({summary: 'Field holding the time.', default: 'time', helpGroup: TEXT_GROUP}),
    'content-field': Flags.string({
      summary: 'Field holding the prompt.',
      default: 'prompt_messages',
      helpGroup: TEXT_GROUP,
    }),
    timezone: Flags.string({
      summary: 'Zone of times without one: UTC, local, or an IANA name such as Asia/Shanghai.',
      default: 'UTC',
      helpGroup: TEXT_GROUP,
    }),
    'allow-download': Flags.boolean({
      summary: 'Allow fetching a tokenizer from the Hugging Face Hub.',
      default: false,
      helpGroup: TEXT_GROUP,
    }),
  }

  /** The settings from the parsed flags (the defaults for flags not given); a bad --timezone is a usage error. */
  static parseOptions(flags: ConverterFlagValues): TextTraceSettings {
    const text = (name: string): string | undefined =>
      typeof flags[name] === 'string' ? (flags[name] as string) : undefined
    return {
      tokenizerPath: text('tokenizer-path'),
      modelName: text('model-name'),
      timeField: text('time-field') ?? 'time',
      contentField: text('content-field') ?? 'prompt_messages',
      timezone: checkTimezone(text('timezone') ?? 'UTC'),
      allowDownload: flags['allow-download'] === true,
    }
  }

  static looksLike(sample: FormatSample): boolean {
    const r = sample.record
    if (!isRow(r) || 'keys' in r || 'hash_ids' in r) return false
    // a time and some content
    const values = Object.values(r)
    const isTime = (v: unknown) => typeof v === 'string' && TIME_TEXT.test(v)
    const isContent = (v: unknown) => (typeof v === 'string' && !isTime(v)) || isRow(v) || Array.isArray(v)
    return values.some(isTime) && values.some(isContent)
  }

  private tokenizerDir: string | undefined

  /** The settings lmt parsed from the flags, or the defaults (a conversion run from code may give none). */
  private get settings(): TextTraceSettings {
    return this.options.settings ?? TextTraceConverter.parseOptions({})
  }

  async init(): Promise<void> {
    try {
      // resolved, not imported: with worker threads only the workers load it (an import is slow)
      createRequire(import.meta.url).resolve('@huggingface/transformers')
    } catch {
      throw lmtError(
        'PLUGIN_CONVERTER_FAILED',
        'text_trace needs @huggingface/transformers (npm i @huggingface/transformers)',
      )
    }
    const {modelName, tokenizerPath, allowDownload} = this.settings
    const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory()
    let dir: string
    if (modelName !== undefined && isDir(join('model', modelName))) dir = resolve('model', modelName)
    else if (tokenizerPath !== undefined && isDir(tokenizerPath)) dir = resolve(tokenizerPath)
    else if (tokenizerPath !== undefined && allowDownload) {
      this.tokenizerDir = tokenizerPath // a Hub model id, fetched by the library
      return
    } else if (tokenizerPath !== undefined)
      throw lmtError(
        'PLUGIN_USAGE',
        `tokenizer not found: ${tokenizerPath} is not a directory (pass --allow-download to fetch a model id)`,
        {
          suggestions: [
            'download the tokenizer once on a connected machine (huggingface-cli download <model> tokenizer.json tokenizer_config.json --local-dir DIR) and pass --tokenizer-path DIR',
          ],
        },
      )
    // a usage error: the flags name no tokenizer
    else
      throw lmtError(
        'PLUGIN_USAGE',
        `text_trace needs --tokenizer-path DIR${modelName !== undefined ? ` (./model/${modelName} does not exist)` : ''} or --model-name NAME for ./model/NAME`,
        {
          suggestions: [
            'pass --tokenizer-path DIR, a folder holding tokenizer.json and tokenizer_config.json (huggingface-cli download <model> tokenizer.json tokenizer_config.json --local-dir DIR)',
          ],
        },
      )
    const missing = REQUIRED_FILES.filter((f) => !existsSync(join(dir, f)))
    if (missing.length > 0)
      throw lmtError(
        'PLUGIN_CONVERTER_FAILED',
        `tokenizer folder ${dir} lacks ${missing.join(' and ')} (a tokenizer folder holds tokenizer.json and tokenizer_config.json)`,
      )
    this.tokenizerDir = dir
  }

  /**
   * The decoded lines in input order: on this thread with the Rust core encoding `--num-workers` lines at once
   * (off this thread), or, without the Rust core, on worker threads each with its own transformers.js tokenizer.
   */
  private async decodedLines(
    ctx: InputContext,
    config: TextRowConfig,
  ): Promise<AsyncIterable<{line: InputLine; result: TextRowResult}>> {
    // more encodings or threads than cores only steal the cores' time (and threads add tokenizer start-ups)
    const workers = Math.max(1, Math.min(this.options.numWorkers ?? 1, availableParallelism()))
    // libuv's pool also serves file writes: leave one of its threads to them
    const pool = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10)
    const encoders = Math.min(workers, Math.max(1, (pool > 0 ? pool : 4) - 1))
    const rust = await loadRustTextTokenizer(config, encoders)
    // one line more than encoders: the next line is parsed and rendered while the others encode
    if (rust) return decodeAhead(ctx.lines(), config, rust, encoders + 1)
    return ctx.mapLines<TextRowResult>({
      module: ROW_DECODER,
      config,
      workers: workers > 1 ? workers : 0,
      // each worker loads its own tokenizer: below ~1 MB of text the encoding saved cannot pay for it
      inlineBelowBytes: 1 << 20,
      // a conversation costs milliseconds: small batches keep every worker busy on inputs of a few hundred
      batchChars: 64 << 10,
    })
  }

  async *convertToTraces(_inputPath: string, ctx: InputContext): AsyncGenerator<Trace> {
    const instanceId = this.defaultInstanceId
    const config: TextRowConfig = {
      tokenizerDir: this.tokenizerDir as string,
      allowDownload: this.settings.allowDownload,
      remoteHost: process.env.HF_ENDPOINT || undefined,
      timeField: this.settings.timeField,
      contentField: this.settings.contentField,
      timezone: this.settings.timezone,
      blockSize: this.getBlockSize(instanceId),
      engine: process.env.LMT_TEXT_TOKENIZER === 'transformers' || plainPaths() ? 'transformers' : 'auto',
    }
    for await (const {line, result} of await this.decodedLines(ctx, config)) {
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
