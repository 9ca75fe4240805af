import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {
  creationError,
  describeFsError,
  ensureDirectory,
  outputError,
  refuseNonRegularOutput,
} from '../../src/util/output-path.js'
import {replaceAsSet} from '../../src/util/replace-set.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

/** A character device (the null device, 1:3) and a FIFO in a fresh folder; undefined where mknod is not allowed. */
function specialFiles(name: string): {dir: string; dev: string; fifo: string} | undefined {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  const dev = join(dir, 'dev')
  const fifo = join(dir, 'fifo')
  if (spawnSync('mknod', [dev, 'c', '1', '3']).status !== 0) return undefined
  if (spawnSync('mkfifo', [fifo]).status !== 0) return undefined
  return {dir, dev, fifo}
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: some text, open`), {code, syscall: 'open'})
}

describe('refuseNonRegularOutput', () => {
  const sp = specialFiles('special')
  it.skipIf(!sp)(
    'refuses a character device and a FIFO (OUTPUT_NOT_REGULAR, exit 2, naming the path)',
    () => {
      const {dev, fifo} = sp as NonNullable<typeof sp>
      for (const [path, what] of [
        [dev, 'a character device'],
        [fifo, 'a FIFO'],
      ]) {
        let e: {kind?: string; exitCode?: number; message?: string; suggestions?: string[]} = {}
        try {
          refuseNonRegularOutput(path)
        } catch (err) {
          e = err as typeof e
        }
        expect(e.kind).toBe('OUTPUT_NOT_REGULAR')
        expect(e.exitCode).toBe(2)
        expect(e.message).toContain(path)
        expect(e.message).toContain(what)
        expect(e.suggestions?.[0]).toMatch(/choose an output path/)
      }
    },
  )

  it('lets a missing path and a regular file through', () => {
    const f = join(tmp.dir, 'regular.txt')
    writeFileSync(f, 'x')
    expect(() => refuseNonRegularOutput(f)).not.toThrow()
    expect(() => refuseNonRegularOutput(join(tmp.dir, 'missing', 'x.jsonl'))).not.toThrow()
  })
})

describe('ensureDirectory', () => {
  it('creates the missing levels', () => {
    const d = join(tmp.dir, 'a', 'b', 'c')
    ensureDirectory(d, 'CONVERT_OUTPUT_FAILED')
    expect(existsSync(d)).toBe(true)
  })

  // Node's recursive mkdir spins forever on this path (the kernel answers ENOENT for a level whose parent exists)
  it.skipIf(!existsSync('/proc/self'))('a level under /proc is a coded error naming it, at once', () => {
    const t0 = Date.now()
    let e: {kind?: string; message?: string} = {}
    try {
      ensureDirectory('/proc/lmt-no-such/deeper', 'CONVERT_OUTPUT_FAILED')
    } catch (err) {
      e = err as typeof e
    }
    expect(Date.now() - t0).toBeLessThan(1000)
    expect(e.kind).toBe('CONVERT_OUTPUT_FAILED')
    expect(e.message).toMatch(/cannot create the folder \/proc\/lmt-no-such: the file system does not allow/)
  })

  it('a part of the path that is a file is named', () => {
    const f = join(tmp.dir, 'file-in-path')
    writeFileSync(f, 'x')
    expect(() => ensureDirectory(join(f, 'sub'), 'SIM_OUTPUT_FAILED')).toThrow(
      /file-in-path exists and is not a folder/,
    )
  })
})

describe('file-system errors in words', () => {
  it.each([
    ['EROFS', 'read-only file system (EROFS)', /read-only/],
    ['EACCES', 'permission denied (EACCES)', /permissions/],
    ['ENOSPC', 'no space left on device (ENOSPC)', /free some space/],
    ['EDQUOT', 'disk quota exceeded (EDQUOT)', /free some space/],
  ])('%s', (code, words, hint) => {
    expect(describeFsError(errno(code))).toBe(words)
    const e = outputError('CONVERT_OUTPUT_FAILED', 'cannot write /x/out.jsonl', errno(code))
    expect(e.kind).toBe('CONVERT_OUTPUT_FAILED')
    expect(e.message).toBe(`cannot write /x/out.jsonl: ${words}`)
    expect(e.suggestions[0]).toMatch(hint)
  })

  it('ENOENT for a file whose folder exists is a file system that allows no new files there', () => {
    const e = creationError('CONVERT_OUTPUT_FAILED', 'cannot create x', join(tmp.dir, 'x'), errno('ENOENT'))
    expect(e.message).toMatch(/does not allow new files or folders there \(ENOENT\)/)
  })
})

describe('replaceAsSet', () => {
  function setUp(name: string) {
    const dir = join(tmp.dir, name)
    mkdirSync(dir)
    for (const n of ['a', 'b', 'c']) {
      writeFileSync(join(dir, n), `old ${n}`)
      writeFileSync(join(dir, `${n}.tmp`), `new ${n}`)
    }
    writeFileSync(join(dir, 'd.tmp'), 'new d') // a file the old set did not have
    const set = ['a', 'b', 'c', 'd'].map((n) => ({tmp: join(dir, `${n}.tmp`), path: join(dir, n)}))
    return {dir, set}
  }

  it('replaces every file and leaves no temporary or backup', () => {
    const {dir, set} = setUp('set-ok')
    replaceAsSet(set)
    expect(readdirSync(dir).sort()).toEqual(['a', 'b', 'c', 'd'])
    for (const n of ['a', 'b', 'c', 'd']) expect(readFileSync(join(dir, n), 'utf8')).toBe(`new ${n}`)
  })

  it('a rename that fails midway puts the old set back (and removes the new file)', () => {
    const {dir, set} = setUp('set-fail')
    rmSync(join(dir, 'c.tmp')) // the third rename fails (ENOENT), after two have been made
    expect(() => replaceAsSet(set)).toThrow(/ENOENT/)
    expect(readdirSync(dir).sort()).toEqual(['a', 'b', 'c'])
    for (const n of ['a', 'b', 'c']) expect(readFileSync(join(dir, n), 'utf8')).toBe(`old ${n}`)
  })
})
