// text_trace's lines decoded on the main thread while the Rust core encodes: parsing and chat-template rendering run
// here, up to `depth` lines ahead of the one being yielded, and their encodings run on libuv's threads (as many at
// once as the tokenizer allows). One tokenizer start-up for the whole input and nothing copied between threads:
// worker threads each paid ~0.9 s of CPU to load their own tokenizer and template renderer.
import type {InputLine} from 'lmt'
import {decodeTextRow, type TextRowConfig, type TextRowResult} from './rows.js'
import type {TextTokenizer} from './tokenizer.js'

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
