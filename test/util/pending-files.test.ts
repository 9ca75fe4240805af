import {mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {PendingFiles} from '../../src/util/pending-files.js'
import {tempDir} from '../helpers/cli.js'
import {LMT_TEMP} from '../helpers/faults.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('PendingFiles.writeAtomic', () => {
  it('writes through a temporary file, renamed at commit', () => {
    const dir = join(tmp.dir, 'ok')
    mkdirSync(dir)
    const files = new PendingFiles()
    files.writeAtomic(join(dir, 'a.json'), '{}\n')
    const temps = readdirSync(dir)
    expect(temps).toHaveLength(1)
    expect(LMT_TEMP.exec(temps[0])?.[1]).toBe('a.json')
    files.commit()
    expect(readdirSync(dir)).toEqual(['a.json'])
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{}\n')
  })

  it('a link planted at the old fixed temporary name is not followed', () => {
    const dir = join(tmp.dir, 'planted')
    mkdirSync(dir)
    writeFileSync(join(tmp.dir, 'victim'), 'VICTIM\n')
    symlinkSync(join(tmp.dir, 'victim'), join(dir, 'a.json.tmp'))
    const files = new PendingFiles()
    files.writeAtomic(join(dir, 'a.json'), '{}\n')
    files.commit()
    expect(readFileSync(join(tmp.dir, 'victim'), 'utf8')).toBe('VICTIM\n')
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{}\n')
  })

  it('a failed write is LMT_SIM_OUTPUT_FAILED naming the file, and leaves nothing', () => {
    const dir = join(tmp.dir, 'gone')
    const files = new PendingFiles()
    let error: {code?: string; message?: string} = {}
    try {
      files.writeAtomic(join(dir, 'a.json'), '{}\n') // its folder does not exist
    } catch (err) {
      error = err as typeof error
    }
    expect(error.code).toBe('LMT_SIM_OUTPUT_FAILED')
    expect(error.message).toMatch(/cannot write .*a\.json: no such file or folder \(ENOENT\)/)
  })

  it('an output that is one of the inputs is refused (OUTPUT_IS_INPUT), staged or written', () => {
    const dir = join(tmp.dir, 'same')
    mkdirSync(dir)
    writeFileSync(join(dir, 'trace.jsonl'), 'rows\n')
    const files = new PendingFiles()
    files.protect([join(dir, 'trace.jsonl')])
    expect(() => files.writeAtomic(join(dir, 'trace.jsonl'), 'x')).toThrow(/same file as the input/)
    expect(readFileSync(join(dir, 'trace.jsonl'), 'utf8')).toBe('rows\n')
    expect(readdirSync(dir)).toEqual(['trace.jsonl'])
  })
})
