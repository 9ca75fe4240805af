import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {writeFileAtomic} from '../../src/util/atomic-write.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const fresh = (name: string): string => {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  return dir
}
// /dev/full takes the open and fails every write with ENOSPC: a disk that is full
const devFull = existsSync('/dev/full')

describe('writeFileAtomic', () => {
  it('writes the file whole, through a temporary file', () => {
    const dir = fresh('whole')
    writeFileAtomic(join(dir, 'a.csv'), 'x,y\n')
    expect(readdirSync(dir)).toEqual(['a.csv'])
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('x,y\n')
  })

  it.skipIf(!devFull)('a failed write throws and leaves neither the file nor a temporary one', () => {
    const dir = fresh('full')
    symlinkSync('/dev/full', join(dir, 'a.csv.tmp'))
    expect(() => writeFileAtomic(join(dir, 'a.csv'), 'x,y\n')).toThrow(/ENOSPC/)
    expect(readdirSync(dir)).toEqual([])
  })
})
