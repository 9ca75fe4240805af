import {cpSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FIXTURES, lmtProcess, ROOT, tempDir} from '../../helpers/cli.js'

// plugins live in an isolated oclif data directory per test file
const tmp = tempDir()
const env = {
  LMT_DATA_DIR: join(tmp.dir, 'data'),
  LMT_CACHE_DIR: join(tmp.dir, 'cache'),
  LMT_CONFIG_DIR: join(tmp.dir, 'config'),
}
const run = (args: string[]) => lmtProcess(args, {env})
afterAll(() => tmp.cleanup())

/** A copy of a plugin folder, with no node_modules: its `import … from 'lmt'` must resolve to the running lmt. */
function pluginCopy(from: string, name: string): string {
  const dir = join(tmp.dir, name)
  cpSync(from, dir, {recursive: true, filter: (src) => !src.includes('node_modules')})
  return dir
}

const TALLY = join(ROOT, 'examples', 'lmt-plugin-example', 'samples', 'tally.lct')

describe('the example plugin', () => {
  let example = ''
  beforeAll(() => {
    example = pluginCopy(join(ROOT, 'examples', 'lmt-plugin-example'), 'example')
    expect(run(['plugins', 'link', example, '--no-install']).exitCode).toBe(0)
  })

  it('contributes a converter usable with -f and no other flag', () => {
    const listing = JSON.parse(run(['converters', '--json']).stdout)
    const f = listing.formats.find((x: {format: string}) => x.format === 'lookup_hash_log')
    expect(f).toMatchObject({
      className: 'LookupHashLogConverter',
      source: 'plugin:lmt-plugin-example',
      aliases: ['lookup_hashes'],
    })
    const input = join(tmp.dir, 'lookups.jsonl')
    writeFileSync(
      input,
      '{"timestamp": 1750000000.5, "request_id": "r1", "model_name": "qwen3", "chunk_size": 256, "seq_len": 600, "chunk_hashes": [11, 22, 33]}\nnot json\n',
    )
    const out = join(tmp.dir, 'lookups_out.jsonl')
    const r = run(['convert', '-i', input, '-f', 'lookup_hashes', '-o', out])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toContain(`${input}:2: invalid_json:`)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "get", "instance_id": "qwen3", "trace_id": "trace_qwen3_1750000000500000000", "timestamp_ns": 1750000000500000000, "keys": [11, 22], "input_len": 600, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n' +
        '{"type": "write", "instance_id": "qwen3", "trace_id": "trace_qwen3_1750000000500000001", "timestamp_ns": 1750000000500000001, "keys": [11, 22, 33]}\n',
    )
  })

  it('contributes a replay level: a tally trace replays with no --level flag', () => {
    const levels = JSON.parse(run(['levels', '--json']).stdout).levels
    expect(levels.map((l: {name: string; source: string}) => `${l.name}:${l.source}`)).toEqual([
      'events:built-in',
      'storage:built-in',
      'tally:plugin:lmt-plugin-example',
    ])
    const r = run(['replay', TALLY, '--no-csv', '--output-dir', tmp.dir])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('Records replayed:                                              3')
    expect(r.stdout).toMatch(/^Records: tally\.get: +2$/m)
    expect(r.stdout).toMatch(/^Distinct keys: +4$/m)
  })

  it('uninstalling removes its formats and levels', () => {
    expect(run(['plugins', 'uninstall', 'lmt-plugin-example']).exitCode).toBe(0)
    expect(
      JSON.parse(run(['converters', '--json']).stdout).formats.some(
        (f: {format: string}) => f.format === 'lookup_hash_log',
      ),
    ).toBe(false)
    expect(run(['replay', TALLY]).exitCode).toBe(2)
  })
})

