// LMT_PLAIN=1 runs every command on its plain paths (src/util/plain.ts): on the golden fixtures the outputs are the
// same bytes as with the accelerators on, and the conversions the same bytes as the original converter's.
import {mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FIXTURES, ROOT, lmtProcess, tempDir} from './helpers/cli.js'

const tmp = tempDir('lmt-plain-')
afterAll(() => tmp.cleanup())

const MODES = {accelerated: '0', plain: '1'} as const
type Mode = keyof typeof MODES

/** Runs lmt in `mode`, in that mode's folder; fails on a non-zero exit. */
function run(mode: Mode, args: string[]): {stdout: string; stderr: string} {
  const r = lmtProcess(args, {cwd: join(tmp.dir, mode), env: {LMT_PLAIN: MODES[mode]}})
  expect(r.exitCode, r.stderr).toBe(0)
  return r
}

/** The files a run wrote into `out` of each mode's folder, by name. */
function filesOf(mode: Mode, out: string): Map<string, string> {
  const dir = join(tmp.dir, mode, out)
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]))
}

/** summary.json without what differs from run to run (timings, memory) or names each mode's folder. */
function stableSummary(text: string, mode: Mode): unknown {
  const doc = JSON.parse(text.replaceAll(join(tmp.dir, mode), '<dir>')) as Record<string, unknown>
  delete doc.performance
  return doc
}

/** Runs `args` in both modes and expects the same files in `out` (summary.json: but for timings). */
function expectSameFiles(args: string[], out: string): void {
  for (const mode of Object.keys(MODES) as Mode[]) run(mode, args)
  const [a, b] = [filesOf('accelerated', out), filesOf('plain', out)]
  expect([...b.keys()].sort()).toEqual([...a.keys()].sort())
  for (const [name, text] of a) {
    if (name === 'summary.json')
      expect(stableSummary(b.get(name)!, 'plain'), name).toEqual(stableSummary(text, 'accelerated'))
    else expect(b.get(name), name).toBe(text)
  }
}

beforeAll(() => {
  for (const mode of Object.keys(MODES)) mkdirSync(join(tmp.dir, mode))
})

describe('LMT_PLAIN=1', () => {
  it.each([
    [
      'qwen_bailian_sample.jsonl',
      ['-f', 'qwen_bailian', '--instance-id', 'my_instance'],
      'qwen_bailian_sample',
    ],
    [
      'mooncake_conversation_head200.jsonl',
      ['-f', 'qwen_bailian', '--instance-block-sizes', 'instance:512'],
      'mooncake_conversation_head200.bs512',
    ],
    ['event_publisher.log', ['-f', 'publisher_log'], 'event_publisher'],
    [
      'publisher_edge_cases.log',
      ['-f', 'publisher_log', '--instance-block-sizes', 'instA:16,instB:32'],
      'publisher_edge_cases',
    ],
  ])(
    'converts %s to the original converter’s bytes, as the accelerated run does',
    (input, flags, expected) => {
      const golden = readFileSync(join(FIXTURES, 'convert', `${expected}.expected.jsonl`), 'utf8')
      for (const mode of Object.keys(MODES) as Mode[]) {
        run(mode, [
          'convert',
          '-q',
          '-i',
          join(FIXTURES, 'convert', input),
          ...flags,
          '-o',
          `${expected}.out`,
        ])
        expect(readFileSync(join(tmp.dir, mode, `${expected}.out`), 'utf8'), mode).toBe(golden)
      }
    },
  )

  describe('simulate', () => {
    beforeAll(() => {
      const sample = join(ROOT, 'samples', 'mooncake_synthetic_trace.jsonl')
      for (const mode of Object.keys(MODES) as Mode[])
        run(mode, [
          'convert',
          '-q',
          '-i',
          sample,
          '-f',
          'qwen_bailian',
          '--instance-block-sizes',
          'instance:512',
          '-o',
          'syn.jsonl',
        ])
    })
    const trace = ['--trace', 'syn.jsonl']

    it.each([
      ['lru, block size inferred', ['--capacity-blocks', '10037'], 'lru'],
      [
        'random_lru',
        ['--policy', 'random_lru', '--capacity-blocks', '4015', '--block-size', '512'],
        'random',
      ],
      ['a sweep', ['--sweep', '--sweep-capacities', '1000,5000,20000', '--block-size', '512'], 'sweep'],
    ])('%s: the same CSVs, plots and summary', (_name, flags, out) => {
      expectSameFiles(['simulate', '-q', ...trace, ...flags, '-o', out], out)
    })
  })

  it.each(['v2_full_prefetch_cycle.lct', 'v2_truncated_tail.lct', 'v2_all_codec_shapes.lct'])(
    'trace info %s prints the same',
    (name) => {
      const file = join(FIXTURES, 'lct', name)
      for (const args of [[file], [file, '--json']]) {
        const [a, b] = [
          run('accelerated', ['trace', 'info', ...args]),
          run('plain', ['trace', 'info', ...args]),
        ]
        expect(b).toEqual(a)
      }
    },
  )

  it('replay ends in the same model state', () => {
    const args = ['replay', join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct'), '--l1-size-gb', '0.0625']
    const model = (mode: Mode): unknown =>
      (
        JSON.parse(run(mode, [...args, '--no-l1-use-lazy', '--eviction-policy', 'LRU', '--json']).stdout) as {
          model: unknown
        }
      ).model
    expect(model('plain')).toEqual(model('accelerated'))
  })
})
