import {existsSync, mkdirSync, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../../src/schemas.js'
import {copyFixtures, FIXTURES, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'

const CONVERT = join(FIXTURES, 'convert')
const tmp = tempDir()
const expected = (name: string) => readFileSync(join(CONVERT, name))

beforeAll(() =>
  copyFixtures(tmp.dir, 'convert', [
    'event_publisher.log',
    'publisher_edge_cases.log',
    'qwen_bailian_sample.jsonl',
    'mooncake_conversation_head200.jsonl',
  ]),
)
afterAll(() => tmp.cleanup())

/** ⌊T / 10^9⌋ × 10^6 + (T mod 10^9): the mooncake timestamp mapping of spec §8.3. */
function toMooncake(text: string): string {
  const map = (t: string) => {
    const v = BigInt(t)
    return ((v / 1_000_000_000n) * 1_000_000n + (v % 1_000_000_000n)).toString()
  }
  return text
    .replace(/"trace_id": "trace_instance_(\d+)"/g, (_, t) => `"trace_id": "trace_instance_${map(t)}"`)
    .replace(/"timestamp_ns": (\d+)/g, (_, t) => `"timestamp_ns": ${map(t)}`)
}

const cases: Array<{name: string; input: string; args: string[]; expected: string}> = [
  {
    name: 'publisher log',
    input: 'event_publisher.log',
    args: ['-f', 'publisher_log'],
    expected: 'event_publisher.expected.jsonl',
  },
  {
    name: 'publisher edge cases',
    input: 'publisher_edge_cases.log',
    args: ['-f', 'publisher_log', '--instance-block-sizes', 'instA:16,instB:32'],
    expected: 'publisher_edge_cases.expected.jsonl',
  },
  {
    name: 'qwen sample',
    input: 'qwen_bailian_sample.jsonl',
    args: ['-f', 'qwen_bailian', '--instance-id', 'my_instance'],
    expected: 'qwen_bailian_sample.expected.jsonl',
  },
  {
    name: 'mooncake rows as qwen, 512-token blocks',
    input: 'mooncake_conversation_head200.jsonl',
    args: ['-f', 'qwen_bailian', '--instance-block-sizes', 'instance:512'],
    expected: 'mooncake_conversation_head200.bs512.expected.jsonl',
  },
  {
    name: 'mooncake rows as qwen, 16-token blocks',
    input: 'mooncake_conversation_head200.jsonl',
    args: ['-f', 'qwen_bailian'],
    expected: 'mooncake_conversation_head200.bs16.expected.jsonl',
  },
]

describe('lmt convert reproduces the original converter byte for byte', () => {
  for (const c of cases) {
    for (const variant of [[], ['--no-sort']]) {
      it(`${c.name} ${variant.join(' ')}`, async () => {
        const out = join(tmp.dir, `${c.expected}.${variant.length}.out`)
        const r = await lmt(['convert', '-q', '-i', join(tmp.dir, c.input), '-o', out, ...c.args, ...variant])
        expect(r.exitCode).toBe(0)
        expect(readFileSync(out).equals(expected(c.expected))).toBe(true)
      })
    }
  }

  it.each([
    [[], 'mooncake_conversation_head200.bs512.expected.jsonl'],
    [['--instance-block-sizes', 'instance:16'], 'mooncake_conversation_head200.bs16.expected.jsonl'],
  ])('mooncake format %j equals the qwen output with ms timestamps', async (extra, name) => {
    const out = join(tmp.dir, `mc-${extra.length}.jsonl`)
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      join(tmp.dir, 'mooncake_conversation_head200.jsonl'),
      '-f',
      'mooncake',
      '-o',
      out,
      ...extra,
    ])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(toMooncake(expected(name).toString('utf8')))
  })

  it('names the output <stem>_optimizer.jsonl in the current folder and leaves nothing else', () => {
    const {dir, cleanup} = tempDir()
    const cwd = join(dir, 'here')
    mkdirSync(cwd)
    copyFixtures(dir, 'convert', ['qwen_bailian_sample.jsonl'])
    const args = ['convert', '-q', '-i', join(dir, 'qwen_bailian_sample.jsonl'), '-f', 'qwen_bailian']
    const r = lmtProcess([...args, '--instance-id', 'my_instance'], {cwd})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readdirSync(dir).sort()).toEqual(['here', 'qwen_bailian_sample.jsonl'])
    expect(readdirSync(cwd)).toEqual(['qwen_bailian_sample_optimizer.jsonl'])
    expect(
      readFileSync(join(cwd, 'qwen_bailian_sample_optimizer.jsonl')).equals(
        expected('qwen_bailian_sample.expected.jsonl'),
      ),
    ).toBe(true)
    cleanup()
  })
})