describe('a one-off --converter-module outside the lmt folder', () => {
  /** Converts `input` with the module `source` (named `file`), in a folder of its own outside lmt's. */
  function convertWith(name: string, file: string, source: string, input: string) {
    const dir = join(tmp.dir, name)
    mkdirSync(dir, {recursive: true})
    writeFileSync(join(dir, file), source)
    writeFileSync(join(dir, 'in.jsonl'), input)
    const format = file.replace(/_converter\.mjs$/, '')
    const args = ['convert', '-q', '-i', 'in.jsonl', '-f', format, '--converter-module', `./${file}`]
    const r = lmtProcess([...args, '-o', 'out.jsonl'], {cwd: dir, env})
    return {...r, output: r.exitCode === 0 ? readFileSync(join(dir, 'out.jsonl'), 'utf8') : ''}
  }

  it('imports lmt by name (resolved to the running lmt) and converts', () => {
    const r = convertWith(
      'one-off',
      'my_converter.mjs',
      "import {BaseConverter, parseJson} from 'lmt'\n" +
        'export class MyConverter extends BaseConverter {\n' +
        '  async *convertToTraces(_p, ctx) {\n' +
        '    for await (const line of ctx.lines()) {\n' +
        '      const row = parseJson(line.text)\n' +
        "      const get = this.createGetTrace(BigInt(row.get('ts')), [row.get('key')], undefined, {inputLen: 16})\n" +
        '      yield get\n' +
        '      ctx.converted(line)\n' +
        '    }\n' +
        '  }\n' +
        '}\n',
      '{"ts": 7, "key": 9223372036854775807}\n',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.output).toBe(
      '{"type": "get", "instance_id": "instance", "trace_id": "trace_instance_7", "timestamp_ns": 7, "keys": [9223372036854775807], "input_len": 16, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n',
    )
  })
})

describe('installing from a folder', () => {
  it('lmt plugins install file:<folder> works offline and the converter runs', () => {
    const folder = pluginCopy(join(ROOT, 'examples', 'lmt-plugin-example'), 'example-install')
    const inst = run(['plugins', 'install', `file:${folder}`])
    expect(inst.exitCode, inst.stderr).toBe(0)
    expect(run(['plugins']).stdout).toContain('lmt-plugin-example 0.1.0')
    const input = join(tmp.dir, 'lookups2.jsonl')
    writeFileSync(
      input,
      '{"timestamp": 2, "request_id": "r", "model_name": "m", "chunk_size": 16, "seq_len": 16, "chunk_hashes": [-5]}\n',
    )
    const out = join(tmp.dir, 'lookups2_out.jsonl')
    expect(run(['convert', '-q', '-i', input, '-f', 'lookup_hash_log', '-o', out]).exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(
      '{"type": "get", "instance_id": "m", "trace_id": "trace_m_2000000000", "timestamp_ns": 2000000000, "keys": [-5], "input_len": 16, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n' +
        '{"type": "write", "instance_id": "m", "trace_id": "trace_m_2000000001", "timestamp_ns": 2000000001, "keys": [-5]}\n',
    )
    expect(run(['plugins', 'uninstall', 'lmt-plugin-example']).exitCode).toBe(0)
  })
})

describe('a broken plugin cannot break lmt', () => {
  it('syntax errors, wrong shapes and duplicate names are warnings naming the plugin', () => {
    const dir = join(tmp.dir, 'broken')
    mkdirSync(join(dir, 'conv'), {recursive: true})
    mkdirSync(join(dir, 'levels'), {recursive: true})
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-broken',
        version: '1.0.0',
        type: 'module',
        oclif: {},
        lmt: {converters: 'conv', levels: 'levels'},
      }),
    )
    writeFileSync(join(dir, 'conv', 'syntax.js'), 'export class OopsConverter {\n')
    writeFileSync(join(dir, 'conv', 'shape.js'), 'export class WrongShapeConverter { convert() {} }\n')
    writeFileSync(
      join(dir, 'conv', 'dup.js'),
      'export class MooncakeConverter { convertToTraces() { return [] } }\n',
    )
    writeFileSync(
      join(dir, 'levels', 'bad.js'),
      "export const halfLevel = {name: 'half', description: 'no dispatcher', flags: {}}\nexport const clash = {name: 'clash', description: '', flags: {pace: {}}, replayableSchemaVersions: [2], createTarget() {}, buildDispatcher() {}}\n",
    )
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    const c = run(['converters'])
    expect(c.exitCode).toBe(0)
    expect(c.stderr).toMatch(
      /warning: cannot load converter module .*syntax\.js \(plugin:lmt-plugin-broken\)/,
    )
    expect(c.stderr).toContain('WrongShapeConverter')
    expect(c.stderr).toContain(
      'format "mooncake": MooncakeConverter from plugin:lmt-plugin-broken overrides MooncakeConverter from built-in',
    )
    const l = run(['levels'])
    expect(l.exitCode).toBe(0)
    expect(l.stderr).toContain('halfLevel')
    expect(l.stderr).toContain('flag --pace collides with a base flag')
    // the rest still works
    const q = run([
      'convert',
      '-q',
      '-i',
      join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl'),
      '-f',
      'qwen_bailian',
      '--instance-id',
      'my_instance',
      '-o',
      join(tmp.dir, 'q.jsonl'),
    ])
    expect(q.exitCode).toBe(0)
    expect(
      readFileSync(join(tmp.dir, 'q.jsonl')).equals(
        readFileSync(join(FIXTURES, 'convert', 'qwen_bailian_sample.expected.jsonl')),
      ),
    ).toBe(true)
    expect(run(['plugins', 'uninstall', 'lmt-plugin-broken']).exitCode).toBe(0)
  })
})

