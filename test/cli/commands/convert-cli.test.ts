import {existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../../src/schemas.js'
import {lmt, lmtProcess, ROOT, spawnLmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let counter = 0
function file(name: string, text: string | Buffer): string {
  const p = join(tmp.dir, `${counter++}-${name}`)
  writeFileSync(p, text)
  return p
}
const row = (ts: string, ids = '[1]', len = 16) =>
  `{"timestamp": ${ts}, "input_length": ${len}, "hash_ids": ${ids}}`
const timestamps = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => /"timestamp_ns": (-?\d+)/.exec(l)?.[1])

describe('lmt convert: inputs, ordering and bytes', () => {
  it('merges inputs by time and keeps collision sets across inputs (spec §9.1)', async () => {
    const a = file('a.jsonl', `${row('0')}\n${row('2')}\n`)
    const b = file('b.jsonl', `${row('0')}\n${row('1')}\n`)
    const merged = join(tmp.dir, 'merged.jsonl')
    expect((await lmt(['convert', '-q', '-i', a, b, '-f', 'qwen_bailian', '-o', merged])).exitCode).toBe(0)
    expect(timestamps(readFileSync(merged, 'utf8'))).toEqual([
      '0',
      '1',
      '2',
      '3',
      '1000000000',
      '1000000001',
      '2000000000',
      '2000000001',
    ])
    const concat = join(tmp.dir, 'concat.jsonl')
    expect(
      (await lmt(['convert', '-q', '-i', a, '-i', b, '-f', 'qwen_bailian', '-o', concat, '--no-sort']))
        .exitCode,
    ).toBe(0)
    expect(timestamps(readFileSync(concat, 'utf8'))).toEqual([
      '0',
      '1',
      '2000000000',
      '2000000001',
      '2',
      '3',
      '1000000000',
      '1000000001',
    ])
  })

  it('refuses the .lct output flags without --mode lct, warns about a .lct name, reads -f in any case', async () => {
    const input = file('in.jsonl', `${row('0')}\n`)
    const out = join(tmp.dir, 'case.jsonl')
    for (const flag of [
      ['--kv-rank', '3'],
      ['--kv-layout', '2x36x512x8x128:bfloat16'],
      ['--l1-size-gb', '8'],
    ]) {
      const r = await lmt(['convert', '-q', '-i', input, '-f', 'qwen_bailian', '-o', out, ...flag, '--json'])
      expect(r.exitCode).toBe(2)
      expect(JSON.parse(r.stdout).error).toMatchObject({
        code: 'LMT_CLI_FLAG_NEEDS',
        message: `${flag[0]} needs --mode lct`,
      })
    }
    const named = await lmt(['convert', '-i', input, '-f', 'QWEN_bailian', '-o', join(tmp.dir, 'x.lct')])
    expect(named.exitCode).toBe(0)
    expect(named.stderr).toContain(
      'x.lct ends in .lct but the output is Get+Write JSONL; hint: add --mode lct',
    )
    expect(named.stderr).toContain('format qwen_bailian')
  })

  it('warns that a Mooncake trace given to qwen_bailian looks like one, naming -f mooncake', async () => {
    const head = join(ROOT, 'test', 'fixtures', 'convert', 'mooncake_conversation_head200.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      head,
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'mc-as-qwen.jsonl'),
    ])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toContain(`${head} looks like a Mooncake trace`)
    expect(r.stderr).toContain('hint: use -f mooncake')
    const qwen = await lmt([
      'convert',
      '-i',
      join(ROOT, 'samples', 'qwen_bailian_sample.jsonl'),
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'q.jsonl'),
    ])
    expect(qwen.stderr).not.toContain('looks like a Mooncake trace')
  })

  it('multi-input default output is merged_optimizer.jsonl in the current folder; no litter', () => {
    const {dir, cleanup} = tempDir()
    mkdirSync(join(dir, 'x'))
    mkdirSync(join(dir, 'here'))
    writeFileSync(join(dir, 'x', 'a.jsonl'), row('1') + '\n')
    writeFileSync(join(dir, 'b.jsonl'), row('0') + '\n')
    const inputs = [join(dir, 'x', 'a.jsonl'), join(dir, 'b.jsonl')]
    const r = lmtProcess(['convert', '-q', '-i', ...inputs, '-f', 'qwen_bailian'], {cwd: join(dir, 'here')})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readdirSync(join(dir, 'here'))).toEqual(['merged_optimizer.jsonl'])
    expect(readdirSync(join(dir, 'x')).sort()).toEqual(['a.jsonl'])
    expect(readdirSync(dir).sort()).toEqual(['b.jsonl', 'here', 'x'])
    cleanup()
  })

  it('sorts a time-reversed input stably (timestamps as bigint, nanosecond exact)', async () => {
    const input = file(
      'rev.jsonl',
      [row('1704110400.123456789'), row('5'), row('1704110400.123456789'), row('true')].join('\n'),
    )
    const out = join(tmp.dir, 'rev-out.jsonl')
    expect((await lmt(['convert', '-q', '-i', input, '-f', 'qwen_bailian', '-o', out])).exitCode).toBe(0)
    expect(timestamps(readFileSync(out, 'utf8'))).toEqual([
      '1000000000',
      '1000000001',
      '5000000000',
      '5000000001',
      '1704110400123456768',
      '1704110400123456769',
      '1704110400123456770',
      '1704110400123456771',
    ])
  })

  it('writes pass-through values of publisher events exactly (spec §5.3 byte example)', async () => {
    const line =
      '{"source":"é\\"x\\\\\\u0001","type":"GetCacheLocation","trigger_time_us":1000000.9,"keys":[99999999999999999999999,1.0,"k"],"input_len":48,"block_mask":1e16,"sw_size":100.0,"query_type":{"b":1,"a":[1e-7,0.0001,1e-05,-0.0,1E400]},"location_spec_names":["loc",null,true,1.5e300]}'
    const input = file('bytes.log', line + '\n')
    const out = join(tmp.dir, 'bytes.jsonl')
    expect((await lmt(['convert', '-q', '-i', input, '-f', 'publisher_log', '-o', out])).exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "get", "instance_id": "é\\"x\\\\\\u0001", "trace_id": "trace_é\\"x\\\\\\u0001_1000000000", "timestamp_ns": 1000000000, "keys": [99999999999999999999999, 1.0, "k"], "input_len": 48, "query_type": {"b": 1, "a": [1e-07, 0.0001, 1e-05, -0.0, Infinity]}, "block_mask": 1e+16, "sw_size": 100.0, "location_spec_names": ["loc", null, true, 1.5e+300]}\n',
    )
  })

  it('flushes any number of gets never written (a long pending list is not spread onto the stack)', async () => {
    const n = 200_000 // one first-key bucket longer than a call’s argument list may be (130k overflowed)
    const lines = Array.from({length: n}, (_, i) =>
      JSON.stringify({
        type: 'GetCacheLocation',
        source: 'a',
        trigger_time_us: 1000 + i,
        keys: [7, i],
        input_len: 32,
      }),
    )
    const input = file('many-gets.log', lines.join('\n') + '\n')
    const out = join(tmp.dir, 'many-gets.jsonl')
    const r = lmtProcess(['convert', '-q', '-i', input, '-f', 'publisher_log', '-o', out])
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    const written = readFileSync(out, 'utf8').trimEnd().split('\n')
    expect(written).toHaveLength(n)
    expect(JSON.parse(written[n - 1]).timestamp_ns).toBe((1000 + n - 1) * 1000)
  })

  it('skips a BOM and reports invalid UTF-8 and non-object lines', async () => {
    const input = file(
      'bom.jsonl',
      Buffer.concat([
        Buffer.from('\ufeff' + row('1') + '\n'),
        Buffer.from([0xc3, 0x28, 0x0a]),
        Buffer.from(
          '[1]\n' +
            row('"x"') +
            '\n' +
            row('2', '[1.5]') +
            '\n' +
            row('3', '"ab"') +
            '\n' +
            row('4', '[1]', 0) +
            '\n' +
            '{"timestamp": 1, "input_length": "1_6"}\n',
        ),
      ]),
    )
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'bom.out'),
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.inputs[0].skipped).toEqual({
      invalid_hash_ids: 2,
      invalid_timestamp: 1,
      invalid_utf8: 1,
      not_an_object: 1,
      nonpositive_input_length: 1,
    })
    expect(s.inputs[0].converted).toBe(2)
    expect(r.stderr).toContain(`${input}:2: invalid_utf8: `)
  })

  it('suppresses warnings after 100 of one code but still counts them; --quiet prints none', async () => {
    const input = file('many.jsonl', Array.from({length: 130}, () => '{"timestamp": 1}').join('\n'))
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'many.out'),
      '--json',
    ])
    expect(r.exitCode).toBe(1) // no traces at all
    expect(
      r.stderr.split('\n').filter((l) => l.includes('missing_input_length: missing input_length')),
    ).toHaveLength(100)
    expect(r.stderr).toContain(`warning: ${input}: further missing_input_length warnings suppressed`)
    const q = await lmt(['convert', '-q', '-i', input, '-f', 'qwen_bailian', '-o', join(tmp.dir, 'many.out')])
    expect(q.stderr).not.toContain('warning:')
  })
})

