import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, FIXTURES, ROOT, tempDir} from '../../helpers/cli.js'

// Plugins that misbehave on purpose: each one must end up as a warning naming it, or as a coded error, never as a
// broken lmt. Installed plugins live in an oclif data directory of this test file's own.
const tmp = tempDir()
const env = {
  NO_COLOR: '1',
  LMT_DATA_DIR: join(tmp.dir, 'data'),
  LMT_CACHE_DIR: join(tmp.dir, 'cache'),
  LMT_CONFIG_DIR: join(tmp.dir, 'config'),
  LMT_PLUGIN_LOAD_TIMEOUT: '1',
}
afterAll(() => tmp.cleanup())

const QWEN = join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')
const QWEN_EXPECTED = join(FIXTURES, 'convert', 'qwen_bailian_sample.expected.jsonl')

/** The built CLI in a child process, given up on (status null) after `timeout` ms: a hang fails the test. */
function run(args: string[], timeout = 30_000, more: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    env: {...process.env, ...env, ...more},
    encoding: 'utf8',
    timeout,
    killSignal: 'SIGKILL',
  })
  return {stdout: res.stdout, stderr: res.stderr, exitCode: res.status}
}

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), {recursive: true})
  writeFileSync(path, text)
  return path
}

function folder(name: string): string {
  const dir = join(tmp.dir, name)
  mkdirSync(dir, {recursive: true})
  return dir
}

const POLLUTE =
  "for (const [k, v] of Object.entries({exitCode: 0, code: 'EEXIT', message: 'polluted', strict: true, " +
  "suggestions: 'x', oclif: {exit: 0}, output: '/polluted', converterConfig: {polluted: true}, exit: 0}))\n" +
  '  Object.prototype[k] = v\n'

describe('a plugin that pollutes Object.prototype', () => {
  const dir = folder('pollute')
  const module = write(
    join(dir, 'pollute.mjs'),
    POLLUTE +
      // what the converter sees of options lmt did not set, after polluting again while it runs
      'export class SeeOptionsConverter {\n' +
      '  constructor(options) { Object.prototype.converterConfig = {again: true}; this.options = options }\n' +
      '  convertToTraces() {\n' +
      '    const o = this.options\n' +
      "    const seen = [typeof o.converterConfig, typeof o.output, String(o.strict), typeof o.exitCode].join('|')\n" +
      "    return [{type: 'get', instance_id: seen, timestamp_ns: 1}]\n" +
      '  }\n' +
      '}\n' +
      'export class FailAfterPollutingConverter {\n' +
      "  constructor() { Object.prototype.exitCode = 0; throw new Error('no') }\n" +
      '  convertToTraces() { return [] }\n' +
      '}\n',
  )

  it('errors still exit non-zero with their own code: the change stays on the plugin thread', () => {
    const missing = run([
      'convert',
      '-i',
      join(dir, 'none.jsonl'),
      '-f',
      'qwen_bailian',
      '--converter-module',
      module,
    ])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toContain(`error: input not found: ${join(dir, 'none.jsonl')}`)
    expect(missing.stderr).toContain('hint: check the path')
    const unknown = run(['convert', '-i', QWEN, '-f', 'nope', '--converter-module', module, '--json'])
    expect(unknown.exitCode).toBe(2)
    expect(JSON.parse(unknown.stdout).error).toMatchObject({code: 'LMT_CONVERT_UNKNOWN_FORMAT', exitCode: 2})
    const failing = run(['convert', '-i', QWEN, '-f', 'fail_after_polluting', '--converter-module', module])
    expect(failing.exitCode).toBe(1)
    expect(failing.stderr).toContain('error: FailAfterPollutingConverter failed to initialise: no')
  })

  it('a module that sets process.exitCode does not change the exit code of a successful run', () => {
    const ec = write(
      join(dir, 'exit-code.mjs'),
      'process.exitCode = 7\nexport class ExitCodeConverter { convertToTraces() { return [] } }\n',
    )
    const r = run(['converters', '--converter-module', ec])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatch(/^exit_code +ExitCodeConverter +module:/m)
  })

  it('a converter sees only the options lmt set', () => {
    const out = join(dir, 'seen.jsonl')
    const r = run(['convert', '-i', QWEN, '-f', 'see_options', '--converter-module', module, '-o', out])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "get", "instance_id": "undefined|undefined|undefined|undefined", "timestamp_ns": 1}\n',
    )
    expect(r.stderr).not.toContain('warning:')
  })
})

