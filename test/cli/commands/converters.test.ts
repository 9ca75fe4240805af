import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('lmt converters', () => {
  it('lists the built-in formats as a table', async () => {
    const r = await lmt(['converters'])
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^FORMAT\s+CLASS\s+SOURCE\s+ALIASES\s+DESCRIPTION$/)
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([
      'lmcache_lct',
      'lmcache_lookup',
      'mooncake',
      'publisher_log',
      'qwen_bailian',
      'text_trace',
    ])
    expect(r.stdout).toContain("Mooncake FAST'25 traces (timestamp in ms, 512-token blocks)")
  })

  it('shows overrides, sources and discovery warnings in --json', async () => {
    const m = join(tmp.dir, 'mine.mjs')
    writeFileSync(
      m,
      'export class MooncakeConverter { convertToTraces() { return [] } }\nMooncakeConverter.aliases = ["mc"]\nexport class EmptyConverter {}\n',
    )
    const r = await lmt(['converters', '--converter-module', m, '--json'])
    expect(r.exitCode).toBe(0)
    const doc = JSON.parse(r.stdout)
    const mc = doc.formats.find((f: {format: string}) => f.format === 'mooncake')
    expect(mc).toMatchObject({
      className: 'MooncakeConverter',
      source: `module:${m}`,
      aliases: ['mc'],
      description: '',
      shadowed: [{className: 'MooncakeConverter', source: 'built-in'}],
    })
    expect(doc.warnings).toEqual([
      `EmptyConverter in ${m} has neither convertToTraces nor convertToTraceJsonl; ignored`,
      `format "mooncake": MooncakeConverter from module:${m} overrides MooncakeConverter from built-in`,
    ])
    expect(r.stderr).toContain('warning: format "mooncake"')
  })
})

describe('help', () => {
  it.each(['convert', 'converters'])('%s --help has a summary and examples', async (cmd) => {
    const r = await lmt([cmd, '--help'])
    expect(r.stdout).toContain('EXAMPLES')
    expect(r.stdout).toContain(`lmt ${cmd}`)
  })
})
