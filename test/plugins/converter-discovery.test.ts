import {mkdirSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {discoverConverters} from '../../src/plugins/converter-discovery.js'
import {ROOT, tempDir} from '../helpers/cli.js'

const BUILTIN = join(ROOT, 'dist', 'plugins', 'converters')
const tmp = tempDir()

const method = 'async *convertToTraces() { yield {type: "get", timestamp_ns: 1} }'

beforeAll(() => {
  const d = join(tmp.dir, 'convs')
  mkdirSync(join(d, 'sub'), {recursive: true})
  mkdirSync(join(d, 'node_modules'), {recursive: true})
  writeFileSync(
    join(d, 'a.js'),
    `export class FooConverter { ${method} }\nexport class Helper {}\nexport default FooConverter\n`,
  )
  writeFileSync(join(d, 'b.mjs'), `export class BarConverter { convertToTraceJsonl() { return 0 } }\n`)
  writeFileSync(
    join(d, 'c.cjs'),
    `class CjsThingConverter { convertToTraces() { return [] } }\nmodule.exports = {CjsThingConverter}\n`,
  )
  writeFileSync(
    join(d, 'sub', 'deep.js'),
    `export class DeepConverter { ${method} }\nDeepConverter.aliases = ['deep_alias', 'foo_alias']\n`,
  )
  writeFileSync(
    join(d, 'typed.ts'),
    `export class TypedConverter { convertToTraces(): unknown[] { const x: number = 1; return [x] } }\n`,
  )
  writeFileSync(join(d, '_private.js'), `export class PrivateConverter { ${method} }\n`)
  writeFileSync(join(d, '.hidden.js'), `export class HiddenConverter { ${method} }\n`)
  writeFileSync(join(d, 'x.test.js'), `export class TestOnlyConverter { ${method} }\n`)
  writeFileSync(join(d, 'node_modules', 'n.js'), `export class NodeModConverter { ${method} }\n`)
  writeFileSync(join(d, 'broken.js'), `export class BrokenConverter {\n`)
  writeFileSync(join(d, 'throws.js'), `throw new Error('boom at import')\n`)
  writeFileSync(join(d, 'nomethod.js'), `export class NopeConverter { convert() {} }\n`)
  writeFileSync(
    join(d, 'imports.js'),
    `import {FooConverter} from './a.js'\nexport const notAClass = FooConverter.name\n`,
  )
  writeFileSync(
    join(tmp.dir, 'override.mjs'),
    `export class QwenBailianConverter { ${method} }\nQwenBailianConverter.description = 'mine'\n`,
  )
  writeFileSync(
    join(tmp.dir, 'alias-vs-name.mjs'),
    `export class FooAliasConverter { ${method} }\nFooAliasConverter.aliases = ['foo']\n`,
  )
})

afterAll(() => tmp.cleanup())

describe('converter discovery', () => {
  it('finds built-ins, then directory modules by the class-name convention, recursively and in order', async () => {
    const warnings: string[] = []
    const reg = await discoverConverters({
      builtinDir: BUILTIN,
      dirs: [join(tmp.dir, 'convs')],
      onWarning: (w) => warnings.push(w),
    })
    const formats = reg.list().map((r) => `${r.format}:${r.className}:${r.source.split(':')[0]}`)
    expect(formats).toEqual([
      'bar:BarConverter:dir',
      'cjs_thing:CjsThingConverter:dir',
      'deep:DeepConverter:dir',
      'foo:FooConverter:dir',
      'lmcache_lct:LmcacheLctConverter:built-in',
      'lmcache_lookup:LmcacheLookupConverter:built-in',
      'mooncake:MooncakeConverter:built-in',
      'publisher_log:PublisherLogConverter:built-in',
      'qwen_bailian:QwenBailianConverter:built-in',
      'text_trace:TextTraceConverter:built-in',
      'typed:TypedConverter:dir',
    ])
    expect(reg.resolve('deep_alias')?.className).toBe('DeepConverter')
    expect(
      warnings.some((w) => w.startsWith('cannot load converter module') && w.includes('broken.js')),
    ).toBe(true)
    expect(warnings.some((w) => w.includes('throws.js') && w.includes('boom at import'))).toBe(true)
    expect(warnings).toContain(
      `NopeConverter in ${join(tmp.dir, 'convs', 'nomethod.js')} has neither convertToTraces nor convertToTraceJsonl; ignored`,
    )
    // FooConverter exported twice (named and default): registered once, silently
    expect(warnings.filter((w) => w.includes('FooConverter'))).toEqual([])
    expect(warnings).toHaveLength(3)
  })

  it('a later source overrides an earlier one with a warning (last writer wins)', async () => {
    const warnings: string[] = []
    const mod = join(tmp.dir, 'override.mjs')
    const reg = await discoverConverters({
      builtinDir: BUILTIN,
      modules: [mod],
      onWarning: (w) => warnings.push(w),
    })
    const r = reg.resolve('qwen_bailian')
    expect(r?.source).toBe(`module:${mod}`)
    expect(r?.description).toBe('mine')
    expect(r?.shadowed).toEqual([{className: 'QwenBailianConverter', source: 'built-in'}])
    expect(warnings).toEqual([
      `format "qwen_bailian": QwenBailianConverter from module:${mod} overrides QwenBailianConverter from built-in`,
    ])
  })

  it('reads format names and aliases without regard to case, exact names first', async () => {
    const reg = await discoverConverters({builtinDir: BUILTIN, onWarning: () => {}})
    expect(reg.resolve('MOONCAKE')?.className).toBe('MooncakeConverter')
    expect(reg.resolve('Qwen_Bailian')?.className).toBe('QwenBailianConverter')
    expect(reg.resolve('TEXT')?.className).toBe('TextTraceConverter')
    expect(reg.resolve('mooncak')).toBeUndefined()
  })

  it('a format name wins over an alias of the same text', async () => {
    const reg = await discoverConverters({
      builtinDir: BUILTIN,
      dirs: [join(tmp.dir, 'convs')],
      modules: [join(tmp.dir, 'alias-vs-name.mjs')],
      onWarning: () => {},
    })
    expect(reg.resolve('foo')?.className).toBe('FooConverter')
    expect(reg.knownNames()).toContain('foo')
    expect(reg.knownNames()).toEqual([...reg.knownNames()].sort())
  })

  it('warns about a missing directory; a named module that is missing is a coded error', async () => {
    const warnings: string[] = []
    const reg = await discoverConverters({
      builtinDir: BUILTIN,
      dirs: [join(tmp.dir, 'missing-dir')],
      onWarning: (w) => warnings.push(w),
    })
    expect(reg.list().length).toBeGreaterThan(0)
    expect(warnings).toEqual([`converter directory not found: ${join(tmp.dir, 'missing-dir')}`])
    for (const [spec, reason] of [
      ['no-such-dir/mine.mjs', `no such file: ${resolve('no-such-dir/mine.mjs')}`],
      ['no-such-package-lmt-xyz', /^Cannot find package 'no-such-package-lmt-xyz'/],
    ] as const) {
      const err = await discoverConverters({builtinDir: BUILTIN, modules: [spec], onWarning: () => {}}).catch(
        (e: unknown) => e,
      )
      expect(err).toMatchObject({code: 'LMT_PLUGIN_MODULE_LOAD_FAILED', exitCode: 2})
      const message = (err as Error).message
      expect(message.startsWith(`cannot load converter module ${spec}: `)).toBe(true)
      expect(message.slice(`cannot load converter module ${spec}: `.length)).toMatch(reason)
    }
  })
})