describe('a plugin manifest path that leads outside the package', () => {
  it('is refused with a warning naming the plugin, and the code there never runs', () => {
    const outside = folder('outside')
    const marker = join(tmp.dir, 'outside-code-ran')
    const evil = `import {writeFileSync} from 'node:fs'\nwriteFileSync(${JSON.stringify(marker)}, 'ran')\nexport class EvilConverter { convertToTraces() { return [] } }\n`
    write(join(outside, 'evil.js'), evil)
    write(join(outside, 'levels', 'evil.js'), evil)
    const dotdot = folder('escape-dotdot')
    write(
      join(dotdot, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-dotdot',
        version: '1.0.0',
        type: 'module',
        oclif: {},
        lmt: {converters: '../outside'},
      }),
    )
    const linked = folder('escape-symlink')
    mkdirSync(join(linked, 'conv'))
    symlinkSync(join(outside, 'evil.js'), join(linked, 'conv', 'evil.js'))
    write(join(linked, 'conv', 'fine.js'), 'export class FineConverter { convertToTraces() { return [] } }\n')
    symlinkSync(join(outside, 'levels'), join(linked, 'levels'))
    write(
      join(linked, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-symlink',
        version: '1.0.0',
        type: 'module',
        oclif: {},
        lmt: {converters: 'conv', levels: 'levels'},
      }),
    )
    expect(run(['plugins', 'link', dotdot, '--no-install']).exitCode).toBe(0)
    expect(run(['plugins', 'link', linked, '--no-install']).exitCode).toBe(0)
    try {
      const c = run(['converters', '--json'])
      expect(c.exitCode, c.stderr).toBe(0)
      expect(c.stderr).toContain(
        `warning: plugin lmt-plugin-dotdot: "lmt.converters" in package.json points outside the plugin's package (${outside}); ignored`,
      )
      expect(c.stderr).toContain(
        `warning: plugin lmt-plugin-symlink: ${join(linked, 'conv', 'evil.js')} leads outside the plugin's package (${join(outside, 'evil.js')}); not loaded`,
      )
      const formats = JSON.parse(c.stdout).formats.map((f: {format: string}) => f.format)
      expect(formats).toContain('fine')
      expect(formats).not.toContain('evil')
      const l = run(['levels'])
      expect(l.exitCode).toBe(0)
      expect(l.stderr).toContain(
        `warning: plugin lmt-plugin-symlink: "lmt.levels" in package.json points outside the plugin's package (${join(outside, 'levels')}); ignored`,
      )
      expect(existsSync(marker)).toBe(false)
    } finally {
      run(['plugins', 'uninstall', 'lmt-plugin-dotdot'])
      run(['plugins', 'uninstall', 'lmt-plugin-symlink'])
    }
  })
})

