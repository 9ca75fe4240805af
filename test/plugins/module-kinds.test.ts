import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmtProcess, tempDir} from '../helpers/cli.js'

// Every module kind the README lists for a converter, through each way lmt finds one (--converter-module,
// --converter-dir, a linked plugin), in the built CLI: `import … from 'lmt'` must reach the running lmt (one copy:
// with two, the records a converter builds are of another copy's classes and cannot be written).
const tmp = tempDir()
afterAll(() => tmp.cleanup())
const env = {
  LMT_DATA_DIR: join(tmp.dir, 'data'),
  LMT_CACHE_DIR: join(tmp.dir, 'cache'),
  LMT_CONFIG_DIR: join(tmp.dir, 'config'),
}
const run = (args: string[]) => lmtProcess(args, {env, cwd: tmp.dir})

/** A converter of format `<name>` (class `<Name>Converter`) in JavaScript or TypeScript syntax. */
function converter(name: string, typed: boolean, importLine = `import {BaseConverter} from 'lmt'`): string {
  const cls = `${name[0].toUpperCase()}${name.slice(1)}Converter`
  const [line, ctx] = typed ? [' as {text: string}', ': any'] : ['', '']
  return `${importLine}
export class ${cls} extends BaseConverter {
  static description = '${name} numbers'
  async *convertToTraces(inputPath${typed ? ': string' : ''}, ctx${ctx}) {
    for await (const line of ctx.lines()) {
      const n${typed ? ': bigint' : ''} = BigInt((line${line}).text)
      const get = this.createGetTrace(n * 1000n, [n], undefined, {inputLen: 16})
      yield get
      yield this.createWriteTrace(get.timestamp_ns + 1n, [n])
      ctx.converted(line)
    }
  }
}
`
}

const input = join(tmp.dir, 'nums.txt')
writeFileSync(input, '1\n2\n')
const expected = (instance = 'instance') =>
  `{"type": "get", "instance_id": "${instance}", "trace_id": "trace_${instance}_1000", "timestamp_ns": 1000, "keys": [1], "input_len": 16, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n` +
  `{"type": "write", "instance_id": "${instance}", "trace_id": "trace_${instance}_1001", "timestamp_ns": 1001, "keys": [1]}\n` +
  `{"type": "get", "instance_id": "${instance}", "trace_id": "trace_${instance}_2000", "timestamp_ns": 2000, "keys": [2], "input_len": 16, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n` +
  `{"type": "write", "instance_id": "${instance}", "trace_id": "trace_${instance}_2001", "timestamp_ns": 2001, "keys": [2]}\n`

/** A folder of converters, one of each kind, as a plugin package whose own `type` is CommonJS (none given). */
function kindsFolder(name: string): string {
  const root = join(tmp.dir, name)
  const dir = join(root, 'converters')
  mkdirSync(join(dir, 'esm'), {recursive: true})
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({name: `lmt-plugin-${name}`, oclif: {}, lmt: {converters: 'converters'}}),
  )
  writeFileSync(join(root, 'package-lock.json'), '{}')
  writeFileSync(join(dir, 'mjs.mjs'), converter('mjs', false))
  writeFileSync(join(dir, 'typed.ts'), converter('typed', true)) // TypeScript in a CommonJS package
  writeFileSync(join(dir, 'mts.mts'), converter('mts', true))
  // TypeScript importing a sibling by its compiled name, as tsc wants it written
  writeFileSync(join(dir, '_base.ts'), `export {BaseConverter} from 'lmt'\n`)
  writeFileSync(
    join(dir, 'sibling.ts'),
    converter('sibling', true, `import {BaseConverter} from './_base.js'`),
  )
  writeFileSync(join(dir, 'esm', 'package.json'), '{"type": "module"}')
  writeFileSync(join(dir, 'esm', 'module.ts'), converter('moduleTyped', true))
  writeFileSync(join(dir, 'esm', 'plain.js'), converter('plain', false))
  return root
}
const KINDS = ['mjs', 'plain', 'typed', 'mts', 'sibling', 'module_typed']

function formatsOf(stdout: string): Record<string, string> {
  const listing = JSON.parse(stdout) as {formats: {format: string; source: string}[]}
  return Object.fromEntries(listing.formats.map((f) => [f.format, f.source]))
}

describe('converter module kinds', () => {
  const folder = kindsFolder('kinds')
  const dir = join(folder, 'converters')

  it('--converter-module: each kind converts through the running lmt', () => {
    const modules: Record<string, string> = {
      mjs: 'mjs.mjs',
      plain: 'esm/plain.js',
      typed: 'typed.ts',
      mts: 'mts.mts',
      sibling: 'sibling.ts',
      module_typed: 'esm/module.ts',
    }
    for (const [format, file] of Object.entries(modules)) {
      const out = join(tmp.dir, `${format}.jsonl`)
      const r = run([
        'convert',
        '-q',
        '-i',
        input,
        '-f',
        format,
        '--converter-module',
        join(dir, file),
        '-o',
        out,
      ])
      expect(r.stderr, format).toBe('')
      expect(r.exitCode, format).toBe(0)
      expect(readFileSync(out, 'utf8'), format).toBe(expected())
    }
  })

  it('--converter-dir: every kind is found; a TypeScript one converts', () => {
    const r = run(['converters', '--json', '--converter-dir', dir])
    expect(r.stderr).toBe('')
    const formats = formatsOf(r.stdout)
    for (const k of KINDS) expect(formats[k], k).toBe(`dir:${dir}`)
    const out = join(tmp.dir, 'dir.jsonl')
    expect(
      run(['convert', '-q', '-i', input, '-f', 'typed', '--converter-dir', dir, '-o', out]).exitCode,
    ).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(expected())
  })

  it('a linked plugin: every kind is found; a TypeScript one converts with -f alone', () => {
    expect(run(['plugins', 'link', folder, '--no-install']).exitCode).toBe(0)
    try {
      const r = run(['converters', '--json'])
      expect(r.stderr).toBe('')
      const formats = formatsOf(r.stdout)
      for (const k of KINDS) expect(formats[k], k).toBe('plugin:lmt-plugin-kinds')
      const out = join(tmp.dir, 'linked.jsonl')
      expect(run(['convert', '-q', '-i', input, '-f', 'module_typed', '-o', out]).exitCode).toBe(0)
      expect(readFileSync(out, 'utf8')).toBe(expected())
    } finally {
      expect(run(['plugins', 'uninstall', 'lmt-plugin-kinds']).exitCode).toBe(0)
    }
  })

  it('a CommonJS module that requires lmt fails to load with a hint to write an ES module', () => {
    const cjs = join(tmp.dir, 'required.cjs')
    writeFileSync(
      cjs,
      `const {BaseConverter} = require('lmt')\nexports.RequiredConverter = class extends BaseConverter {}\n`,
    )
    const r = run(['converters', '--converter-module', cjs])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(`error: cannot load converter module ${cjs}: Cannot find module 'lmt'`)
    expect(r.stderr).toContain('write an ES module, .mjs or .ts, that imports it')
  })
})
