import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmtProcess, ROOT, tempDir} from '../helpers/cli.js'

// The converters of README § "Writing a plugin", taken from the README as they are written there and run by the
// built CLI: what the README says they do, they do.
const tmp = tempDir()
afterAll(() => tmp.cleanup())
const run = (args: string[]) => lmtProcess(args, {cwd: tmp.dir})
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

/** The README's js block whose first line is `// <file>  →  …`, written into the temporary folder. */
function readmeModule(file: string): string {
  const block = new RegExp(`\`\`\`js\\n(// ${file.replace('.', '\\.')} [^\\n]*\\n[\\s\\S]*?)\`\`\``).exec(
    readme,
  )
  if (!block) throw new Error(`README has no js block starting with // ${file}`)
  const path = join(tmp.dir, file)
  writeFileSync(path, block[1])
  return path
}

const gateway = join(tmp.dir, 'gateway.jsonl')
writeFileSync(
  gateway,
  ['{"ts": 10, "tokens": 32, "block_ids": [1, 2]}', '{"ts": 20, "tokens": 16, "block_ids": [3]}', ''].join(
    '\n',
  ),
)

describe("the README's converters", () => {
  it('my_converter.mjs converts as shown', () => {
    const m = readmeModule('my_converter.mjs')
    const out = join(tmp.dir, 'my.jsonl')
    const r = run(['convert', '-q', '-i', gateway, '-f', 'my', '--converter-module', m, '-o', out])
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(rows.map((x) => [x.type, x.timestamp_ns, x.keys, x.input_len])).toEqual([
      ['get', 10000, [expect.any(Number), expect.any(Number)], 32],
      ['write', 10001, [expect.any(Number), expect.any(Number)], undefined],
      ['get', 20000, [expect.any(Number)], 16],
      ['write', 20001, [expect.any(Number)], undefined],
    ])
  })

  it("sampled.mjs: its flag and config work, and parseOptions' PLUGIN_USAGE is a usage error in its words", () => {
    const m = readmeModule('sampled.mjs')
    const out = join(tmp.dir, 'sampled.jsonl')
    const ok = run([
      'convert',
      '-q',
      '-i',
      gateway,
      '-f',
      'sampled',
      '--converter-module',
      m,
      '--sample-every',
      '2',
      '--converter-config-json',
      '{"tenant": "a"}',
      '-o',
      out,
    ])
    expect(ok.stderr).toBe('')
    expect(ok.exitCode).toBe(0)
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(rows.map((x) => [x.type, x.instance_id, x.timestamp_ns])).toEqual([
      ['get', 'a', 10],
      ['write', 'a', 11],
    ])

    const bad = ['convert', '-i', gateway, '-f', 'sampled', '--converter-module', m]
    bad.push('--converter-config-json', '{"tenant": 5}', '-o', join(tmp.dir, 'never.jsonl'))
    const r = run(bad)
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: tenant must be a string\n')
    expect(r.stderr).toContain(`hint: --converter-config-json '{"tenant": "a"}'`)
    // told before the conversion starts: no header, no input read, no output
    expect(r.stderr).not.toContain('lmt convert:')
    const flag = run([...bad.slice(0, 7), '--sample-every', '0', '-o', join(tmp.dir, 'never.jsonl')])
    expect(flag.exitCode).toBe(2)
    expect(flag.stderr).toBe(
      'error: --sample-every: Expected an integer greater than or equal to 1 but received: 0\n',
    )
    const j = run([...bad, '--json'])
    expect(j.exitCode).toBe(2)
    expect(JSON.parse(j.stdout)).toMatchObject({
      error: {code: 'LMT_PLUGIN_USAGE', message: 'tenant must be a string', exitCode: 2},
    })
  })

  it("the example plugin's blank --lookup-model is its own usage error", () => {
    const m = join(ROOT, 'examples', 'lmt-plugin-example', 'converters', 'lookup-hash-log.js')
    const input = join(ROOT, 'examples', 'lmt-plugin-example', 'samples', 'lookups.jsonl')
    const args = ['convert', '-i', input, '-f', 'lookup_hash_log', '--converter-module', m]
    const r = run([...args, '--lookup-model', ' ', '-o', join(tmp.dir, 'never.jsonl')])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('error: --lookup-model must name a model\n')
    expect(r.stderr).toContain('hint: leave --lookup-model out to use --instance-id')
  })
})