describe('a plugin that does not finish loading', () => {
  const dir = folder('slow')
  const never = write(
    join(dir, 'never.mjs'),
    'await new Promise(() => {})\nexport class NeverConverter { convertToTraces() { return [] } }\n',
  )
  const timerDir = folder('slow-timer')
  const timer = write(
    join(timerDir, 'timer.mjs'),
    'await new Promise((r) => setTimeout(r, 3_600_000))\nexport class SlowConverter { convertToTraces() { return [] } }\n',
  )

  it('a top-level await that never settles: a warning in a folder (lmt converters lists the rest), an error when named', () => {
    const r = run(['converters', '--converter-dir', dir])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatch(/^qwen_bailian +QwenBailianConverter +built-in/m)
    const reason = `converter module ${never} stopped with its work unfinished: it awaits a promise that never settles`
    expect(r.stderr).toContain(`warning: cannot load converter module ${never}: ${reason}`)
    const named = run(['converters', '--converter-module', never])
    expect(named.exitCode).toBe(2)
    expect(named.stderr).toContain(`error: cannot load converter module ${never}: ${reason}`)
  })

  it('a module awaiting a long timer does not hold up a built-in conversion', () => {
    const out = join(dir, 'q.jsonl')
    const started = Date.now()
    const r = run(
      [
        'convert',
        '-i',
        QWEN,
        '-f',
        'qwen_bailian',
        '--instance-id',
        'my_instance',
        '-o',
        out,
        '--converter-dir',
        timerDir,
      ],
      20_000,
    )
    expect(r.exitCode, r.stderr).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(r.stderr).toContain(
      `warning: cannot load converter module ${timer}: converter module ${timer} did not answer within 1 s; lmt stopped it`,
    )
    expect(readFileSync(out).equals(readFileSync(QWEN_EXPECTED))).toBe(true)
  })

  it('an installed plugin whose hook does not finish is a warning naming it, and lmt still ends', () => {
    const plugin = folder('hook-never')
    write(
      join(plugin, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-hook-never',
        version: '1.0.0',
        type: 'module',
        oclif: {hooks: {'lmt:converters': './hook.js'}},
      }),
    )
    // a long timer: after oclif gives up on the hook, it would still keep the process alive
    write(
      join(plugin, 'hook.js'),
      'export default async function () { await new Promise((r) => setTimeout(r, 3_600_000)) }\n',
    )
    expect(run(['plugins', 'link', plugin, '--no-install']).exitCode).toBe(0)
    try {
      const r = run(['converters'], 20_000)
      expect(r.exitCode).toBe(0)
      expect(r.stdout).toMatch(/^mooncake +MooncakeConverter +built-in/m)
      expect(r.stderr).toContain(
        'warning: plugin lmt-plugin-hook-never: lmt:converters hook failed: the lmt:converters hooks of plugin lmt-plugin-hook-never did not answer within 1.5 s; lmt stopped it',
      )
    } finally {
      expect(run(['plugins', 'uninstall', 'lmt-plugin-hook-never']).exitCode).toBe(0)
    }
  })
})

describe('a plugin that calls process.exit', () => {
  const dir = folder('exit')
  const module = write(
    join(dir, 'exiting.mjs'),
    'export class ExitMidStreamConverter {\n' +
      '  async *convertToTraces(_p, ctx) {\n' +
      '    for await (const line of ctx.lines()) {\n' +
      "      yield {type: 'get', instance_id: 'a', timestamp_ns: line.lineNo}\n" +
      '      if (line.lineNo === 3) process.exit(0)\n' +
      '    }\n' +
      '  }\n' +
      '}\n' +
      'export class SwallowExitConverter {\n' +
      "  convertToTraces() { try { process.exit(0) } catch {} return [{type: 'get', instance_id: 'a', timestamp_ns: 1}] }\n" +
      '}\n',
  )
  const atLoad = write(join(dir, 'exit-at-load.mjs'), 'process.exit(0)\n')

  it('mid-stream: a PLUGIN_EXIT error, no output and no temporary file left', () => {
    const out = join(dir, 'out', 'mid.jsonl')
    const r = run(['convert', '-i', QWEN, '-f', 'exit_mid_stream', '--converter-module', module, '-o', out])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(
      `error: converter ExitMidStreamConverter (module:${module}) called process.exit(0); lmt stopped it there`,
    )
    expect(readdirSync(join(dir, 'out'))).toEqual([])
    const j = run([
      'convert',
      '-i',
      QWEN,
      '-f',
      'exit_mid_stream',
      '--converter-module',
      module,
      '-o',
      out,
      '--json',
    ])
    expect(JSON.parse(j.stdout).error).toMatchObject({code: 'LMT_PLUGIN_EXIT', exitCode: 1})
  })

  it('a converter that calls process.exit inside a try still fails, with nothing written', () => {
    const out = join(dir, 'out2', 'swallow.jsonl')
    const r = run(['convert', '-i', QWEN, '-f', 'swallow_exit', '--converter-module', module, '-o', out])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('called process.exit(0); lmt stopped it there')
    expect(readdirSync(join(dir, 'out2'))).toEqual([])
  })

  it('at load: a coded error for a named module, and lmt ends as it decides', () => {
    const r = run(['converters', '--converter-module', atLoad, '--json'])
    expect(r.exitCode).toBe(2)
    const error = JSON.parse(r.stdout).error
    expect(error.code).toBe('LMT_PLUGIN_MODULE_LOAD_FAILED')
    expect(error.message).toContain(
      `cannot load converter module ${atLoad}: converter module ${atLoad} called process.exit(0)`,
    )
  })
})

