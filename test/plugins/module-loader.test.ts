import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {scanModuleDir} from '../../src/plugins/module-loader.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('module directories', () => {
  it('lists TypeScript files only when asked to or when tsx is installed', async () => {
    const d = join(tmp.dir, 'mixed')
    mkdirSync(d, {recursive: true})
    writeFileSync(join(d, 'a.js'), '')
    writeFileSync(join(d, 'b.ts'), '')
    expect((await scanModuleDir(d, false)).files.map((f) => f.slice(d.length + 1))).toEqual(['a.js'])
    expect((await scanModuleDir(d, false)).skippedTs).toBe(1)
    expect((await scanModuleDir(d, true)).files.map((f) => f.slice(d.length + 1))).toEqual(['a.js', 'b.ts'])
    // tsx is a dependency of lmt, so the default finds it
    expect((await scanModuleDir(d)).files.map((f) => f.slice(d.length + 1))).toEqual(['a.js', 'b.ts'])
  })
})