describe('summary and warnings', () => {
  it('prints every warning of the original with file, line, code and preview, and the JSON summary', async () => {
    const input = join(tmp.dir, 'qwen_bailian_sample.jsonl')
    const out = join(tmp.dir, 'q-summary.jsonl')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'qwen_bailian',
      '--instance-id',
      'my_instance',
      '-o',
      out,
      '--json',
    ])
    expect(r.exitCode).toBe(0)
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: '))
    expect(warnings).toEqual([
      `warning: ${input}:8: missing_input_length: missing input_length | {"timestamp": 5.0, "hash_ids": [9]}`,
      `warning: ${input}:9: nonpositive_input_length: input_length must be positive (got 0) | {"timestamp": 6.0, "input_length": 0, "hash_ids": [9]}`,
      `warning: ${input}:11: invalid_json: invalid JSON: expecting property name enclosed in double quotes at column 2 | {this is not json}`,
    ])
    const summary = JSON.parse(r.stdout)
    expect(validatorFor('convert-summary.schema.json')(summary)).toBe(true)
    expect(summary).toMatchObject({
      format: 'qwen_bailian',
      converter: {className: 'QwenBailianConverter', source: 'built-in'},
      output: out,
      ordering: 'merged',
      traces: {total: 18, byType: {get: 9, write: 9}},
      instances: [{instanceId: 'my_instance', blockSize: 16, traces: 18}],
      inputs: [
        {
          path: input,
          linesRead: 13,
          blankLines: 1,
          converted: 9,
          skipped: {invalid_json: 1, missing_input_length: 1, nonpositive_input_length: 1},
          dropped: {},
          notes: {},
          traces: {total: 18, byType: {get: 9, write: 9}},
        },
      ],
      warnings: 3,
    })
  })

  it('accounts for every publisher line (spec §8.4 worked example)', async () => {
    const input = join(tmp.dir, 'publisher_edge_cases.log')
    const r = await lmt([
      'convert',
      '-i',
      input,
      '-f',
      'publisher_log',
      '--instance-block-sizes',
      'instA:16,instB:32',
      '-o',
      join(tmp.dir, 'pe.jsonl'),
      '--json',
    ])
    const s = JSON.parse(r.stdout)
    const i = s.inputs[0]
    expect(i).toMatchObject({
      linesRead: 14,
      blankLines: 0,
      converted: 7,
      skipped: {invalid_json: 1, nonpositive_input_length: 1},
      dropped: {min_replica_event: 1, write_unmatched: 2, unknown_event_type: 1, finish_unknown_session: 1},
      notes: {input_len_from_keys: 1},
      traces: {total: 6, byType: {get: 4, write: 2}},
    })
    expect(s.instances).toEqual([
      {instanceId: 'instA', blockSize: 16, traces: 4},
      {instanceId: 'instB', blockSize: 32, traces: 2},
    ])
    const warned = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('warning: '))
      .map((l) => l.split(': ').slice(1, 3).join(': '))
    expect(warned).toEqual([
      `${input}:7: input_len_from_keys`,
      `${input}:12: invalid_json`,
      `${input}:14: nonpositive_input_length`,
    ])
  })

  it.each([
    ['event_publisher.log', ['-f', 'publisher_log']],
    ['publisher_edge_cases.log', ['-f', 'publisher_log']],
    ['qwen_bailian_sample.jsonl', ['-f', 'qwen_bailian']],
    ['mooncake_conversation_head200.jsonl', ['-f', 'mooncake']],
  ])('line accounting identity holds for %s', async (name, args) => {
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      join(tmp.dir, name),
      ...args,
      '-o',
      join(tmp.dir, `acc-${name}`),
      '--json',
    ])
    const i = JSON.parse(r.stdout).inputs[0]
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0)
    expect(i.linesRead).toBe(i.blankLines + i.converted + sum(i.skipped) + sum(i.dropped))
  })

  it('the real publisher log: 300 lines, 204 traces, one instance, note input_len_from_keys 102', async () => {
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      join(tmp.dir, 'event_publisher.log'),
      '-f',
      'publisher_log',
      '-o',
      join(tmp.dir, 'ep.jsonl'),
      '--json',
    ])
    const s = JSON.parse(r.stdout)
    expect(s.inputs[0]).toMatchObject({linesRead: 300, converted: 300, notes: {input_len_from_keys: 102}})
    expect(s.traces).toEqual({total: 204, byType: {get: 102, write: 102}})
    expect(s.instances).toEqual([{instanceId: '3780643326877293460', blockSize: 16, traces: 204}])
  })

  it('every output record validates against the JSON Schemas', async () => {
    const validate = validatorFor('trace-record.schema.json')
    for (const c of cases) {
      for (const line of expected(c.expected).toString('utf8').trim().split('\n')) {
        const ok = validate(JSON.parse(line))
        expect(ok, JSON.stringify(validate.errors)).toBe(true)
      }
    }
    expect(
      validate(
        JSON.parse(
          '{"type": "get", "instance_id": "i", "trace_id": "trace_i_1", "timestamp_ns": 1, "keys": []}',
        ),
      ),
    ).toBe(false)
    expect(existsSync(join(tmp.dir, 'nothing'))).toBe(false)
  })
})
