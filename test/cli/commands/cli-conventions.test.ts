import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'

interface ManifestFlag {
  helpGroup?: string
  summary?: string
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, ManifestFlag>; usage?: string | string[]}>
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}

let tmp: {dir: string; cleanup: () => void}
let env: NodeJS.ProcessEnv
beforeAll(() => {
  tmp = tempDir()
  env = {LMT_DATA_DIR: join(tmp.dir, 'data'), LMT_CACHE_DIR: join(tmp.dir, 'cache')}
})
afterAll(() => tmp.cleanup())

/** the one error style: `error:` and `hint:` lines, none of oclif's `›` ones */
function expectLmtErrorStyle(stderr: string): void {
  expect(stderr).not.toContain('›')
  expect(stderr.split('\n')[0]).toMatch(/^error: /)
}

describe('version', () => {
  it('lmt version, --version and -v print the version', () => {
    for (const args of [['version'], ['--version'], ['-v']]) {
      const r = lmtProcess(args, {env})
      expect(r.exitCode, args.join(' ')).toBe(0)
      expect(r.stdout).toContain(`lmt/${pkg.version} `)
    }
  })
})

describe('help', () => {
  const ids = [...Object.keys(manifest.commands), 'version', 'autocomplete', 'plugins', 'plugins:link']
  it.each(ids)('-h works on %s', (id) => {
    const r = lmtProcess([...id.split(':'), '-h'], {env})
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('USAGE')
    expect(r.stdout).toContain(`$ lmt ${id.replace(/:/g, ' ')}`)
  })

  it('convert, simulate and replay group their flags; only the common ones stay ungrouped', () => {
    const ungrouped = (id: string) =>
      Object.entries(manifest.commands[id].flags)
        .filter(([name, f]) => !f.helpGroup && name !== 'json')
        .map(([name]) => name)
        .sort()
    expect(ungrouped('convert')).toEqual([
      'format',
      'input',
      'mode',
      'output',
      'progress',
      'quiet',
      'sort',
      'strict',
    ])
    expect(ungrouped('replay')).toEqual([
      'allow-schema-1',
      'level',
      'list-levels',
      'max-frame-bytes',
      'pace',
      'quiet',
      'speed',
    ])
    // simulate: the common flags (the block-size flags are another change's)
    for (const f of ['sweep', 'sweep-points', 'jobs', 'stack', 'oracle'])
      expect(manifest.commands.simulate.flags[f].helpGroup).toBe('SWEEP')
    for (const f of ['eviction-mode', 'batch-size', 'seed', 'replay-mode'])
      expect(manifest.commands.simulate.flags[f].helpGroup).toBe('MODEL')
    const help = lmtProcess(['convert', '--help'], {env}).stdout
    for (const g of ['INPUT FLAGS', 'TEXT CONVERSION FLAGS', 'LCT OUTPUT FLAGS']) expect(help).toContain(g)
  })

  it('says the defaults and no configuration key names', () => {
    const s = manifest.commands.simulate.flags
    expect(s['sweep-points'].summary).toContain('default 30')
    expect(s.jobs.summary).toContain('default: the available cores')
    expect(s['batch-size'].summary).not.toMatch(/eviction_batch_size|trace_replay/)
    expect(s['replay-mode'].summary).not.toContain('trace_replay')
    expect(manifest.commands.convert.flags['ignore-response'].summary).not.toContain('ignoreResponse')
  })

  it("replay's usage line takes one file", () => {
    const r = lmtProcess(['replay', '-h'], {env})
    expect(r.stdout).toContain('$ lmt replay FILE (--l1-size-gb GIB --eviction-policy LRU|noop |')
    expect(r.stdout).not.toContain('FILE...')
    expect(r.stdout).toMatch(/ARGUMENTS\n {2}\[FILE\] /)
  })

  it('descriptions are paragraphs, not lines cut at the source width', () => {
    const r = lmtProcess(['simulate', '-h'], {env})
    expect(r.stdout).toContain('and reports block and token hit rates')
  })
})