/** The old output of every fault case: a failed conversion must leave it as it was. */
const OLD_OUTPUT = 'the previous output\n'

/**
 * A folder with an old output `out.jsonl`, and a converter module `EvilConverter` (format `evil`) that converts
 * every line, then runs `after` (code inside its async convertToTraces); `atLoad` runs when the module loads.
 */
function evilConverter(name: string, after: string, atLoad = ''): {dir: string; module: string; out: string} {
  const dir = folder(name)
  const module = write(
    join(dir, 'evil.mjs'),
    `${atLoad}\n` +
      'export class EvilConverter {\n' +
      '  async *convertToTraces(_p, ctx) {\n' +
      '    for await (const line of ctx.lines()) {\n' +
      '      ctx.converted(line)\n' +
      "      yield {type: 'get', instance_id: 'a', timestamp_ns: line.lineNo}\n" +
      '    }\n' +
      `    ${after}\n` +
      '  }\n' +
      '}\n',
  )
  const out = write(join(dir, 'out', 'out.jsonl'), OLD_OUTPUT)
  return {dir, module, out}
}

/** What a finished run left in the output folder: only the old output, unchanged. */
function expectOldOutputOnly(out: string): void {
  expect(readdirSync(join(out, '..'))).toEqual(['out.jsonl'])
  expect(readFileSync(out, 'utf8')).toBe(OLD_OUTPUT)
}

describe('a converter that fails where lmt made no call (it runs on the plugin thread)', () => {
  const cases: Array<[string, string, string, string]> = [
    [
      'a timer that throws',
      "setTimeout(() => { throw new Error('late boom') }, 0); await new Promise((r) => setTimeout(r, 500))",
      'LMT_PLUGIN_CRASHED',
      'failed outside any call lmt made to it (an error thrown in a timer, or a rejection nobody handled): late boom',
    ],
    [
      'an unhandled rejection',
      "Promise.reject(new Error('nobody catches me')); await new Promise((r) => setTimeout(r, 500))",
      'LMT_PLUGIN_CRASHED',
      'nobody catches me',
    ],
    [
      'process.exit from a timer',
      'setTimeout(() => process.exit(0), 0); await new Promise((r) => setTimeout(r, 500))',
      'LMT_PLUGIN_EXIT',
      'called process.exit(0); lmt stopped it there',
    ],
    [
      'an await that never settles',
      'await new Promise(() => {})',
      'LMT_PLUGIN_NEVER_SETTLED',
      'stopped with its work unfinished: it awaits a promise that never settles',
    ],
  ]
  for (const [what, after, code, message] of cases)
    it(`${what}: a coded error naming the converter, no temporaries, the old output intact`, () => {
      const {module, out} = evilConverter(what.replace(/\W+/g, '-'), after)
      const args = ['convert', '-i', QWEN, '-f', 'evil', '--converter-module', module, '-o', out]
      // a load bound the machine's load cannot reach: the fault, not the load, is under test
      const slow = {LMT_PLUGIN_LOAD_TIMEOUT: '20'}
      const r = run(args, 30_000, slow)
      expect(r.exitCode, r.stderr).toBe(1)
      expect(r.stderr).toContain(`error: converter EvilConverter (module:${module}) `)
      expect(r.stderr).toContain(message)
      expect(r.stderr).toContain('hint: report it to the plugin author')
      expectOldOutputOnly(out)
      const j = run([...args, '--json'], 30_000, slow)
      expect(JSON.parse(j.stdout).error).toMatchObject({code, exitCode: 1})
      expectOldOutputOnly(out)
    })

  it('Promise.prototype.then replaced when the module loads: a coded error, the old output intact', () => {
    const {module, out} = evilConverter(
      'then-replaced',
      '',
      'Promise.prototype.then = function () { return this }',
    )
    const r = run(['convert', '-i', QWEN, '-f', 'evil', '--converter-module', module, '-o', out, '--json'])
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toMatch(/^LMT_PLUGIN_/)
    expectOldOutputOnly(out)
  })
})

