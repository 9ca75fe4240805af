// The order-independent part of a text_trace line: time, content, tokens, block ids. Runs on worker threads, each
// with its own tokenizer (see TextTraceConverter).
import type {InputLine} from 'lmt'
// a worker thread's module: the light entry, not all of lmt (src/values.ts)
import {JsonFloat, type JsonValue, KeyList, serializeJson} from 'lmt'
import {type LineProblem, parseObjectLine} from 'lmt'
import {parseNaiveTime, textTimestampNs} from './time.js'
import {loadTextTokenizer, type TextTokenizer, type TokenizerSource} from './tokenizer.js'

export interface TextRowConfig extends TokenizerSource {
  timeField: string
  contentField: string
  timezone: string
  blockSize: number
}

export interface TextRow {
  ts: bigint
  tokens: number
  words: BigInt64Array
  json: Uint8Array
  /** set when the chat template failed and plain encoding was used */
  fallback?: string
}

export type TextRowResult = TextRow | LineProblem

type Obj = Map<string, JsonValue>
const isObj = (v: unknown): v is Obj => v instanceof Map

/** A parsed JSON value as the plain JS value a chat template expects (objects, arrays, numbers). */
function plain(v: unknown): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]))
  if (Array.isArray(v)) return v.map(plain)
  if (v instanceof JsonFloat) return v.value
  if (typeof v === 'bigint') return Number(v)
  return v
}

/** `clean(messages)` of docs/convert.md §8.5. */
function cleanMessages(messages: JsonValue[]): unknown[] {
  const out: unknown[] = []
  for (const m of messages) {
    if (!isObj(m)) continue
    const copy: Obj = new Map(m)
    const content = copy.get('content')
    if (content === undefined || content === null) copy.set('content', '')
    else if (typeof content !== 'string') copy.set('content', serializeJson(content))
    const calls = copy.get('tool_calls')
    if (copy.get('role') === 'assistant' && Array.isArray(calls)) {
      const kept: JsonValue[] = []
      for (const c of calls) {
        if (!isObj(c) || !isObj(c.get('function'))) continue
        const call: Obj = new Map(c)
        const fn: Obj = new Map(c.get('function') as Obj)
        const args = fn.get('arguments')
        if (typeof args === 'string') {
          try {
            fn.set('arguments', JSON.parse(args) as JsonValue)
          } catch {
            fn.set('arguments', new Map())
          }
        } else if (!isObj(args)) fn.set('arguments', new Map())
        call.set('function', fn)
        kept.push(call)
      }
      copy.set('tool_calls', kept)
    }
    out.push(plain(copy))
  }
  return out
}

/** `cleanTools(tools)` of docs/convert.md §8.5. */
function cleanTools(tools: JsonValue[]): unknown[] {
  const out: unknown[] = []
  tools.forEach((t, i) => {
    if (!isObj(t)) return
    const copy: Obj = new Map(t)
    if (copy.get('type') !== 'function') copy.set('type', 'function')
    const fn: Obj = isObj(copy.get('function')) ? new Map(copy.get('function') as Obj) : new Map()
    if (typeof fn.get('name') !== 'string') fn.set('name', `tool_${i}`)
    if (typeof fn.get('description') !== 'string') fn.set('description', '')
    const params: Obj = isObj(fn.get('parameters')) ? new Map(fn.get('parameters') as Obj) : new Map()
    if (!params.has('type')) params.set('type', 'object')
    if (!isObj(params.get('properties'))) params.set('properties', new Map())
    if (!Array.isArray(params.get('required'))) params.set('required', [])
    fn.set('parameters', params)
    copy.set('function', fn)
    out.push(plain(copy))
  })
  return out
}

async function tokensOf(
  tok: TextTokenizer,
  content: JsonValue,
): Promise<{tokens: number[]; fallback?: string}> {
  // {"messages": [...], "tools": [...]} with messages, or a list of messages
  const inner = isObj(content) ? content.get('messages') : undefined
  const wrapped = Array.isArray(inner) && inner.length > 0
  const messages = wrapped ? inner : Array.isArray(content) ? content : undefined
  const tools = wrapped ? (content as Obj).get('tools') : undefined
  let fallback: string | undefined
  if (messages) {
    try {
      const cleanedTools = Array.isArray(tools) && tools.length > 0 ? cleanTools(tools) : undefined
      return {tokens: await tok.chat(cleanMessages(messages), cleanedTools)}
    } catch (err) {
      fallback = `chat template failed (${(err as Error)?.message ?? String(err)}); encoded as plain text`
    }
  }
  const text = typeof content === 'string' ? content : serializeJson(content)
  return {tokens: await tok.encode(text), fallback}
}

/** Decodes one line (rules of docs/convert.md §8.5 steps 1–6). */
export async function decodeTextRow(
  text: string,
  config: TextRowConfig,
  tok: TextTokenizer,
): Promise<TextRowResult> {
  const row = parseObjectLine(text)
  if (!(row instanceof Map)) return row
  const time = row.get(config.timeField)
  if (typeof time !== 'string') return {skip: 'invalid_time', message: `${config.timeField} is not a string`}
  const naive = parseNaiveTime(time)
  if (!naive)
    return {
      skip: 'invalid_time',
      message: `${config.timeField} "${time}" is not a valid "%Y-%m-%d %H:%M:%S.%f" time`,
    }
  const ts = textTimestampNs(naive, config.timezone)
  const content = row.get(config.contentField)
  if (content === undefined || content === null)
    return {skip: 'missing_content', message: `${config.contentField} is missing`}
  let result: {tokens: number[]; fallback?: string}
  try {
    result = await tokensOf(tok, content)
  } catch (err) {
    return {skip: 'tokenize_failed', message: `tokenizer failed: ${(err as Error)?.message ?? String(err)}`}
  }
  const keys = KeyList.tokenBlocks(result.tokens, config.blockSize)
  return {
    ts,
    tokens: result.tokens.length,
    words: keys.words(),
    json: keys.toJsonBytes(),
    ...(result.fallback ? {fallback: result.fallback} : {}),
  }
}

export async function createLineMapper(
  config: TextRowConfig,
): Promise<(line: InputLine) => Promise<TextRowResult>> {
  const tok = await loadTextTokenizer(config)
  return (line) => decodeTextRow(line.text, config, tok)
}
