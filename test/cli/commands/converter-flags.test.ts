import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const input = join(tmp.dir, 'in.jsonl')
writeFileSync(input, '{"t": 1}\n{"t": 2}\n')

// a third-party converter as its author writes it: its own flag and typed options, imports from lmt by name
const module = join(tmp.dir, 'greeting.mjs')
writeFileSync(
  module,
  `import {BaseConverter} from 'lmt'
import {Flags} from 'lmt/flags'
export class GreetingConverter extends BaseConverter {
  static flags = {greeting: Flags.string({summary: 'What to say.', default: 'hello', helpGroup: 'GREETING'})}
  static parseOptions(flags, config) {
    return {greeting: flags.greeting, loud: config?.loud === true, instanceId: flags['instance-id']}
  }
  async *convertToTraces(path, ctx) {
    for await (const line of ctx.lines()) {
      ctx.converted(line)
      yield {timestamp_ns: BigInt(line.lineNo), settings: this.options.settings}
    }
  }
}
`,
)

describe('a converter declares its own flags and options', () => {
  it('a third-party converter gets its flags parsed into typed options (options.settings)', async () => {
    const out = join(tmp.dir, 'greeting.jsonl')
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'greeting',
      '--converter-module',
      module,
      '--greeting',
      'hi',
      '--converter-config-json',
      '{"loud":true}',
      '-o',
      out,
    ])
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"timestamp_ns": 1, "settings": {"greeting": "hi", "loud": true, "instanceId": "instance"}}\n' +
        '{"timestamp_ns": 2, "settings": {"greeting": "hi", "loud": true, "instanceId": "instance"}}\n',
    )
  })

  it("a flag's default applies when it is not given", async () => {
    const out = join(tmp.dir, 'default.jsonl')
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'greeting',
      '--converter-module',
      module,
      '-o',
      out,
    ])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe(
      '{"timestamp_ns": 1, "settings": {"greeting": "hello", "loud": false, "instanceId": "instance"}}',
    )
  })

  it('a flag of another format is a usage error naming the format it belongs to', async () => {
    const qwen = join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')
    const out = join(tmp.dir, 'x.jsonl')
    const own = await lmt([
      'convert',
      '-i',
      qwen,
      '-f',
      'qwen_bailian',
      '--converter-module',
      module,
      '--greeting',
      'hi',
      '-o',
      out,
      '--json',
    ])
    expect(own.exitCode).toBe(2)
    expect(JSON.parse(own.stdout).error).toMatchObject({
      code: 'LMT_CONVERT_FLAG_OF_OTHER_FORMAT',
      message: '--greeting is a flag of format greeting, not of qwen_bailian',
    })
    const builtin = await lmt(['convert', '-i', qwen, '-f', 'text', '--chunk-tokens', '8', '-o', out])
    expect(builtin.exitCode).toBe(2)
    expect(builtin.stderr).toContain(
      'error: --chunk-tokens is a flag of format lmcache_lct, not of text_trace',
    )
    const negated = await lmt(['convert', '-i', qwen, '-f', 'mooncake', '--no-allow-download', '-o', out])
    expect(negated.exitCode).toBe(2)
    expect(negated.stderr).toContain(
      'error: --allow-download is a flag of format text_trace, not of mooncake',
    )
  })

  it('a flag reusing a name of lmt convert is ignored with a warning; the command keeps its own', async () => {
    const clash = join(tmp.dir, 'clash.mjs')
    writeFileSync(
      clash,
      `import {Flags} from 'lmt/flags'
export class ClashConverter {
  static flags = {strict: Flags.string({summary: 'mine'})}
  convertToTraces() { return [{timestamp_ns: 1}] }
}
`,
    )
    const out = join(tmp.dir, 'clash.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'clash',
      '--converter-module',
      clash,
      '--strict',
      '-o',
      out,
    ])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toContain(
      `warning: ClashConverter from module:${clash}: flag --strict is already a flag of lmt convert; ignored`,
    )
  })

  it("lmt convert --help lists the built-in converters' flags in their groups", async () => {
    const r = await lmt(['convert', '--help'])
    const help = r.stdout
    const text = help.slice(help.indexOf('TEXT CONVERSION FLAGS'))
    expect(text.slice(0, text.indexOf('\n\n'))).toMatch(/--timezone[\s\S]*--tokenizer-path/)
    expect(help).toContain('--chunk-tokens')
  })
})

describe("the README's converter example", () => {
  it('runs as shown: its own flag and its converter config reach it as typed options', async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8')
    const start = readme.indexOf('// sampled.mjs')
    expect(start).toBeGreaterThan(0)
    const example = join(tmp.dir, 'sampled.mjs')
    writeFileSync(example, readme.slice(start, readme.indexOf('```', start)))
    const gateway = join(tmp.dir, 'gateway.jsonl')
    writeFileSync(
      gateway,
      '{"ts": 1000, "block_ids": [1, 2], "tokens": 32}\n{"ts": 2000, "block_ids": [1, 3], "tokens": 40}\n' +
        '{"ts": 3000, "block_ids": [4], "tokens": 16}\n',
    )
    const out = join(tmp.dir, 'sampled.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      gateway,
      '-f',
      'sampled',
      '--converter-module',
      example,
      '--sample-every',
      '2',
      '--converter-config-json',
      '{"tenant":"a"}',
      '-o',
      out,
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; instance_id: string; timestamp_ns: number})
    expect(rows.map((t) => [t.type, t.instance_id, t.timestamp_ns])).toEqual([
      ['get', 'a', 1000],
      ['write', 'a', 1001],
      ['get', 'a', 3000],
      ['write', 'a', 3001],
    ])
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('"sampled_out":1')
  })
})
