import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {listBuiltinModules, MODULE_LISTING, scanModuleDir} from '../../src/plugins/module-loader.js'
import {ROOT, tempDir} from '../helpers/cli.js'

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

  it('reads the build-time listing of a built-in directory instead of scanning it', async () => {
    const d = join(tmp.dir, 'listed')
    mkdirSync(d, {recursive: true})
    writeFileSync(join(d, 'on-disk.js'), '')
    writeFileSync(join(d, MODULE_LISTING), JSON.stringify(['listed.js']))
    expect((await listBuiltinModules(d)).files).toEqual([join(d, 'listed.js')])
    // a listing that is not a list of names is ignored: the directory is scanned
    writeFileSync(join(d, MODULE_LISTING), '{"no": 1}')
    expect((await listBuiltinModules(d)).files).toEqual([join(d, 'on-disk.js')])
    expect((await listBuiltinModules(join(tmp.dir, 'absent'))).missing).toBe(true)
  })

  it('the listings the build wrote match a scan of the built directories', async () => {
    for (const sub of ['converters']) {
      const dir = join(ROOT, 'dist', 'plugins', sub)
      expect((await listBuiltinModules(dir)).files).toEqual((await scanModuleDir(dir, false)).files)
    }
  })
})
