// What a command loads before it can work (issue 20: start-up): the modules a run does not use are not loaded —
// a single simulate run loads no sweep, no converter discovery and no progress bar's package when no bar is drawn;
// `--version` and help load no command module at all.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-startup-graph-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

// a loader hook that reports every module loaded (ES modules and CommonJS files alike) to the main thread, which
// writes the list at exit
const HOOKS = `let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) { port.postMessage(url); return next(url, context) }`
const PROBE = join(dir, 'probe.mjs')
writeFileSync(
  PROBE,
  `import {register} from 'node:module'
import {createRequire} from 'node:module'
import {MessageChannel} from 'node:worker_threads'
import {writeFileSync} from 'node:fs'
const {port1, port2} = new MessageChannel()
const urls = []
port1.on('message', (url) => urls.push(url))
port1.unref()
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), {data: {port: port2}, transferList: [port2]})
process.on('exit', () => {
  const required = Object.keys(createRequire(import.meta.url).cache)
  writeFileSync(process.env.LMT_TEST_MODULES, [...urls, ...required].join('\\n'))
})
`,
)

/** The modules `lmt <args>` loads (file URLs and CommonJS paths), as paths inside the checkout. */
function modulesLoaded(args: string[]): string[] {
  const list = join(dir, 'modules.txt')
  const res = spawnSync(process.execPath, ['--import', PROBE, BIN, ...args], {
    cwd: ROOT,
    env: {...process.env, LMT_TEST_MODULES: list, NO_COLOR: '1'},
    encoding: 'utf8',
  })
  expect(res.status, res.stderr).toBe(0)
  return readFileSync(list, 'utf8')
    .split('\n')
    .map((m) => m.replace(/^file:\/\//, '').replace(ROOT, ''))
}

/** the modules a single simulate run loads besides its bundle */
const BESIDE_THE_BUNDLE = [
  'vendor/oclif-core.js',
  'cli/stdin-argument.js',
  'cli/interrupts.js',
  'util/guards/plugin-code.js',
  'util/guards/exit-guard.js',
  'util/guards/prototype-guard.js',
  'errors.js',
  'util/closest.js',
  'cli/stdout-guard.js',
  'util/output-path.js',
  'vendor/command-bundle.js',
  // the plot, loaded when it is drawn
  'simulate/output/plots.js',
  'vendor/vega.js',
  'vendor/vega-bundle.js',
].map((m) => `/dist/src/${m}`)

describe('start-up', () => {
  it('a single simulate run loads no sweep, no converter discovery, no progress bar package', () => {
    const trace = join(dir, 'one.jsonl')
    writeFileSync(
      trace,
      '{"type": "get", "instance_id": "i", "timestamp_ns": 0, "keys": [1], "input_len": 16}\n',
    )
    const loaded = modulesLoaded([
      'simulate',
      '--trace',
      trace,
      '--capacity-blocks',
      '8',
      '-o',
      join(dir, 'out'),
    ])
    expect(loaded).toContain('/dist/src/commands/simulate.js')
    expect(loaded.filter((m) => m.includes('/dist/src/simulate/sweep/'))).toEqual([])
    expect(loaded.filter((m) => m.includes('/dist/src/plugins/converter-discovery'))).toEqual([])
    expect(loaded.filter((m) => m.includes('/node_modules/cli-progress/'))).toEqual([])
    // the command's modules come as one script (scripts/bundle-simulate.mjs, read by its stub, not imported);
    // beside it only what bin/run.js loads and the modules whose state is shared with the rest of the process,
    // each once
    const lmtModules = loaded.filter((m) => m.startsWith('/dist/src/'))
    expect(new Set(lmtModules).size).toBe(lmtModules.length)
    expect(lmtModules.filter((m) => !BESIDE_THE_BUNDLE.includes(m))).toEqual([
      '/dist/src/commands/simulate.js',
    ])
  })

  it("a JSONL conversion loads no part of the storage model (only --mode lct's header config needs it), no .lct library and no replay contract", () => {
    const input = join(dir, 'rows.jsonl')
    writeFileSync(input, '{"timestamp": 1, "input_length": 32, "hash_ids": [1, 2]}\n')
    const loaded = modulesLoaded([
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'qwen_bailian',
      '-o',
      join(dir, 'rows.out'),
    ])
    expect(loaded).toContain('/dist/src/commands/convert.js')
    expect(loaded).toContain('/dist/src/replay/storage/storage-flags.js') // the flags of --mode lct
    // lmt's converters import `lmt/converter`: neither the .lct library nor the replay contract of `lmt`
    for (const m of ['index.js', 'lct/index.js', 'lct/reader.js', 'replay/level.js'])
      expect(loaded).not.toContain(`/dist/src/${m}`)
    expect(
      loaded.filter((m) => m.includes('/dist/src/replay/storage/') && !m.endsWith('storage-flags.js')),
    ).toEqual([])
  })

  it.each([['--version'], ['simulate', '--help'], ['trace', 'info', '--help']].map((a) => [a.join(' '), a]))(
    'lmt %s loads no command module and no file of @oclif/core but its entry',
    (_name, args) => {
      const loaded = modulesLoaded(args)
      expect(loaded.filter((m) => m.includes('/dist/src/commands/'))).toEqual([])
      const oclif = loaded.filter((m) => m.includes('/@oclif/core/') && !m.endsWith('package.json'))
      expect([...new Set(oclif)]).toEqual(['/node_modules/@oclif/core/lib/index.js'])
    },
  )
})
