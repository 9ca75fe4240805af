import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {scanModuleDir} from '../../src/plugins/module-loader.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('module directories', () => {
  it('lists JavaScript and TypeScript modules, not declarations, tests or private files', async () => {
    const d = join(tmp.dir, 'mixed')
    mkdirSync(join(d, 'sub'), {recursive: true})
    for (const f of ['a.js', 'b.ts', 'c.mts', 'd.cjs', 'e.d.ts', 'f.test.ts', '_g.ts', 'sub/h.mjs', 'i.json'])
      writeFileSync(join(d, f), '')
    expect((await scanModuleDir(d)).files.map((f) => f.slice(d.length + 1))).toEqual([
      'a.js',
      'b.ts',
      'c.mts',
      'd.cjs',
      'sub/h.mjs',
    ])
  })
})
