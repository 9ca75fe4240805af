// Where every command writes: devices and FIFOs are never written over, unwritable paths are coded errors that say
// what is wrong, a failing standard output is a coded error without a stack trace.
import {spawn, spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, FIXTURES, lmtProcess, ROOT, tempDir} from '../../helpers/cli.js'

const tmp = tempDir('lmt-outputs-')
afterAll(() => tmp.cleanup())

const QWEN = join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')
const LCT = join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct')
const REPLAY_FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU', '-q']
const canMknod = spawnSync('mknod', [join(tmp.dir, 'probe'), 'c', '1', '3']).status === 0

/** A folder holding `dev` (the null device, 1:3), `full` (the full device, 1:7) and `fifo`. */
function special(name: string): {dir: string; dev: string; full: string; fifo: string} {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  const s = {dir, dev: join(dir, 'dev'), full: join(dir, 'full'), fifo: join(dir, 'fifo')}
  spawnSync('mknod', [s.dev, 'c', '1', '3'])
  spawnSync('mknod', [s.full, 'c', '1', '7'])
  spawnSync('mkfifo', [s.fifo])
  return s
}

/** Runs the CLI with a time limit: a FIFO opened for writing would block forever. */
function run(args: string[], timeout = 60_000) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd: ROOT, encoding: 'utf8', timeout})
  return {stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1}
}

function expectRefused(r: {stderr: string; exitCode: number}, path: string, what: string): void {
  expect(r.exitCode, r.stderr).toBe(2)
  expect(r.stderr).toContain(`error: output ${path} exists and is ${what}, not a regular file`)
  expect(r.stderr).toMatch(/hint: choose an output path/)
}

describe.skipIf(!canMknod)(
  'an output that exists and is not a regular file is refused before any work',
  () => {
    const s = special('refuse')

    it('convert -o <device>, convert --mode lct -o <FIFO>: exit 2, the device stays a device', () => {
      expectRefused(
        run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', s.dev]),
        s.dev,
        'a character device',
      )
      expect(statSync(s.dev).isCharacterDevice()).toBe(true)
      expectRefused(
        run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '--mode', 'lct', '-o', s.fifo]),
        s.fifo,
        'a FIFO (named pipe)',
      )
      expect(statSync(s.fifo).isFIFO()).toBe(true)
      expect(readdirSync(s.dir).sort()).toEqual(['dev', 'fifo', 'full'])
    })

    it('convert --json: the refusal is the JSON error OUTPUT_NOT_REGULAR', () => {
      const r = run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', s.dev, '--json'])
      expect(r.exitCode).toBe(2)
      expect(JSON.parse(r.stdout).error).toMatchObject({code: 'LMT_OUTPUT_NOT_REGULAR', exitCode: 2})
    })

    it('simulate: a device in the output folder where summary.json goes', () => {
      const out = join(tmp.dir, 'sim-dev')
      mkdirSync(out)
      spawnSync('mknod', [join(out, 'summary.json'), 'c', '1', '3'])
      const trace = join(FIXTURES, 'convert', 'qwen_bailian_sample.expected.jsonl')
      const r = run([
        'simulate',
        '--trace',
        trace,
        '--block-size',
        '16',
        '--capacity-blocks',
        '10',
        '-o',
        out,
      ])
      expectRefused(r, join(out, 'summary.json'), 'a character device')
      expect(readdirSync(out)).toEqual(['summary.json'])
      expect(statSync(join(out, 'summary.json')).isCharacterDevice()).toBe(true)
    })

    it('replay: --jsonl-out <FIFO>, --record <device>, a device as trace_replay_ops.csv', () => {
      const out = join(tmp.dir, 'replay-out')
      expectRefused(
        run(['replay', LCT, ...REPLAY_FLAGS, '--output-dir', out, '--jsonl-out', s.fifo], 20_000),
        s.fifo,
        'a FIFO (named pipe)',
      )
      expectRefused(
        run(['replay', LCT, ...REPLAY_FLAGS, '--output-dir', out, '--record', s.dev]),
        s.dev,
        'a character device',
      )
      const dirWithDev = join(tmp.dir, 'replay-dev')
      mkdirSync(dirWithDev)
      spawnSync('mknod', [join(dirWithDev, 'trace_replay_ops.csv'), 'c', '1', '3'])
      expectRefused(
        run(['replay', LCT, ...REPLAY_FLAGS, '--output-dir', dirWithDev]),
        join(dirWithDev, 'trace_replay_ops.csv'),
        'a character device',
      )
    })
  },
)

