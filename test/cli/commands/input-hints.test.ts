import {chmodSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {inputReadHints} from '../../../src/errors.js'
import {lmtProcess, tempDir} from '../../helpers/cli.js'

// Every command that reads an input file says what to do when it cannot: a missing path, a folder, a file it may not
// read. The reason of the file system stays in the `error:` line; the `hint:` line says what to check.
const MISSING = 'hint: check the path: no file is there (a relative path starts at the current folder)'

let tmp: {dir: string; cleanup: () => void}
let env: NodeJS.ProcessEnv
beforeAll(() => {
  tmp = tempDir()
  env = {LMT_DATA_DIR: join(tmp.dir, 'data'), LMT_CACHE_DIR: join(tmp.dir, 'cache')}
  mkdirSync(join(tmp.dir, 'folder'))
})
afterAll(() => tmp.cleanup())

function run(args: string[]) {
  return lmtProcess(args, {cwd: tmp.dir, env})
}

function errorAndHint(stderr: string): [string, string] {
  const lines = stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(2)
  expect(lines[0]).toMatch(/^error: /)
  return [lines[0], lines[1]]
}

describe('a missing input file', () => {
  it.each([
    [
      ['simulate', '--trace', 'nope.jsonl', '--capacity-blocks', '10'],
      'error: cannot read trace nope.jsonl: ENOENT',
    ],
    [['simulate', 'nope.json'], 'error: cannot read configuration nope.json: ENOENT'],
    [['trace', 'info', 'nope.lct'], "error: trace file 'nope.lct': cannot read: ENOENT"],
    [['trace', 'dump', 'nope.lct'], "error: trace file 'nope.lct': cannot read: ENOENT"],
    [['replay', 'nope.lct'], "error: trace file 'nope.lct': cannot read: ENOENT"],
    [['convert', '-i', 'nope', '-f', 'mooncake'], 'error: input not found: nope'],
    [['report', '-i', 'nope', '-f', 'mooncake'], 'error: cannot read nope: ENOENT'],
  ])('lmt %s: error, then the hint to check the path', (args, error) => {
    const r = run(args)
    expect(r.exitCode).not.toBe(0)
    const [first, hint] = errorAndHint(r.stderr)
    expect(first.startsWith(error)).toBe(true)
    expect(hint).toBe(MISSING)
  })

  it('the hint is in the --json error document too', () => {
    const r = run(['trace', 'info', 'nope.lct', '--json'])
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: 'LMT_LCT_IO',
      hint: MISSING.slice('hint: '.length),
    })
  })
})

describe('a folder given as the input file', () => {
  it.each([
    [
      ['simulate', '--trace', 'folder', '--capacity-blocks', '10'],
      'hint: a folder is not a trace: give the path of a file in it',
    ],
    [['trace', 'info', 'folder'], 'hint: a folder is not a trace: give the path of a file in it'],
    [['replay', 'folder'], 'hint: a folder is not a trace: give the path of a file in it'],
    [
      ['report', '-i', 'folder', '-f', 'mooncake'],
      'hint: a folder is not an input file: give the path of a file in it',
    ],
  ])('lmt %s: error, then the hint that a folder is not a file', (args, expected) => {
    const r = run(args)
    expect(r.exitCode).not.toBe(0)
    expect(errorAndHint(r.stderr)[1]).toBe(expected)
  })
})

// root reads any file: the permission case can only be seen as another user
describe.skipIf(process.getuid?.() === 0)('an input file lmt may not read', () => {
  it.each([
    [['simulate', '--trace', 'locked.jsonl', '--capacity-blocks', '10']],
    [['trace', 'info', 'locked.jsonl']],
    [['convert', '-i', 'locked.jsonl', '-f', 'mooncake']],
  ])('lmt %s: error, then the hint to check the permissions', (args) => {
    const path = join(tmp.dir, 'locked.jsonl')
    writeFileSync(path, '{}\n')
    chmodSync(path, 0o000)
    const r = run(args)
    expect(r.exitCode).not.toBe(0)
    expect(errorAndHint(r.stderr)[1]).toBe(
      'hint: check the permissions: lmt needs to read the file (ls -l shows them)',
    )
  })
})

describe('inputReadHints', () => {
  it('gives one hint per cause the user can fix, none for another failure', () => {
    expect(inputReadHints({code: 'EACCES'}, 'a trace')).toEqual([
      'check the permissions: lmt needs to read the file (ls -l shows them)',
    ])
    expect(inputReadHints({code: 'EPERM'}, 'a trace')).toEqual(inputReadHints({code: 'EACCES'}, 'a trace'))
    expect(inputReadHints({code: 'ENOTDIR'}, 'a trace')).toEqual([MISSING.slice('hint: '.length)])
    expect(inputReadHints({code: 'EISDIR'}, 'an input file')).toEqual([
      'a folder is not an input file: give the path of a file in it',
    ])
    expect(inputReadHints({code: 'EIO'}, 'a trace')).toEqual([])
    expect(inputReadHints(new Error('boom'), 'a trace')).toEqual([])
  })
})