describe('a converter that throws what cannot be described, or whose statics throw', () => {
  it('a revoked Proxy or an Error whose message getter throws: a coded error; a throwing static flags: a warning', () => {
    const dir = folder('undescribable')
    const module = write(
      join(dir, 'odd.mjs'),
      'export class ProxyThrowConverter { convertToTraces() { const {proxy, revoke} = Proxy.revocable({}, {}); revoke(); throw proxy } }\n' +
        "export class GetterThrowConverter { convertToTraces() { const e = new Error('x'); Object.defineProperty(e, 'message', {get() { throw new Error('no') }}); throw e } }\n" +
        "export class StaticThrowConverter { static get flags() { throw new Error('no flags') } convertToTraces() { return [] } }\n",
    )
    const out = write(join(dir, 'out', 'out.jsonl'), OLD_OUTPUT)
    for (const format of ['proxy_throw', 'getter_throw']) {
      const r = run(
        ['convert', '-i', QWEN, '-f', format, '--converter-module', module, '-o', out, '--json'],
        30_000,
        {
          LMT_PLUGIN_LOAD_TIMEOUT: '20',
        },
      )
      expect(r.exitCode).toBe(1)
      expect(JSON.parse(r.stdout).error.code).toMatch(/^LMT_PLUGIN_CONVERTER_(THREW|FAILED)$/)
      expect(r.stderr).toContain(
        `warning: StaticThrowConverter in ${module} cannot be read: no flags; ignored`,
      )
      expectOldOutputOnly(out)
    }
  })
})

describe('a converter that loops forever', () => {
  /** Runs a conversion; sends SIGINT (to the process, or its group) 500 ms after the banner; `ms` to the end. */
  async function interrupt(args: string[], to: 'pid' | 'group') {
    const child = spawn(process.execPath, [BIN, ...args], {
      detached: true, // a group of its own: a terminal's Ctrl-C signals the foreground group
      env: {...process.env, ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    let stdout = ''
    let sent = 0
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)))
    child.stderr.on('data', (d: Buffer) => {
      stderr += String(d)
      if (sent === 0 && stderr.includes('lmt convert: format')) {
        sent = Date.now() + 500
        setTimeout(
          () => process.kill(to === 'pid' ? (child.pid as number) : -(child.pid as number), 'SIGINT'),
          500,
        )
      }
    })
    const ended = await new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => {
      const guard = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 25_000)
      child.on('exit', (code, signal) => {
        clearTimeout(guard)
        resolve({code, signal})
      })
    })
    return {...ended, ms: Date.now() - sent, sent: sent > 0, stderr, stdout}
  }

  for (const [what, body] of [
    [
      'yields',
      "async *convertToTraces() { for (let i = 1; ; i++) { await new Promise((r) => setTimeout(r, 1)); yield {type: 'get', instance_id: 'a', timestamp_ns: i} } }",
    ],
    [
      'never yields',
      "*convertToTraces() { yield {type: 'get', instance_id: 'a', timestamp_ns: 1}; for (;;) {} }",
    ],
  ])
    for (const to of ['pid', 'group'] as const)
      it(`a converter that ${what}: SIGINT to the ${to} is answered within a second (exit 130), no temporaries, the old output intact`, async () => {
        const dir = folder(`loop-${what.replace(/\W+/g, '-')}-${to}`)
        const module = write(join(dir, 'loop.mjs'), `export class LoopConverter { ${body} }\n`)
        const out = write(join(dir, 'out', 'out.jsonl'), OLD_OUTPUT)
        const r = await interrupt(
          ['convert', '-i', QWEN, '-f', 'loop', '--converter-module', module, '-o', out],
          to,
        )
        expect(r.sent).toBe(true)
        expect(r.code).toBe(130)
        expect(r.ms).toBeLessThan(1000)
        expect(r.stderr).toContain('error: interrupted by SIGINT')
        expectOldOutputOnly(out)
      })

  it('the temporary files of a conversion still running are left alone', () => {
    const dir = folder('alive')
    const mine = write(join(dir, `.x.jsonl.lmt-tmp-${process.pid}-0123456789ab`), '')
    const r = run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', join(dir, 'q.jsonl')])
    expect(r.exitCode).toBe(0)
    expect(existsSync(mine)).toBe(true)
  })
})