describe('an output that cannot be written is a coded error naming it', () => {
  it.skipIf(!existsSync('/proc/self'))(
    '-o /proc/out.jsonl: CONVERT_OUTPUT_FAILED (never INTERNAL), and what to do',
    () => {
      const r = run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', '/proc/out.jsonl', '--json'])
      expect(r.exitCode).toBe(1)
      const {error} = JSON.parse(r.stdout)
      expect(error.code).toBe('LMT_CONVERT_OUTPUT_FAILED')
      expect(error.message).toMatch(
        /\/proc\/out\.jsonl: the file system does not allow new files or folders there/,
      )
    },
  )

  // Node's recursive mkdir spun forever at 100 % CPU on this path
  it.skipIf(!existsSync('/proc/self'))(
    '-o /proc/foo/out.jsonl ends at once, naming the level that failed',
    () => {
      for (const command of [
        ['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', '/proc/lmt-foo/out.jsonl'],
        ['replay', LCT, ...REPLAY_FLAGS, '--output-dir', '/proc/lmt-foo/replay'],
        [
          'simulate',
          '--trace',
          join(FIXTURES, 'convert', 'qwen_bailian_sample.expected.jsonl'),
          '--block-size',
          '16',
          '--capacity-blocks',
          '10',
          '-o',
          '/proc/lmt-foo/sim',
        ],
      ]) {
        const t0 = Date.now()
        const r = run(command, 15_000)
        expect(Date.now() - t0).toBeLessThan(10_000)
        expect(r.exitCode, r.stderr).toBe(1)
        expect(r.stderr).toMatch(
          /error: cannot create the folder \/proc\/lmt-foo: the file system does not allow/,
        )
        expect(r.stderr).toMatch(/hint: choose an output path on an ordinary disk/)
      }
    },
  )

  // a private user and mount namespace: a read-only and a tiny tmpfs, without touching the machine's mounts
  const canUnshare = spawnSync('unshare', ['-rm', 'mount', '-t', 'tmpfs', 'tmpfs', tmp.dir]).status === 0
  it.skipIf(!canUnshare)(
    'a read-only file system says read-only; a full one says no space, and leaves nothing',
    () => {
      const ro = join(tmp.dir, 'ro')
      const small = join(tmp.dir, 'small')
      mkdirSync(ro)
      mkdirSync(small)
      const lmtSh = (args: string) => `'${process.execPath}' '${BIN}' ${args}`
      const mooncake = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
      const script = [
        `mount -t tmpfs -o ro,size=1m tmpfs '${ro}'`,
        `mount -t tmpfs -o size=256k tmpfs '${small}'`,
        `${lmtSh(`convert -q -i '${QWEN}' -f qwen_bailian -o '${ro}/out.jsonl' --json`)}; echo "exit $?"`,
        `${lmtSh(`convert -q -i '${mooncake}' -f mooncake -o '${small}/out.jsonl' --json`)}; echo "exit $?"`,
        `ls -A '${small}'; echo listed`,
      ].join('\n')
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], {encoding: 'utf8', timeout: 60_000})
      const docs = r.stdout.split(/^exit \d+$/m)
      const roError = JSON.parse(docs[0]).error
      expect(roError.code).toBe('LMT_CONVERT_OUTPUT_FAILED')
      expect(roError.message).toMatch(/out\.jsonl: read-only file system \(EROFS\)/)
      const fullError = JSON.parse(docs[1]).error
      expect(fullError.code).toBe('LMT_CONVERT_OUTPUT_FAILED')
      expect(fullError.message).toMatch(/out\.jsonl: no space left on device \(ENOSPC\)/)
      expect(r.stdout.match(/^exit (\d+)$/gm)).toEqual(['exit 1', 'exit 1'])
      expect(docs[2].trim()).toBe('listed') // nothing left on the full disk
    },
  )
})