const good = () => file('good.jsonl', row('1') + '\n')

describe('lmt convert: errors and exit codes', () => {
  it.each([
    [['--instance-block-sizes', 'a:0'], 2, 'CONVERT_BAD_BLOCK_SIZE'],
    [['--instance-block-sizes', 'a:16,'], 2, 'CLI_BAD_VALUE'],
    [['--model-mapping', 'a'], 2, 'CLI_BAD_VALUE'],
    [['--timezone', 'Nowhere/Land'], 2, 'CONVERT_FLAG_OF_OTHER_FORMAT'],
    [['--num-workers', '-1'], 2, 'CLI_BAD_VALUE'],
    [['--mode', 'lct2'], 2, 'CLI_USAGE'],
    [['--converter-config-json', '[1]'], 1, 'CONVERT_CONFIG_NOT_OBJECT'],
    [['--converter-config-json', '{bad'], 1, 'CONVERT_BAD_CONFIG'],
  ])('%j exits %i with code %s', async (extra, exit, code) => {
    const r = await lmt([
      'convert',
      '-i',
      good(),
      '-f',
      'qwen_bailian',
      '-o',
      join(tmp.dir, 'x.out'),
      '--json',
      ...extra,
    ])
    expect(r.exitCode).toBe(exit)
    const doc = JSON.parse(r.stdout)
    expect(validatorFor('error.schema.json')(doc)).toBe(true)
    expect(doc.error.code).toBe(`LMT_${code}`)
    expect(existsSync(join(tmp.dir, 'x.out'))).toBe(false)
  })

  it('bad JSON in --converter-config-json: the hint shows the expected form', async () => {
    const args = ['convert', '-i', good(), '-f', 'qwen_bailian', '-o', join(tmp.dir, 'cfg.out')]
    const r = await lmt([...args, '--converter-config-json', '{bad'])
    expect(r.exitCode).toBe(1)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^error: invalid converter config: --converter-config-json: /)
    expect(lines[1]).toBe(
      `hint: pass one JSON object in single quotes, e.g. --converter-config-json '{"key": "value"}'`,
    )
    const doc = JSON.parse((await lmt([...args, '--converter-config-json', '{bad', '--json'])).stdout)
    expect(`hint: ${doc.error.hint}`).toBe(lines[1])
  })

  it('unknown format: exit 2 listing every format name and alias', async () => {
    const r = await lmt(['convert', '-i', good(), '-f', 'nope'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      'error: unknown format "nope"; known formats: lmcache_lct, lmcache_lookup, mooncake, publisher_log, qwen_bailian, text, text_trace',
    )
  })

  it('HTTP(S) inputs are usage errors; missing inputs exit 1', async () => {
    expect((await lmt(['convert', '-i', 'HTTPS://example.com/x.jsonl', '-f', 'qwen_bailian'])).exitCode).toBe(
      2,
    )
    const r = await lmt(['convert', '-i', join(tmp.dir, 'missing.jsonl'), '-f', 'qwen_bailian'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(`error: input not found: ${join(tmp.dir, 'missing.jsonl')}`)
    expect((await lmt(['convert', '-i', tmp.dir, '-f', 'qwen_bailian'])).exitCode).toBe(1)
  })

  it('refuses an output that is an input or a directory', async () => {
    const input = good()
    expect((await lmt(['convert', '-i', input, '-f', 'qwen_bailian', '-o', input])).exitCode).toBe(2)
    expect((await lmt(['convert', '-i', input, '-f', 'qwen_bailian', '-o', tmp.dir])).exitCode).toBe(2)
    expect(readFileSync(input, 'utf8')).toBe(row('1') + '\n')
  })

  it('no traces from any input: exit 1, no output created, an existing output untouched', async () => {
    const empty = file('empty.jsonl', '\n\n{"timestamp": 1}\n')
    const out = file('existing.jsonl', 'old content\n')
    const r = await lmt(['convert', '-i', empty, '-f', 'qwen_bailian', '-o', out])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('error: no traces generated from any input')
    expect(r.stderr).toMatch(
      /\nerror: no traces generated from any input\nhint: check that -f names the format of the input \(`lmt converters` lists them\), read the warnings above, or check that the input is not empty\n$/,
    )
    expect(readFileSync(out, 'utf8')).toBe('old content\n')
    expect(readdirSync(tmp.dir).filter((n) => n.startsWith('.'))).toEqual([])
  })

  it('--strict stops at the first bad line with exit 1 and leaves the old output', async () => {
    const input = file('strict.jsonl', `${row('1')}\nnot json\n${row('2')}\n`)
    const out = file('strict-out.jsonl', 'keep\n')
    const r = await lmt(['convert', '-i', input, '-f', 'qwen_bailian', '-o', out, '--strict', '--json'])
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_CONVERT_STRICT_INPUT')
    expect(readFileSync(out, 'utf8')).toBe('keep\n')
  })

  it('an output whose directory cannot be created is a handled error (exit 1)', async () => {
    const blocker = file('not-a-dir', 'x')
    const r = await lmt([
      'convert',
      '-i',
      good(),
      '-f',
      'qwen_bailian',
      '-o',
      join(blocker, 'sub', 'x.jsonl'),
      '--json',
    ])
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toBe('LMT_CONVERT_OUTPUT_FAILED')
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during a long conversion: exit code, temporary files removed, old output untouched',
    async (sig, exitCode) => {
      const {dir, cleanup} = tempDir()
      const rows: string[] = []
      for (let i = 0; i < 60000; i++)
        rows.push(row(String(i), `[${Array.from({length: 60}, (_, k) => i * 61 + k).join(', ')}]`, 960))
      writeFileSync(join(dir, 'big.jsonl'), rows.join('\n'))
      writeFileSync(join(dir, 'out.jsonl'), 'previous\n')
      const child = spawnLmt([
        'convert',
        '-i',
        join(dir, 'big.jsonl'),
        '-f',
        'qwen_bailian',
        '-o',
        join(dir, 'out.jsonl'),
      ])
      let stderr = ''
      let sent = false
      child.stderr.on('data', (d) => {
        stderr += d
        if (!sent && stderr.includes('lmt convert: format')) {
          sent = true
          setTimeout(() => child.kill(sig), 150)
        }
      })
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) =>
        child.on('close', (c, s) => res([c, s])),
      )
      expect({code, signal}, stderr).toEqual({code: exitCode, signal: null})
      expect(stderr).toContain(`error: interrupted by ${sig}`)
      expect(readdirSync(dir).sort()).toEqual(['big.jsonl', 'out.jsonl'])
      expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe('previous\n')
      cleanup()
    },
  )

  it('the real binary exits 2 on a parse error and prints error: lines', () => {
    const r = lmtProcess(['convert', '-f', 'qwen_bailian'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/^error: /)
  })
})

describe('lmt convert: custom converters', () => {
  const mod = (name: string, body: string) => file(name, body)

  it('hands the merged converter config and options to a --converter-module converter', async () => {
    const m = mod(
      'cfg.mjs',
      `export class EchoConverter {
        constructor(o) { this.o = o }
        async *convertToTraces(path, ctx) {
          for await (const line of ctx.lines()) { ctx.converted(line); yield {type: 'echo', instance_id: this.o.defaultInstanceId, timestamp_ns: 5n, config: this.o.converterConfig, sizes: Object.fromEntries(this.o.instanceBlockSizes), truncate: this.o.truncate, mapping: Object.fromEntries(this.o.modelMapping ?? []), workers: this.o.numWorkers} }
        }
      }`,
    )
    const cfg = file('cfg.json', '{"a":1,"b":[1,2]}')
    const out = join(tmp.dir, 'echo.jsonl')
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      good(),
      '-f',
      'echo',
      '--converter-module',
      m,
      '--converter-config-file',
      cfg,
      '--converter-config-json',
      '{"b":2,"c":null}',
      '--instance-block-sizes',
      'x:8',
      '--no-truncate',
      '--model-mapping',
      'a:b',
      '--num-workers',
      '3',
      '-o',
      out,
    ])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "echo", "instance_id": "instance", "timestamp_ns": 5, "config": {"a": 1, "b": 2, "c": null}, "sizes": {"x": 8}, "truncate": false, "mapping": {"a": "b"}, "workers": 3}\n',
    )
  })

  it('gives no converterConfig when no config flag is given', async () => {
    const m = mod(
      'nocfg.mjs',
      `export class NoCfgConverter { constructor(o) { this.has = 'converterConfig' in o } convertToTraces() { return [{timestamp_ns: 1, has: this.has}] } }`,
    )
    const out = join(tmp.dir, 'nocfg.jsonl')
    expect(
      (await lmt(['convert', '-q', '-i', good(), '-f', 'no_cfg', '--converter-module', m, '-o', out]))
        .exitCode,
    ).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe('{"timestamp_ns": 1, "has": false}\n')
  })

  it('sorts and re-serializes convertToTraceJsonl output; --no-sort copies it verbatim', async () => {
    const m = mod(
      'jsonl.mjs',
      `import {writeFileSync} from 'node:fs'
       export class FileConverter { convertToTraceJsonl(i, o) { writeFileSync(o, '{"timestamp_ns":3,"v":1.0}\\n\\n  {"timestamp_ns":1,"type":"get"}  \\n'); return 3 } }`,
    )
    const out = join(tmp.dir, 'file.jsonl')
    const r = await lmt(['convert', '-i', good(), '-f', 'file', '--converter-module', m, '-o', out, '--json'])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"timestamp_ns": 1, "type": "get"}\n{"timestamp_ns": 3, "v": 1.0}\n',
    )
    expect(r.stderr).toContain('reported 3 traces')
    expect(JSON.parse(r.stdout).inputs[0].linesRead).toBeNull()
    await lmt(['convert', '-q', '-i', good(), '-f', 'file', '--converter-module', m, '-o', out, '--no-sort'])
    expect(readFileSync(out, 'utf8')).toBe('{"timestamp_ns":3,"v":1.0}\n{"timestamp_ns":1,"type":"get"}\n')
  })

  it.each([
    [
      'bad-count.mjs',
      `export class BadCountConverter { convertToTraceJsonl() { return true } }`,
      'bad_count',
      'BadCountConverter.convertToTraceJsonl() must return a non-negative integer trace count (got true)',
    ],
    [
      'bad-ret.mjs',
      `export class BadRetConverter { convertToTraces() { return 42 } }`,
      'bad_ret',
      'BadRetConverter.convertToTraces() must return an array or an (async) iterable of traces',
    ],
    [
      'bad-trace.mjs',
      `export class BadTraceConverter { convertToTraces() { return [1] } }`,
      'bad_trace',
      'BadTraceConverter produced a trace that is not an object',
    ],
    [
      'bad-ts.mjs',
      `export class BadTsConverter { convertToTraces() { return [{timestamp_ns: 1.5}] } }`,
      'bad_ts',
      'BadTsConverter produced a trace without an integer timestamp_ns',
    ],
    [
      'bad-val.mjs',
      `export class BadValConverter { convertToTraces() { return [{timestamp_ns: 1, f: () => 1}] } }`,
      'bad_val',
      'BadValConverter produced a trace that cannot be serialized',
    ],
  ])('contract violation %s → exit 1 naming the class', async (name, body, format, message) => {
    const m = mod(name, body)
    const r = await lmt([
      'convert',
      '-i',
      good(),
      '-f',
      format,
      '--converter-module',
      m,
      '-o',
      join(tmp.dir, 'v.out'),
      '--json',
    ])
    expect(r.exitCode).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.error.code).toBe('LMT_PLUGIN_CONTRACT_VIOLATION')
    expect(doc.error.message).toContain(message)
  })

  it('a converter that throws fails the run naming class and input; init/close are called', async () => {
    const marker = join(tmp.dir, 'closed.txt')
    const m = mod(
      'throws.mjs',
      `import {writeFileSync} from 'node:fs'
       export class ThrowsConverter { async init() {} close() { writeFileSync(${JSON.stringify(marker)}, 'closed') } convertToTraces() { throw new Error('kaput') } }`,
    )
    const input = good()
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'throws',
      '--converter-module',
      m,
      '-o',
      join(tmp.dir, 't.out'),
    ])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(`error: ThrowsConverter failed on ${input}: kaput`)
    expect(readFileSync(marker, 'utf8')).toBe('closed')
  })

  it('loads TypeScript converter modules', async () => {
    const m = mod(
      'typed.ts',
      `export class TypedConverter { convertToTraces(): Array<{timestamp_ns: bigint}> { return [{timestamp_ns: 7n as bigint}] } }`,
    )
    const out = join(tmp.dir, 'typed.jsonl')
    expect(
      (await lmt(['convert', '-q', '-i', good(), '-f', 'typed', '--converter-module', m, '-o', out]))
        .exitCode,
    ).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe('{"timestamp_ns": 7}\n')
  })
})
