import {lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {targetOfTemp, tempPathBeside, writeFileAtomic} from '../../src/util/atomic-write.js'
import {tempDir} from '../helpers/cli.js'
import {LMT_TEMP} from '../helpers/faults.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const fresh = (name: string): string => {
  const dir = join(tmp.dir, name)
  mkdirSync(dir)
  return dir
}

describe('writeFileAtomic', () => {
  it('writes the file whole, through a temporary file', () => {
    const dir = fresh('whole')
    writeFileAtomic(join(dir, 'a.csv'), 'x,y\n')
    expect(readdirSync(dir)).toEqual(['a.csv'])
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('x,y\n')
  })

  it('a link at the old fixed temporary name is never followed: its target keeps its bytes', () => {
    const dir = fresh('planted')
    writeFileSync(join(dir, 'victim'), 'VICTIM\n')
    symlinkSync(join(dir, 'victim'), join(dir, 'a.csv.tmp'))
    writeFileAtomic(join(dir, 'a.csv'), 'x,y\n')
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('VICTIM\n')
    expect(lstatSync(join(dir, 'a.csv')).isFile()).toBe(true)
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('x,y\n')
  })

  it('an output that is a link is replaced by the file; the link target keeps its bytes', () => {
    const dir = fresh('link-output')
    writeFileSync(join(dir, 'victim'), 'VICTIM\n')
    symlinkSync(join(dir, 'victim'), join(dir, 'a.csv'))
    writeFileAtomic(join(dir, 'a.csv'), 'x,y\n')
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('VICTIM\n')
    expect(lstatSync(join(dir, 'a.csv')).isFile()).toBe(true)
  })

  it('a write that fails throws and leaves neither the file nor a temporary one', () => {
    const dir = fresh('missing')
    // the folder is gone: the temporary cannot be created
    expect(() => writeFileAtomic(join(dir, 'nope', 'a.csv'), 'x')).toThrow(/ENOENT/)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('temporary files', () => {
  it('have fresh names nobody can predict, beside their file, naming it and the process', () => {
    const names = new Set<string>()
    for (let i = 0; i < 200; i++) names.add(tempPathBeside('/x/out.jsonl'))
    expect(names.size).toBe(200)
    for (const n of names) {
      expect(n.startsWith('/x/.out.jsonl.lmt-tmp-')).toBe(true)
      expect(LMT_TEMP.exec(n.slice(3))?.[1]).toBe('out.jsonl')
      expect(n).toContain(`-${process.pid}-`)
      expect(targetOfTemp(n)).toBe('/x/out.jsonl')
    }
    expect(targetOfTemp('/x/out.jsonl')).toBe('/x/out.jsonl')
  })
})
