import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {removeStaleTemps} from '../../src/convert/stale-temps.js'
import {tempPathBeside} from '../../src/util/atomic-write.js'
import {isInside} from '../../src/plugins/plugin-package.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('paths inside a plugin', () => {
  it('resolves symbolic links before deciding', () => {
    const root = join(tmp.dir, 'pkg')
    mkdirSync(join(root, 'conv'), {recursive: true})
    mkdirSync(join(tmp.dir, 'elsewhere'))
    symlinkSync(join(tmp.dir, 'elsewhere'), join(root, 'conv', 'out'))
    symlinkSync(join(root, 'conv'), join(tmp.dir, 'link-to-conv'))
    expect(isInside(root, join(root, 'conv'))).toBe(true)
    expect(isInside(root, root)).toBe(true)
    expect(isInside(root, join(root, 'conv', 'out'))).toBe(false)
    expect(isInside(root, join(root, '..', 'elsewhere'))).toBe(false)
    expect(isInside(root, join(tmp.dir, 'link-to-conv'))).toBe(true) // it leads into the package
    expect(isInside(root, join(tmp.dir, 'pkg-sibling'))).toBe(false) // a shared prefix is not inside
  })
})

describe('stale temporary files', () => {
  it('removes those of a process that is gone, only regular files and directories, never those of a live one', () => {
    const dir = join(tmp.dir, 'out')
    mkdirSync(dir)
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout
    const deadFile = join(dir, `.a.jsonl.lmt-tmp-${gone}-0123456789ab`)
    const deadDir = join(dir, `.lmt-convert-${gone}-AbC123`)
    const deadLink = join(dir, `.b.jsonl.lmt-tmp-${gone}-0123456789ab`)
    const live = tempPathBeside(join(dir, 'c.jsonl'))
    const other = join(dir, `.a.jsonl.lmt-tmp-${gone}-notours`)
    writeFileSync(deadFile, 'x')
    mkdirSync(join(deadDir, 'inner'), {recursive: true})
    symlinkSync(join(tmp.dir, 'pkg'), deadLink)
    writeFileSync(live, 'x')
    writeFileSync(other, 'x')
    expect(removeStaleTemps(dir)).toBe(2)
    expect([deadFile, deadDir].map(existsSync)).toEqual([false, false])
    expect([deadLink, live, other].map(existsSync)).toEqual([true, true, true])
  })
})
