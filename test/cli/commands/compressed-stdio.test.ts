import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, FIXTURES, lmt, ROOT, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const compressed = (name: string) => join(FIXTURES, 'compressed', name)
const QWEN = join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')
// the original's output for the sample (docs/convert.md §13)
const EXPECTED = readFileSync(join(FIXTURES, 'convert', 'qwen_bailian_sample.expected.jsonl'), 'utf8')
const QWEN_ARGS = ['-f', 'qwen_bailian', '--instance-id', 'my_instance', '-q']

/** The built CLI with bytes on its standard input. */
function withStdin(args: string[], input: Buffer, cwd = tmp.dir) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, input, env: {...process.env, NO_COLOR: '1'}})
  return {stdout: r.stdout, stderr: r.stderr.toString(), exitCode: r.status}
}

describe('compressed inputs (by their first bytes) and - for standard input and output', () => {
  // made by the gzip and zstd commands (the .zst of the JSONL is two frames, as `zstd a >> f; zstd b >> f` makes)
  it.each(['qwen_bailian_sample.jsonl.gz', 'qwen_bailian_sample.jsonl.zst'])(
    'converts %s byte for byte as the plain file, whatever its name',
    async (name) => {
      const misnamed = join(tmp.dir, `${name}.looks-plain.jsonl`)
      copyFileSync(compressed(name), misnamed)
      for (const input of [compressed(name), misnamed]) {
        const out = join(tmp.dir, `${name}.out.jsonl`)
        const r = await lmt(['convert', '-i', input, '-o', out, ...QWEN_ARGS])
        expect(r.exitCode, r.stderr).toBe(0)
        expect(readFileSync(out, 'utf8')).toBe(EXPECTED)
      }
    },
  )

  it.each([
    ['truncated gzip', 'qwen_bailian_sample.jsonl.gz', (b: Buffer) => b.subarray(0, b.length - 30)],
    ['truncated zstd', 'qwen_bailian_sample.jsonl.zst', (b: Buffer) => b.subarray(0, b.length - 30)],
    [
      'corrupt zstd',
      'qwen_bailian_sample.jsonl.zst',
      (b: Buffer) => {
        const c = Buffer.from(b)
        for (let i = 20; i < 60; i++) c[i] ^= 0x5a
        return c
      },
    ],
    [
      'corrupt gzip',
      'qwen_bailian_sample.jsonl.gz',
      (b: Buffer) => {
        const c = Buffer.from(b)
        for (let i = 20; i < 60; i++) c[i] ^= 0x5a
        return c
      },
    ],
  ])('a %s input is a coded error naming the file, and no output', async (label, name, damage) => {
    const bad = join(tmp.dir, `${label.replace(' ', '-')}.in`)
    writeFileSync(bad, damage(readFileSync(compressed(name))))
    const out = join(tmp.dir, `${label.replace(' ', '-')}.out.jsonl`)
    const r = await lmt(['convert', '-i', bad, '-o', out, ...QWEN_ARGS, '--json'])
    expect(r.exitCode).toBe(1)
    const doc = JSON.parse(r.stdout) as {error: {code: string; message: string}}
    expect(doc.error.code).toBe('LMT_CLI_INPUT_CORRUPT')
    expect(doc.error.message).toContain(bad)
    expect(existsSync(out)).toBe(false)
  })

  it('convert -i - -o - reads zstd from standard input and writes the records to standard output', () => {
    const r = withStdin(
      ['convert', '-i', '-', '-o', '-', ...QWEN_ARGS],
      readFileSync(compressed('qwen_bailian_sample.jsonl.zst')),
    )
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.toString()).toBe(EXPECTED)
    // -o - with --json would mix the summary into the records
    const j = withStdin(['convert', '-i', QWEN, '-o', '-', ...QWEN_ARGS, '--json'], Buffer.alloc(0))
    expect(j.exitCode).toBe(2)
    expect(JSON.parse(j.stdout.toString()).error.code).toBe('LMT_CLI_FLAGS_EXCLUSIVE')
  })

  it('convert without -o writes into the current folder (stdin_optimizer.jsonl for -), not beside the input', () => {
    const cwd = tempDir()
    try {
      const r = withStdin(['convert', '-i', QWEN, ...QWEN_ARGS], Buffer.alloc(0), cwd.dir)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(join(cwd.dir, 'qwen_bailian_sample_optimizer.jsonl'), 'utf8')).toBe(EXPECTED)
      expect(existsSync(join(FIXTURES, 'convert', 'qwen_bailian_sample_optimizer.jsonl'))).toBe(false)
      const s = withStdin(['convert', '-i', '-', ...QWEN_ARGS], readFileSync(QWEN), cwd.dir)
      expect(s.exitCode, s.stderr).toBe(0)
      expect(readFileSync(join(cwd.dir, 'stdin_optimizer.jsonl'), 'utf8')).toBe(EXPECTED)
      expect(readdirSync(cwd.dir).sort()).toEqual([
        'qwen_bailian_sample_optimizer.jsonl',
        'stdin_optimizer.jsonl',
      ])
    } finally {
      cwd.cleanup()
    }
  })

  it('trace info and dump read a zstd .lct from a file and from standard input alike', async () => {
    const plain = await lmt([
      'trace',
      'info',
      join(ROOT, 'samples', 'lct', 'v2_full_prefetch_cycle.lct'),
      '--json',
    ])
    const packed = await lmt(['trace', 'info', compressed('v2_full_prefetch_cycle.lct.zst'), '--json'])
    const piped = withStdin(
      ['trace', 'info', '-', '--json'],
      readFileSync(compressed('v2_full_prefetch_cycle.lct.zst')),
    )
    expect(plain.exitCode).toBe(0)
    const counts = (doc: string) => {
      const {file: _f, ...rest} = JSON.parse(doc) as Record<string, unknown>
      return rest
    }
    expect(counts(packed.stdout)).toEqual(counts(plain.stdout))
    expect(counts(piped.stdout.toString())).toEqual(counts(plain.stdout))
    const dump = withStdin(
      ['trace', 'dump', '-', '--limit', '3'],
      readFileSync(compressed('v2_full_prefetch_cycle.lct.zst')),
    )
    const dumpPlain = await lmt([
      'trace',
      'dump',
      join(ROOT, 'samples', 'lct', 'v2_full_prefetch_cycle.lct'),
      '--limit',
      '3',
    ])
    expect(dump.stdout.toString()).toBe(dumpPlain.stdout)
  })

  it('simulate --trace - gives the numbers of the same trace given as a gzip file', async () => {
    const trace = join(tmp.dir, 'mooncake.trace.jsonl')
    const head = join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl')
    expect((await lmt(['convert', '-i', head, '-f', 'mooncake', '-o', trace, '-q'])).exitCode).toBe(0)
    const gz = spawnSync('gzip', ['-c', trace])
    const args = ['--capacity-blocks', '40', '--block-size', '512', '-q', '--json']
    const fromFile = await lmt(['simulate', '--trace', trace, ...args, '-o', join(tmp.dir, 'sim-file')])
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    const piped = withStdin(
      ['simulate', '--trace', '-', ...args, '-o', join(tmp.dir, 'sim-stdin')],
      gz.status === 0 ? gz.stdout : readFileSync(trace),
    )
    expect(piped.exitCode, piped.stderr).toBe(0)
    const numbers = (doc: string) => {
      const {groups, instances} = JSON.parse(doc) as {groups: unknown; instances: unknown}
      return {groups, instances}
    }
    expect(numbers(piped.stdout.toString())).toEqual(numbers(fromFile.stdout))
  })

  const HEAD200 = join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl')
  const REPORT_ARGS = ['--points', '3', '--policies', 'lru', '--json', '--no-progress']
  const answerOf = (doc: string) => (JSON.parse(doc) as {answer: unknown}).answer

  it('simulate -i - -f mooncake converts standard input as it converts the same file', async () => {
    const args = ['-f', 'mooncake', '--capacity-blocks', '40', '--block-size', '512', '-q', '--json']
    const fromFile = await lmt(['simulate', '-i', HEAD200, ...args, '-o', join(tmp.dir, 'simi-file')])
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    const piped = withStdin(
      ['simulate', '-i', '-', ...args, '-o', join(tmp.dir, 'simi-stdin')],
      readFileSync(HEAD200),
    )
    expect(piped.exitCode, piped.stderr).toBe(0)
    const numbers = (doc: string) => (JSON.parse(doc) as {instances: unknown}).instances
    expect(numbers(piped.stdout.toString())).toEqual(numbers(fromFile.stdout))
  })

  it('report --trace - and report -i - -f mooncake answer as for the same files', async () => {
    const trace = join(tmp.dir, 'report-in.jsonl')
    expect((await lmt(['convert', '-i', HEAD200, '-f', 'mooncake', '-o', trace, '-q'])).exitCode).toBe(0)
    const fromFile = await lmt([
      'report',
      '--trace',
      trace,
      ...REPORT_ARGS,
      '-o',
      join(tmp.dir, 'r-file.html'),
    ])
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    const traced = withStdin(
      ['report', '--trace', '-', ...REPORT_ARGS, '-o', join(tmp.dir, 'r-trace.html')],
      readFileSync(trace),
    )
    expect(traced.exitCode, traced.stderr).toBe(0)
    expect(answerOf(traced.stdout.toString())).toEqual(answerOf(fromFile.stdout))
    const converted = withStdin(
      ['report', '-i', '-', '-f', 'mooncake', ...REPORT_ARGS, '-o', join(tmp.dir, 'r-input.html')],
      readFileSync(HEAD200),
    )
    expect(converted.exitCode, converted.stderr).toBe(0)
    expect(answerOf(converted.stdout.toString())).toEqual(answerOf(fromFile.stdout))
  })

  it.each(['simulate', 'report'])('%s -i - -i - is refused: standard input can be read once', (command) => {
    const r = withStdin([command, '-i', '-', '-i', '-', '-f', 'mooncake', '--json'], readFileSync(HEAD200))
    expect(r.exitCode).toBe(2)
    expect((JSON.parse(r.stdout.toString()) as {error: {code: string}}).error.code).toBe(
      'LMT_CLI_STDIN_TWICE',
    )
  })
})
