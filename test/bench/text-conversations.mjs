// Real-shaped multi-turn chat records for the text_trace benchmark and tests: a long system prompt, alternating
// user/assistant turns of a few hundred to a few thousand characters (English prose, Chinese, code, numbers), and in
// some conversations tools, assistant tool calls and tool results.
import {rng} from './generate.mjs'

const EN =
  'the model caches every prefix block of a prompt so that later requests sharing that prefix skip the prefill ; latency throughput eviction policy storage tier bandwidth request token window scheduler replica'.split(
    ' ',
  )
const ZH = [
  '机器学习',
  '人工智能',
  '缓存',
  '请求',
  '模型',
  '推理',
  '数据',
  '延迟',
  '吞吐量',
  '分布式',
  '的',
  '是',
  '，',
  '。',
]
const CODE = [
  'def cache_hit(keys, store):\n    return sum(1 for k in keys if k in store) / max(len(keys), 1)\n',
  'for (let i = 0; i < n; i++) {\n  total += blocks[i].size\n}\n',
  '```json\n{"id": 42, "ok": true, "items": [1, 2, 3]}\n```\n',
  'SELECT user_id, COUNT(*) FROM requests WHERE ts > NOW() - INTERVAL 1 DAY GROUP BY user_id;\n',
]

/** A text of about `chars` characters. */
function prose(rand, chars) {
  const out = []
  let n = 0
  while (n < chars) {
    const r = rand()
    const piece =
      r < 0.55
        ? EN[Math.floor(rand() * EN.length)] + ' '
        : r < 0.85
          ? ZH[Math.floor(rand() * ZH.length)]
          : r < 0.95
            ? String(Math.floor(rand() * 100000)) + ' '
            : '\n' + CODE[Math.floor(rand() * CODE.length)]
    out.push(piece)
    n += piece.length
  }
  return out.join('')
}

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'search_docs',
      description: 'Search the internal documentation',
      parameters: {
        type: 'object',
        properties: {query: {type: 'string'}, top_k: {type: 'integer'}},
        required: ['query'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_sql',
      description: 'Run a read-only SQL query',
      parameters: {type: 'object', properties: {sql: {type: 'string'}}, required: ['sql']},
    },
  },
]

/** One conversation object (the `dialog` of a record), deterministic in `rand`; `turns` user turns if given. */
export function conversation(rand, turns) {
  const withTools = rand() < 0.3
  const messages = [
    {role: 'system', content: 'You are a careful assistant. ' + prose(rand, 400 + rand() * 1600)},
  ]
  const userTurns = turns ?? 1 + Math.floor(rand() * 6)
  for (let t = 0; t < userTurns; t++) {
    messages.push({role: 'user', content: prose(rand, 200 + rand() * 3000)})
    if (withTools && rand() < 0.5) {
      const name = rand() < 0.5 ? 'search_docs' : 'run_sql'
      const args = name === 'search_docs' ? {query: prose(rand, 40), top_k: 5} : {sql: CODE[3].trim()}
      messages.push({
        role: 'assistant',
        content: rand() < 0.5 ? null : prose(rand, 100),
        tool_calls: [{id: `call_${t}`, type: 'function', function: {name, arguments: JSON.stringify(args)}}],
      })
      messages.push({role: 'tool', tool_call_id: `call_${t}`, content: prose(rand, 300 + rand() * 2000)})
    }
    if (t < userTurns - 1 || rand() < 0.7)
      messages.push({role: 'assistant', content: prose(rand, 200 + rand() * 4000)})
  }
  return withTools ? {messages, tools: TOOLS} : {messages}
}

/** `count` JSONL records `{"timestamp": ..., "dialog": {...}}`, one a second from 2024-01-01 00:00:00. */
export function conversationLines(count, seed = 7) {
  const rand = rng(seed)
  const lines = []
  for (let i = 0; i < count; i++) {
    const d = new Date(Date.UTC(2024, 0, 1) + i * 1000 + (i % 1000))
    const ts = d.toISOString().replace('T', ' ').replace('Z', '000')
    lines.push(JSON.stringify({timestamp: ts, dialog: conversation(rand)}))
  }
  return lines.join('\n') + '\n'
}

/**
 * The requests of one chat session of `turns` user turns, as real chat traffic sends them: each carries the whole
 * conversation so far (system prompt, earlier turns and answers, tool calls and results) and ends at a user turn.
 */
export function sessionRequests(rand, turns) {
  const {messages, tools} = conversation(rand, turns)
  const requests = []
  for (let i = 0; i < messages.length; i++)
    if (messages[i].role === 'user') {
      const history = messages.slice(0, i + 1)
      requests.push(tools ? {messages: history, tools} : {messages: history})
    }
  return requests
}

/**
 * JSONL records of `sessions` chat sessions of 4 to 10 turns, `concurrent` sessions open at once and their requests
 * interleaved in time, one a second from 2024-01-01 00:00:00: later requests repeat the earlier ones' messages.
 */
export function sessionLines(sessions, seed = 13, concurrent = 8) {
  const rand = rng(seed)
  const open = []
  const lines = []
  let started = 0
  let i = 0
  while (started < sessions || open.length > 0) {
    while (open.length < concurrent && started < sessions) {
      open.push(sessionRequests(rand, 4 + Math.floor(rand() * 7)))
      started++
    }
    const k = Math.floor(rand() * open.length)
    const dialog = open[k].shift()
    if (open[k].length === 0) open.splice(k, 1)
    const d = new Date(Date.UTC(2024, 0, 1) + i * 1000 + (i % 1000))
    const ts = d.toISOString().replace('T', ' ').replace('Z', '000')
    lines.push(JSON.stringify({timestamp: ts, dialog}))
    i++
  }
  return lines.join('\n') + '\n'
}
