import {describe, expect, it} from 'vitest'
import {decodeAhead} from '../../plugins/converters/text-trace/text-trace.js'
import type {TextRow, TextRowConfig} from '../../plugins/converters/text-trace/_lib/rows.js'
import {loadRustTextTokenizer, type RustImporter} from '../../plugins/converters/text-trace/_lib/tokenizer.js'

/** A Rust module whose encodings finish in a shuffled order, recording how many ran at once. */
function fakeRust(): {importer: RustImporter; maxAtOnce: () => number} {
  let running = 0
  let most = 0
  let calls = 0
  const encode = async (text: string) => {
    running++
    most = Math.max(most, running)
    // later calls often finish first: results must still come back in input order
    await new Promise((done) => setTimeout(done, [6, 1, 3, 0][calls++ % 4]))
    running--
    return {getIds: () => Uint32Array.from(text, (c) => c.charCodeAt(0))}
  }
  const mod = {Tokenizer: {fromFile: () => ({encode})}}
  return {importer: async () => mod, maxAtOnce: () => most}
}

const config: TextRowConfig = {
  tokenizerDir: '/nonexistent',
  allowDownload: false,
  timeField: 'time',
  contentField: 'prompt_messages',
  timezone: 'UTC',
  blockSize: 4,
}

async function* linesOf(texts: string[]) {
  for (const [i, prompt] of texts.entries())
    yield {
      lineNo: i + 1,
      text: JSON.stringify({time: `2024-01-01 00:00:0${i % 10}.0`, prompt_messages: prompt}),
    }
}

describe('text_trace lines decoded ahead on the main thread', () => {
  const prompts = Array.from({length: 24}, (_, i) => 'x'.repeat(1 + i) + String.fromCharCode(65 + i))

  for (const encoders of [1, 2, 3])
    it(`yields in input order with at most ${encoders} encoding(s) at once`, async () => {
      const rust = fakeRust()
      const tok = await loadRustTextTokenizer(config, encoders, rust.importer)
      expect(tok?.engine).toBe('tokenizers')
      const got: number[] = []
      for await (const {line, result} of decodeAhead(linesOf(prompts), config, tok!, encoders + 1)) {
        const row = result as TextRow
        expect(row.tokens).toBe(prompts[line.lineNo - 1].length)
        got.push(line.lineNo)
      }
      expect(got).toEqual(prompts.map((_, i) => i + 1))
      expect(rust.maxAtOnce()).toBe(encoders)
    })

  it('is not offered without the Rust core or when transformers is asked for', async () => {
    const missing: RustImporter = async () => {
      throw new Error('not installed')
    }
    expect(await loadRustTextTokenizer(config, 2, missing)).toBeUndefined()
    expect(
      await loadRustTextTokenizer({...config, engine: 'transformers'}, 2, fakeRust().importer),
    ).toBeUndefined()
  })
})