describe('an installed plugin whose lmt:converters hook returns a huge list', () => {
  it('is a coded warning naming the plugin; conversions with the built-in formats still work', () => {
    const plugin = folder('hook-huge')
    write(
      join(plugin, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-hook-huge',
        version: '1.0.0',
        type: 'module',
        oclif: {hooks: {'lmt:converters': './hook.js'}},
      }),
    )
    write(
      join(plugin, 'hook.js'),
      'class HugeConverter { convertToTraces() { return [] } }\n' +
        'export default async function () { return new Array(5_000_000).fill(HugeConverter) }\n',
    )
    expect(run(['plugins', 'link', plugin, '--no-install']).exitCode).toBe(0)
    try {
      const out = join(plugin, 'q.jsonl')
      const r = run(
        ['convert', '-i', QWEN, '-f', 'qwen_bailian', '--instance-id', 'my_instance', '-o', out],
        30_000,
      )
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stderr).toContain(
        'warning: plugin lmt-plugin-hook-huge: lmt:converters hook failed: plugin lmt-plugin-hook-huge: the lmt:converters hook returned 5000000 items, more than the 10000 lmt takes; ignored',
      )
      expect(readFileSync(out).equals(readFileSync(QWEN_EXPECTED))).toBe(true)
    } finally {
      expect(run(['plugins', 'uninstall', 'lmt-plugin-hook-huge']).exitCode).toBe(0)
    }
  })
})

