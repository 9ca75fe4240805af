import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, FIXTURES, tempDir} from '../helpers/cli.js'

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
function run(args: string[], timeout = 30_000) {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    env: {...process.env, ...env},
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

  it('errors still exit non-zero with their own code, and the change is a warning naming the module', () => {
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
    expect(missing.stderr).toMatch(
      new RegExp(
        `warning: converter module ${module} changed Object\\.prototype\\.exitCode, .*; lmt undid that`,
      ),
    )
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
    expect(r.stderr).toContain(`warning: converter module ${ec} set process.exitCode to 7; lmt undid that`)
  })

  it('a converter sees only the options lmt set', () => {
    const out = join(dir, 'seen.jsonl')
    const r = run(['convert', '-i', QWEN, '-f', 'see_options', '--converter-module', module, '-o', out])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "get", "instance_id": "undefined|undefined|undefined|undefined", "timestamp_ns": 1}\n',
    )
    expect(r.stderr).toContain(
      'warning: converter SeeOptionsConverter (module:' +
        module +
        ') changed Object.prototype.converterConfig; lmt undid that',
    )
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
    const reason = `did not finish loading within 1 s (a top-level await that never settles?); skipped (LMT_PLUGIN_LOAD_TIMEOUT=<seconds> allows more)`
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
      `warning: cannot load converter module ${timer}: did not finish loading within 1 s`,
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
        'warning: plugin lmt-plugin-hook-never: lmt:converters hook failed: Timed out after 1000 ms.',
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

  it('a converter that catches what its exit threw still fails, with nothing written', () => {
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

/**
 * Runs a conversion in a process group of its own and sends SIGINT to the group 300 ms after the banner (`times`
 * times, 300 ms apart); `ms` is the time from the first signal to the end.
 */
async function interruptAtTerminal(args: string[], times = 1) {
  // a terminal's Ctrl-C signals the foreground process group: lmt runs in a group of its own here
  const child = spawn(process.execPath, [BIN, ...args], {
    detached: true,
    env: {...process.env, ...env},
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  let sent = 0
  child.stderr.on('data', (d: Buffer) => {
    stderr += String(d)
    if (sent === 0 && stderr.includes('lmt convert: format')) {
      sent = Date.now() + 300
      for (let i = 1; i <= times; i++)
        setTimeout(() => process.kill(-(child.pid as number), 'SIGINT'), 300 * i)
    }
  })
  const ended = await new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => {
    const guard = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 25_000)
    child.on('exit', (code, signal) => {
      clearTimeout(guard)
      resolve({code, signal})
    })
  })
  return {...ended, ms: Date.now() - sent, sent: sent > 0, stderr}
}

describe('a converter that loops forever', () => {
  it('a converter that yields still answers Ctrl-C itself: exit 130, its temporary files removed', async () => {
    const dir = folder('yielding')
    const module = write(
      join(dir, 'yielding.mjs'),
      'export class YieldingConverter { async *convertToTraces() { for (let i = 1; ; i++) {\n' +
        "  await new Promise((r) => setTimeout(r, 1)); yield {type: 'get', instance_id: 'a', timestamp_ns: i} } } }\n",
    )
    mkdirSync(join(dir, 'out'))
    const out = join(dir, 'out', 'y.jsonl')
    const r = await interruptAtTerminal([
      'convert',
      '-i',
      QWEN,
      '-f',
      'yielding',
      '--converter-module',
      module,
      '-o',
      out,
    ])
    expect(r.sent).toBe(true)
    expect(r.code).toBe(130)
    expect(r.ms).toBeLessThan(2000)
    expect(r.stderr).toContain('error: interrupted by SIGINT')
    expect(r.stderr).not.toContain('did not answer')
    expect(readdirSync(join(dir, 'out'))).toEqual([])
  })

  it('Ctrl-C (to the process group) still ends lmt; the next run into the folder removes its temporary files', async () => {
    const dir = folder('busy')
    const module = write(
      join(dir, 'busy.mjs'),
      "export class BusyConverter { *convertToTraces() { yield {type: 'get', instance_id: 'a', timestamp_ns: 1}; for (;;) {} } }\n",
    )
    const out = join(dir, 'out', 'busy.jsonl')
    mkdirSync(join(dir, 'out'))
    const ended = await interruptAtTerminal([
      'convert',
      '-i',
      QWEN,
      '-f',
      'busy',
      '--converter-module',
      module,
      '-o',
      out,
    ])
    expect(ended.sent).toBe(true)
    expect(ended.ms).toBeLessThan(10_000)
    expect(ended.signal).toBe('SIGKILL')
    expect(ended.stderr).toContain(
      'error: lmt did not answer the interrupt (plugin code that never yields?); it was killed',
    )
    const left = readdirSync(join(dir, 'out'))
    expect(left.length).toBeGreaterThan(0)
    expect(left.every((n) => /^\.(?:lmt-convert-|busy\.jsonl\.lmt-tmp-)\d+-/.test(n))).toBe(true)
    const q = run([
      'convert',
      '-i',
      QWEN,
      '-f',
      'qwen_bailian',
      '--instance-id',
      'my_instance',
      '-o',
      join(dir, 'out', 'q.jsonl'),
    ])
    expect(q.exitCode).toBe(0)
    expect(q.stderr).toContain(
      `removed ${left.length} temporary file(s) in ${join(dir, 'out')} left by a conversion that did not finish`,
    )
    expect(readdirSync(join(dir, 'out'))).toEqual(['q.jsonl'])
  })

  it('a second Ctrl-C ends it at once, without the grace period', async () => {
    const dir = folder('busy2')
    const module = write(
      join(dir, 'busy.mjs'),
      "export class BusyConverter { *convertToTraces() { yield {type: 'get', instance_id: 'a', timestamp_ns: 1}; for (;;) {} } }\n",
    )
    const out = join(dir, 'b.jsonl')
    const ended = await interruptAtTerminal(
      ['convert', '-i', QWEN, '-f', 'busy', '--converter-module', module, '-o', out],
      2,
    )
    expect(ended.signal).toBe('SIGKILL')
    expect(ended.ms).toBeLessThan(1500) // the second signal comes at 300 ms; the grace period is 2 s
  })

  it('the temporary files of a conversion still running are left alone', () => {
    const dir = folder('alive')
    const mine = write(join(dir, `.x.jsonl.lmt-tmp-${process.pid}-0123456789ab`), '')
    const r = run(['convert', '-q', '-i', QWEN, '-f', 'qwen_bailian', '-o', join(dir, 'q.jsonl')])
    expect(r.exitCode).toBe(0)
    expect(existsSync(mine)).toBe(true)
  })
})
