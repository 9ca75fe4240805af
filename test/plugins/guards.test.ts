import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {removeStaleTemps, tempPathBeside} from '../../src/convert/stale-temps.js'
import {isLmtError} from '../../src/errors.js'
import {withExitGuard} from '../../src/util/guards/exit-guard.js'
import {isInside} from '../../src/plugins/plugin-paths.js'
import {restorePrototypes, snapshotPrototypes} from '../../src/util/guards/prototype-guard.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('the prototype guard', () => {
  it('puts back what was added, changed and removed, and names it', () => {
    snapshotPrototypes()
    const toString = Array.prototype.toString
    const at = Array.prototype.at
    ;(Object.prototype as Record<string, unknown>).exitCode = 0
    Array.prototype.toString = () => 'polluted'
    delete (Array.prototype as {at?: unknown}).at
    expect(({} as {exitCode?: number}).exitCode).toBe(0)
    expect(restorePrototypes().sort()).toEqual([
      'Array.prototype.at',
      'Array.prototype.toString',
      'Object.prototype.exitCode',
    ])
    expect(Object.hasOwn(Object.prototype, 'exitCode')).toBe(false)
    expect(Array.prototype.toString).toBe(toString)
    expect(Array.prototype.at).toBe(at)
    expect(restorePrototypes()).toEqual([])
  })
})

describe('the exit guard', () => {
  it("turns a plugin's process.exit into PLUGIN_EXIT and puts process.exit back", async () => {
    const exit = process.exit
    const err = await withExitGuard('converter X', async () => process.exit(3)).catch((e: unknown) => e)
    expect(isLmtError(err) && err.kind === 'PLUGIN_EXIT' && err.exitCode === 1).toBe(true)
    expect((err as Error).message).toBe(
      'converter X called process.exit(3); lmt stopped it there (plugin code must throw an error or return, never exit)',
    )
    expect(process.exit).toBe(exit)
    const swallowed = await withExitGuard('converter Y', async () => {
      try {
        process.exit(0)
      } catch {
        // the plugin carries on
      }
      return 'done'
    }).catch((e: unknown) => e)
    expect((swallowed as Error).message).toMatch(/^converter Y called process\.exit\(0\)/)
  })
})

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