describe('hook-based contributions', () => {
  it('lmt:converters and lmt:levels hooks contribute classes and levels; a failing hook is a warning', () => {
    const dir = join(tmp.dir, 'hooked')
    mkdirSync(join(dir, 'hooks'), {recursive: true})
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-hooked',
        version: '1.0.0',
        type: 'module',
        oclif: {
          hooks: {
            'lmt:converters': './hooks/converters.js',
            'lmt:levels': ['./hooks/levels.js', './hooks/fails.js'],
          },
        },
      }),
    )
    writeFileSync(
      join(dir, 'hooks', 'converters.js'),
      "class EchoLogConverter { static description = 'echo'; convertToTraces() { return [] } }\n" +
        'export default async function () { return [EchoLogConverter] }\n',
    )
    writeFileSync(
      join(dir, 'hooks', 'levels.js'),
      "const quiet = {name: 'quiet', description: 'a level from a hook', flags: {}, replayableSchemaVersions: [2],\n" +
        '  createTarget() { return {} }, buildDispatcher() { return new Map() }}\n' +
        'export default async function () { return [quiet] }\n',
    )
    writeFileSync(
      join(dir, 'hooks', 'fails.js'),
      "export default async function () { throw new Error('hook exploded') }\n",
    )
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    const formats = JSON.parse(run(['converters', '--json']).stdout).formats
    expect(formats.find((f: {format: string}) => f.format === 'echo_log')).toMatchObject({
      className: 'EchoLogConverter',
      source: 'plugin:lmt-plugin-hooked',
    })
    const l = run(['levels', '--json'])
    expect(l.exitCode).toBe(0)
    expect(l.stderr).toContain('plugin lmt-plugin-hooked: lmt:levels hook failed: hook exploded')
    const levels = JSON.parse(l.stdout).levels
    expect(levels.find((x: {name: string}) => x.name === 'quiet')).toMatchObject({
      source: 'plugin:lmt-plugin-hooked',
    })
    expect(run(['plugins', 'uninstall', 'lmt-plugin-hooked']).exitCode).toBe(0)
  })
})

describe('a plugin whose "lmt" manifest is partly wrong', () => {
  it('each field that does not fit schemas/plugin-manifest.schema.json is a warning naming it; the rest loads', () => {
    const dir = join(tmp.dir, 'halfmanifest')
    mkdirSync(join(dir, 'levels'), {recursive: true})
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'lmt-plugin-halfmanifest',
        version: '1.0.0',
        type: 'module',
        oclif: {},
        lmt: {converters: 5, levels: 'levels', colour: 'blue'},
      }),
    )
    writeFileSync(
      join(dir, 'levels', 'calm.js'),
      "export const calm = {name: 'calm', description: 'a level', flags: {}, replayableSchemaVersions: [2],\n" +
        '  createTarget() { return {} }, buildDispatcher() { return new Map() }}\n',
    )
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    const l = run(['levels', '--json'])
    expect(l.exitCode).toBe(0)
    expect(l.stderr).toContain(
      'plugin lmt-plugin-halfmanifest: "lmt.converters" in package.json must be a non-empty path; ignored',
    )
    expect(l.stderr).toContain(
      'plugin lmt-plugin-halfmanifest: "lmt.colour" in package.json is not a known field',
    )
    expect(JSON.parse(l.stdout).levels.find((x: {name: string}) => x.name === 'calm')).toMatchObject({
      source: 'plugin:lmt-plugin-halfmanifest',
    })
    const c = run(['converters', '--json'])
    expect(c.exitCode).toBe(0)
    expect(c.stderr).toContain('"lmt.converters" in package.json must be a non-empty path; ignored')
    expect(run(['plugins', 'uninstall', 'lmt-plugin-halfmanifest']).exitCode).toBe(0)
  })

  it("the example plugin's manifest fits the schema", async () => {
    const {validatorFor} = await import('../../../src/schemas.js')
    const pjson = JSON.parse(
      readFileSync(join(ROOT, 'examples', 'lmt-plugin-example', 'package.json'), 'utf8'),
    )
    expect(validatorFor('plugin-manifest.schema.json')(pjson.lmt)).toBe(true)
  })
})