describe('did you mean', () => {
  it('a mistyped command, and a mistyped subcommand of a topic', () => {
    let r = lmtProcess(['convrt'], {env})
    expect(r.exitCode).toBe(2)
    expectLmtErrorStyle(r.stderr)
    expect(r.stderr).toContain('error: "lmt convrt" is not an lmt command; did you mean "lmt convert"?')
    r = lmtProcess(['trace', 'infoo', 'x.lct'], {env})
    expect(r.stderr).toContain('did you mean "lmt trace info"?')
    expect(r.stderr).toContain('hint: run "lmt trace --help" for the list of commands')
  })

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'at a terminal, a mistyped command is offered the nearest: answered no, nothing runs; yes runs it',
    () => {
      const atTerminal = (command: string, answer: string) => {
        const r = spawnSync(
          'sh',
          ['-c', `(sleep 2; printf '${answer}\\r') | script -qfec "${command}" /dev/null`],
          {
            encoding: 'utf8',
            env: {...process.env, ...env},
            timeout: 30_000,
          },
        )
        // eslint-disable-next-line no-control-regex
        return r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      }
      const no = atTerminal(`${BIN} convrt`, 'n')
      expect(no).toContain('"lmt convrt" is not an lmt command. Run "lmt convert" instead? [y/N]')
      expect(no).toContain('error: "lmt convrt" is not an lmt command; did you mean "lmt convert"?')
      expect(no).not.toContain('converting')
      const yes = atTerminal(`${BIN} levelz`, 'y')
      expect(yes).toContain('"lmt levelz" is not an lmt command. Run "lmt levels" instead? [y/N]')
      expect(yes).toMatch(/^storage +built-in /m)
    },
  )

  it('a mistyped flag, in lmt\'s error style (no "›   Error:")', async () => {
    const r = lmtProcess(['convert', '-i', 'x', '-f', 'mooncake', '--formt', 'y'], {env})
    expect(r.exitCode).toBe(2)
    expectLmtErrorStyle(r.stderr)
    expect(r.stderr).toBe(
      'error: unknown flag --formt; did you mean --format?\nhint: run "lmt convert --help" for its flags and examples\n',
    )
    // the same in-process, and under --json
    const j = await lmt(['simulate', '--trace', 'x', '--polcy', 'lru', '--json'])
    expect(JSON.parse(j.stdout).error).toEqual({
      code: 'LMT_CLI_USAGE',
      message: 'unknown flag --polcy; did you mean --policy?',
      exitCode: 2,
      hint: 'run "lmt simulate --help" for its flags and examples',
    })
  })

  it('a missing required flag is named as it is typed, in the text form and under --json', async () => {
    const r = lmtProcess(['convert', '-i', 'x'], {env})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toBe(
      'error: missing required flag -f/--format\nhint: run "lmt convert --help" for its flags and examples\n',
    )
    const j = await lmt(['convert', '-i', 'x', '--json'])
    expect(JSON.parse(j.stdout).error.message).toBe('missing required flag -f/--format')
  })

  it('a mistyped format', async () => {
    const input = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
    const r = await lmt(['convert', '-i', input, '-f', 'moonckae', '-o', join(tmp.dir, 'x.jsonl')])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: unknown format "moonckae" (did you mean "mooncake"?); known formats:')
  })

  it('a mistyped policy; a missing argument', async () => {
    const r = await lmt(['simulate', '--trace', 'x', '--policy', 'lruu', '--capacity-blocks', '1'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: --policy: unknown policy "lruu"; did you mean lru?\n')
    const d = lmtProcess(['trace', 'dump'], {env})
    expectLmtErrorStyle(d.stderr)
    expect(d.stderr).toContain(
      'error: Missing 1 required arg:\n  file  .lct trace file (gzip or zstd compressed too; - for standard input)\nhint: run "lmt trace dump --help"',
    )
  })
})

describe('policy names', () => {
  it('simulate --policy and replay --eviction-policy take either case', async () => {
    const trace = join(ROOT, 'test', 'fixtures', 'simulate', 'A', 'trace.jsonl')
    const upper = await lmt([
      'simulate',
      '--trace',
      trace,
      '--policy',
      'LRU',
      '--block-size',
      '4',
      '--capacity-blocks',
      '2',
      '-o',
      join(tmp.dir, 's'),
      '--json',
    ])
    expect(upper.exitCode).toBe(0)
    expect(upper.stdout).toContain('"eviction_policy_type": "lru"')
    const lct = join(ROOT, 'samples', 'lct', 'v2_full_prefetch_cycle.lct')
    const args = [
      'replay',
      lct,
      '--l1-size-gb',
      '0.0625',
      '--no-l1-use-lazy',
      '--no-csv',
      '--output-dir',
      tmp.dir,
    ]
    for (const p of ['lru', 'LRU']) {
      const r = await lmt([...args, '--eviction-policy', p])
      expect(r.exitCode, p).toBe(0)
      expect(r.stdout).toMatch(/Config digest: +match \(6bddebcb\)/) // LRU either way: the fixture's digest
    }
  })
})

describe('shell completion', () => {
  it('lmt autocomplete prints the set-up for bash', () => {
    const r = lmtProcess(['autocomplete', 'bash'], {env})
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('lmt autocomplete script bash')
  })
})
