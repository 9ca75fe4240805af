// The tokenizer of text_trace. Encoding runs in Hugging Face's Rust tokenizer core (the optional `tokenizers`
// package: the engine the original converter uses, and faster than the JavaScript port) when it is
// installed and the tokenizer is a local folder; chat templates are rendered by @huggingface/transformers (its
// Jinja, its tokenizer class without a vocabulary), loaded only when a line needs one. Without `tokenizers`,
// everything runs in @huggingface/transformers.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

export interface TokenizerSource {
  tokenizerDir: string
  allowDownload: boolean
  remoteHost?: string
  /** 'transformers' forces @huggingface/transformers for encoding too; default 'auto' */
  engine?: 'auto' | 'transformers'
}

export interface TextTokenizer {
  /** which library encodes */
  readonly engine: 'tokenizers' | 'transformers'
  /** `encode(text, {add_special_tokens: true})` */
  encode(text: string): Promise<number[]>
  /** `apply_chat_template(messages, {tools, tokenize: true, add_generation_prompt: false})` */
  chat(messages: unknown[], tools: unknown[] | undefined): Promise<number[]>
}

interface JsTokenizer {
  encode(text: string, options?: {add_special_tokens?: boolean}): number[]
  apply_chat_template(messages: unknown[], options: Record<string, unknown>): unknown
}

interface RustTokenizer {
  encode(
    text: string,
    pair: null,
    options: {addSpecialTokens: boolean},
  ): Promise<{getIds(): number[] | Uint32Array}>
}

interface RustModule {
  Tokenizer: {fromFile(path: string): RustTokenizer}
}

export type RustImporter = () => Promise<RustModule>

const importRust: RustImporter = async () => {
  const mod = (await import('tokenizers')) as unknown as RustModule & {default?: RustModule}
  return mod.Tokenizer ? mod : (mod.default as RustModule)
}

/** Loads a tokenizer with @huggingface/transformers, offline unless downloads are allowed. */
async function loadJs(source: TokenizerSource): Promise<JsTokenizer> {
  const {AutoTokenizer, env} = await import('@huggingface/transformers')
  env.allowLocalModels = true
  env.allowRemoteModels = source.allowDownload
  if (source.allowDownload && source.remoteHost)
    env.remoteHost = source.remoteHost.endsWith('/') ? source.remoteHost : source.remoteHost + '/'
  return (await AutoTokenizer.from_pretrained(source.tokenizerDir, {
    local_files_only: !source.allowDownload,
  })) as unknown as JsTokenizer
}

// a tokenizer with no vocabulary: building the real one is slow (per thread), and rendering a chat template
// only reads tokenizer_config.json (the template, the special tokens)
const EMPTY_TOKENIZER_JSON = {
  model: {type: 'BPE', vocab: {}, merges: []},
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: null,
  post_processor: null,
  decoder: null,
}

type TokenizerClass = new (json: unknown, config: unknown) => JsTokenizer

/** The tokenizer class AutoTokenizer would pick for a local folder, built only to render its chat template. */
async function loadTemplateRenderer(source: TokenizerSource): Promise<JsTokenizer> {
  const lib = (await import('@huggingface/transformers')) as unknown as Record<string, TokenizerClass>
  try {
    const config = JSON.parse(readFileSync(join(source.tokenizerDir, 'tokenizer_config.json'), 'utf8')) as {
      tokenizer_class?: unknown
    }
    const name =
      typeof config.tokenizer_class === 'string' ? config.tokenizer_class.replace(/Fast$/, '') : undefined
    const base = lib.PreTrainedTokenizer
    const named = name === undefined ? undefined : lib[name]
    const cls = typeof named === 'function' && named.prototype instanceof base ? named : base
    return new cls(EMPTY_TOKENIZER_JSON, config)
  } catch {
    return loadJs(source) // a class that needs its vocabulary: the full tokenizer renders the same
  }
}

const TEMPLATE_OPTIONS = {add_generation_prompt: false, return_tensor: false, return_dict: false}

function templateOptions(tools: unknown[] | undefined, tokenize: boolean): Record<string, unknown> {
  return tools ? {...TEMPLATE_OPTIONS, tokenize, tools} : {...TEMPLATE_OPTIONS, tokenize}
}

function jsTokenizer(tok: JsTokenizer): TextTokenizer {
  return {
    engine: 'transformers',
    encode: async (text) => tok.encode(text, {add_special_tokens: true}),
    chat: async (messages, tools) => {
      const ids = tok.apply_chat_template(messages, templateOptions(tools, true))
      if (!Array.isArray(ids)) throw new Error('the chat template did not return token ids')
      return ids.map(Number)
    },
  }
}

const plainIds = (ids: number[] | Uint32Array): number[] => (Array.isArray(ids) ? ids : Array.from(ids))

/** At most `limit` calls of `run` at once; the others wait in call order. */
function concurrencyLimit(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (run) => {
    if (running >= limit) await new Promise<void>((wake) => waiting.push(wake))
    else running++
    try {
      return await run()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}

function rustTokenizer(rust: RustTokenizer, source: TokenizerSource, encoders: number): TextTokenizer {
  let template: Promise<JsTokenizer> | undefined // only inputs with chat records pay for loading it
  // the Rust core encodes off this thread (libuv's pool): `encoders` encodings run at once, one core each
  const slot = concurrencyLimit(encoders)
  const ids = (text: string, addSpecialTokens: boolean): Promise<number[]> =>
    slot(async () => plainIds((await rust.encode(text, null, {addSpecialTokens})).getIds()))
  return {
    engine: 'tokenizers',
    encode: (text) => ids(text, true),
    chat: async (messages, tools) => {
      template ??= loadTemplateRenderer(source)
      const text = (await template).apply_chat_template(messages, templateOptions(tools, false))
      if (typeof text !== 'string') throw new Error('the chat template did not return text')
      // as transformers' apply_chat_template tokenizes: the template writes the special tokens itself
      return ids(text, false)
    },
  }
}

/**
 * The fastest tokenizer available for `source`: the Rust core for a local folder when `tokenizers` loads and reads
 * its tokenizer.json, else @huggingface/transformers (a Hub model id, the package missing, or engine 'transformers').
 */
export async function loadTextTokenizer(
  source: TokenizerSource,
  rustImporter: RustImporter = importRust,
): Promise<TextTokenizer> {
  return (await loadRustTextTokenizer(source, 1, rustImporter)) ?? jsTokenizer(await loadJs(source))
}

/**
 * The Rust core's tokenizer for `source`, running up to `encoders` encodings at once off the calling thread, or
 * undefined when it cannot serve: engine 'transformers', `tokenizers` not installed (or no prebuilt binary for this
 * platform), a Hub model id or a tokenizer.json the Rust core cannot read (transformers reads it).
 */
export async function loadRustTextTokenizer(
  source: TokenizerSource,
  encoders: number,
  rustImporter: RustImporter = importRust,
): Promise<TextTokenizer | undefined> {
  if (source.engine === 'transformers') return undefined
  try {
    const rust = (await rustImporter()).Tokenizer.fromFile(join(source.tokenizerDir, 'tokenizer.json'))
    return rustTokenizer(rust, source, Math.max(1, encoders))
  } catch {
    return undefined
  }
}