describe('a replay level that misbehaves (it runs on the plugin thread)', () => {
  const TALLY = join(ROOT, 'examples', 'lmt-plugin-example', 'samples', 'tally.lct')
  const plugin = folder('evil-level')
  write(
    join(plugin, 'package.json'),
    JSON.stringify({
      name: 'lmt-plugin-evil-level',
      version: '1.0.0',
      type: 'module',
      lmt: {levels: 'levels'},
      oclif: {},
    }),
  )
  // level "tally" (the example trace's), misbehaving as EVIL_MODE says
  write(
    join(plugin, 'levels', 'evil.js'),
    "import {MapDispatcher} from 'lmt'\n" +
      'const mode = process.env.EVIL_MODE\n' +
      "export const evilLevel = {name: 'tally', description: 'misbehaves', flags: {}, replayableSchemaVersions: [2],\n" +
      '  parseConfig: () => ({}), createTarget: () => ({n: 0}),\n' +
      '  buildDispatcher() {\n' +
      '    const d = new MapDispatcher()\n' +
      "    for (const op of ['tally.put', 'tally.get']) d.register(op, ({target}) => {\n" +
      "      target.n++; if (mode === 'loop') for (;;) {}; if (mode === 'exit') process.exit(0) })\n" +
      '    return d\n' +
      '  },\n' +
      '  observations(target) {\n' +
      "    if (mode === 'obs_throw') throw new Error('no observations')\n" +
      "    if (mode === 'obs_cycle') { const a = {}; a.a = a; return {json: a, rows: []} }\n" +
      "    return {json: {n: target.n}, rows: [['Evil records', target.n]]}\n" +
      '  },\n' +
      '}\n',
  )
  beforeAll(() => {
    expect(run(['plugins', 'link', plugin, '--no-install']).exitCode).toBe(0)
  })
  afterAll(() => {
    run(['plugins', 'uninstall', 'lmt-plugin-evil-level'])
  })

  /** An output folder holding an old --record file. */
  function outputs(name: string): {dir: string; record: string} {
    const dir = folder(name)
    return {dir, record: write(join(dir, 'rec.lct'), OLD_OUTPUT)}
  }

  /** Nothing replaced, nothing left: the old --record file alone. */
  function expectUntouched({dir, record}: {dir: string; record: string}): void {
    expect(readdirSync(dir)).toEqual(['rec.lct'])
    expect(readFileSync(record, 'utf8')).toBe(OLD_OUTPUT)
  }

  it('a well-behaved run through it writes every output', () => {
    const o = outputs('level-ok')
    const r = run(['replay', TALLY, '--output-dir', o.dir, '--record', o.record, '--json'], 30_000, {
      EVIL_MODE: 'none',
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readdirSync(o.dir).sort()).toEqual([
      'rec.lct',
      'trace_replay_ops.csv',
      'trace_replay_summary.json',
    ])
    expect(readFileSync(o.record).subarray(0, 4).equals(Buffer.from(OLD_OUTPUT).subarray(0, 4))).toBe(false)
  })

  it("a staging folder a killed replay left beside the record is removed by the next replay; a live process's is kept", () => {
    const o = outputs('level-stale')
    const dead = join(o.dir, '.rec.lct.lmt-replay-999999999-AbC123')
    const live = join(o.dir, `.rec.lct.lmt-replay-${process.pid}-XyZ789`)
    write(join(dead, 'record.lct'), 'half a record')
    write(join(live, 'record.lct'), 'still being written')
    const r = run(['replay', TALLY, '--output-dir', o.dir, '--record', o.record, '--json'], 30_000, {
      EVIL_MODE: 'none',
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(existsSync(dead)).toBe(false)
    expect(readFileSync(join(live, 'record.lct'), 'utf8')).toBe('still being written')
  })

  for (const [mode, code, message] of [
    ['exit', 'LMT_PLUGIN_EXIT', 'replay level tally (plugin:lmt-plugin-evil-level) called process.exit(0)'],
    ['obs_throw', 'LMT_PLUGIN_LEVEL_FAILED', 'replay level tally failed: no observations'],
    ['obs_cycle', 'LMT_PLUGIN_LEVEL_FAILED', 'replay level tally failed: observations() Converting circular'],
  ])
    it(`${mode}: a coded error (not LMT_CLI_INTERNAL), nothing written, no temporaries`, () => {
      const o = outputs(`level-${mode}`)
      const r = run(['replay', TALLY, '--output-dir', o.dir, '--record', o.record, '--json'], 30_000, {
        EVIL_MODE: mode,
      })
      expect(r.exitCode).toBe(1)
      const error = JSON.parse(r.stdout).error
      expect(error.code).toBe(code)
      expect(error.message).toContain(message)
      expectUntouched(o)
    })

  for (const to of ['pid', 'group'] as const)
    it(`a handler that never returns: SIGINT to the ${to} is answered within a second, nothing written`, async () => {
      const o = outputs(`level-loop-${to}`)
      const child = spawn(
        process.execPath,
        [BIN, 'replay', TALLY, '--output-dir', o.dir, '--record', o.record],
        {
          detached: true,
          env: {...process.env, ...env, EVIL_MODE: 'loop'},
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += String(d)))
      // no banner to wait for: the handler loops once the replay starts, well within 4 s
      let sent = 0
      const timer = setTimeout(() => {
        sent = Date.now()
        process.kill(to === 'pid' ? (child.pid as number) : -(child.pid as number), 'SIGINT')
      }, 4000)
      const code = await new Promise<number | null>((resolve) => {
        const guard = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 25_000)
        child.on('exit', (c) => {
          clearTimeout(guard)
          clearTimeout(timer)
          resolve(c)
        })
      })
      expect(sent).toBeGreaterThan(0)
      expect(Date.now() - sent).toBeLessThan(1000)
      expect(code).toBe(130)
      expect(stderr).toContain('error: interrupted by SIGINT')
      expectUntouched(o)
    })
})

describe('a plugin that prints', () => {
  it("goes to lmt's stderr: lmt's stdout carries only lmt's output", () => {
    const dir = folder('chatty')
    const module = write(
      join(dir, 'chatty.mjs'),
      "console.log('chatty at discovery')\n" +
        "process.stdout.write('chatty raw write\\n')\n" +
        'export class ChattyConverter {\n' +
        '  convertToTraces() {\n' +
        "    console.log('chatty during conversion')\n" +
        "    return [{type: 'get', instance_id: 'a', timestamp_ns: 1}]\n" +
        '  }\n' +
        '}\n',
    )
    const out = join(dir, 'out.jsonl')
    const json = run([
      'convert',
      '-i',
      QWEN,
      '-f',
      'chatty',
      '--converter-module',
      module,
      '-o',
      out,
      '--json',
    ])
    expect(json.exitCode, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({format: 'chatty', traces: {total: 1}})
    for (const text of ['chatty at discovery', 'chatty raw write', 'chatty during conversion'])
      expect(json.stderr).toContain(text)
    const piped = run(['convert', '-i', QWEN, '-f', 'chatty', '--converter-module', module, '-o', '-'])
    expect(piped.exitCode, piped.stderr).toBe(0)
    expect(piped.stdout).toBe('{"type": "get", "instance_id": "a", "timestamp_ns": 1}\n')
    expect(piped.stderr).toContain('chatty during conversion')
  })
})
