import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {keepsYoungGenerationSmall} from '../../src/cli/young-generation.js'

describe('young generation', () => {
  it('is kept at its first size for simulate only', () => {
    expect(keepsYoungGenerationSmall(['simulate', '--trace', 't.jsonl'])).toBe(true)
    expect(keepsYoungGenerationSmall(['convert', '-i', 'x'])).toBe(false)
    expect(keepsYoungGenerationSmall(['--version'])).toBe(false)
    expect(keepsYoungGenerationSmall([])).toBe(false)
  })

  it('is settled by the first import of bin/run.js, before oclif loads', () => {
    const bin = readFileSync(new URL('../../bin/run.js', import.meta.url), 'utf8')
    const imports = [...bin.matchAll(/^import .*$/gm)].map((m) => m[0])
    expect(imports[0]).toMatch(
      /^import (\{keepsYoungGenerationSmall\} from )?'\.\.\/dist\/src\/cli\/young-generation\.js'$/,
    )
  })
})