describe.skipIf(!canMknod)('a failing standard output', () => {
  const s = special('stdout')

  /** Runs the CLI with its standard output on the full device (every write fails with ENOSPC). */
  function toFull(args: string[]) {
    const fd = openSync(s.full, 'w')
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', fd, 'pipe'],
        timeout: 60_000,
      })
      return {stderr: r.stderr, exitCode: r.status ?? -1}
    } finally {
      closeSync(fd)
    }
  }

  it.each([
    ['trace info', ['trace', 'info', LCT]],
    ['trace info --json', ['trace', 'info', LCT, '--json']],
    ['trace dump', ['trace', 'dump', LCT]],
    [
      'convert --json',
      ['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', join(tmp.dir, 'c.jsonl'), '--json'],
    ],
  ])('%s > a full disk: a coded error (exit 1), no stack trace', (_name, args) => {
    const r = toFull(args)
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('error: cannot write to standard output: no space left on device (ENOSPC)')
    expect(r.stderr).toMatch(/^hint: /m)
    expect(r.stderr).not.toMatch(/^\s+at /m)
  })

  it('trace dump | head -1: ends quietly with exit 0 once the reader has gone', async () => {
    // a trace whose dump is far larger than a pipe's buffer
    const big = join(tmp.dir, 'big.lct')
    const input = join(tmp.dir, 'big.jsonl')
    const lines: string[] = []
    for (let i = 0; i < 3000; i++)
      lines.push(
        JSON.stringify({
          timestamp: i,
          hash_ids: [i, i + 1, i + 2, i + 3],
          input_length: 64,
          output_length: 1,
        }),
      )
    writeFileSync(input, lines.join('\n') + '\n')
    expect(
      lmtProcess(['convert', '-q', '-i', input, '-f', 'qwen_bailian', '--mode', 'lct', '-o', big]).exitCode,
    ).toBe(0)
    const child = spawn(process.execPath, [BIN, 'trace', 'dump', big], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    await new Promise<void>((res) =>
      child.stdout.on('data', (d: Buffer) => {
        if (d.includes(0x0a)) {
          child.stdout.destroy() // `head -1`: one line read, the pipe closed
          res()
        }
      }),
    )
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)))
    expect(code).toBe(0)
    expect(stderr).toBe('')
  })
})

describe.skipIf(!canMknod)('oclif’s own commands with a failing standard output', () => {
  const s = special('oclif-stdout')
  it.each([
    ['--help'],
    ['help', 'convert'],
    ['convert', '--help'],
    ['version'],
    ['--version'],
    ['plugins', '--json'],
  ])('lmt %s > a full disk: a coded error (exit 1), no stack trace, no source', (...args) => {
    const fd = openSync(s.full, 'w')
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', fd, 'pipe'],
        timeout: 60_000,
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toBe(
        'error: cannot write to standard output: no space left on device (ENOSPC)\n' +
          'hint: redirect standard output to a file on a disk with free space, or to a pipe that reads it all\n',
      )
    } finally {
      closeSync(fd)
    }
  })
})

describe.skipIf(!canMknod)('a failing standard error', () => {
  const s = special('stderr')
  const work = join(tmp.dir, 'stderr-work')
  mkdirSync(work)

  /** Runs the CLI with its standard error on the full device, or on a pipe whose reader has gone. */
  function withStderr(how: 'full' | 'closed', args: string[]) {
    if (how === 'closed') {
      // the shell's `2>&1 | head -c 1` without a shell: stderr is a pipe nobody reads, closed before lmt writes
      const r = spawnSync(
        'bash',
        ['-c', `exec "$0" "$@" 2> >(exec 0<&-; true)`, process.execPath, BIN, ...args],
        {
          cwd: work,
          encoding: 'utf8',
          timeout: 60_000,
        },
      )
      return {stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1}
    }
    const fd = openSync(s.full, 'w')
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', fd],
        timeout: 60_000,
      })
      return {stdout: r.stdout, stderr: '', exitCode: r.status ?? -1}
    } finally {
      closeSync(fd)
    }
  }

  it.each(['full', 'closed'] as const)(
    'stderr %s: convert, simulate, report and replay finish their outputs and exit 0, no temporary left',
    (how) => {
      const dir = join(work, how)
      mkdirSync(dir)
      const conv = withStderr(how, [
        'convert',
        '-i',
        join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl'),
        '-f',
        'mooncake',
        '-o',
        join(dir, 'c.jsonl'),
        '--json',
      ])
      expect(conv.exitCode).toBe(0)
      expect(JSON.parse(conv.stdout).output).toBe(join(dir, 'c.jsonl'))
      const sim = withStderr(how, [
        'simulate',
        '--trace',
        join(dir, 'c.jsonl'),
        '--capacity-blocks',
        '100',
        '--block-size',
        '512',
        '-o',
        join(dir, 's'),
      ])
      expect(sim.exitCode).toBe(0)
      expect(existsSync(join(dir, 's', 'summary.json'))).toBe(true)
      const rep = withStderr(how, [
        'report',
        '--trace',
        join(dir, 'c.jsonl'),
        '--block-size',
        '512',
        '--points',
        '3',
        '--policies',
        'lru',
        '-o',
        join(dir, 'r.html'),
      ])
      expect(rep.exitCode).toBe(0)
      expect(existsSync(join(dir, 'r.html'))).toBe(true)
      const rpl = withStderr(how, [
        'replay',
        LCT,
        ...REPLAY_FLAGS.slice(0, -1),
        '--output-dir',
        join(dir, 'o'),
        '--json',
      ])
      expect(rpl.exitCode).toBe(0)
      expect(JSON.parse(rpl.stdout).latency_source).toBe('lmt-model-cost')
      expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([])
      expect(readdirSync(join(dir, 's')).filter((n) => n.startsWith('.'))).toEqual([])
    },
  )
})
