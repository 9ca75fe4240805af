import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {PendingFiles} from '../../../src/simulate/output/pending-files.js'
import {tempDir} from '../../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('PendingFiles.writeAtomic', () => {
  it('writes through a temporary file, renamed at commit', () => {
    const dir = join(tmp.dir, 'ok')
    mkdirSync(dir)
    const files = new PendingFiles()
    files.writeAtomic(join(dir, 'a.json'), '{}\n')
    expect(readdirSync(dir)).toEqual(['a.json.tmp'])
    files.commit()
    expect(readdirSync(dir)).toEqual(['a.json'])
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{}\n')
  })

  // /dev/full fails every write with ENOSPC: a disk that is full
  it.skipIf(!existsSync('/dev/full'))(
    'a failed write is LMT_SIM_OUTPUT_FAILED naming the file, and leaves nothing',
    () => {
      const dir = join(tmp.dir, 'full')
      mkdirSync(dir)
      symlinkSync('/dev/full', join(dir, 'a.json.tmp'))
      const files = new PendingFiles()
      let error: {code?: string; message?: string} = {}
      try {
        files.writeAtomic(join(dir, 'a.json'), '{}\n')
      } catch (err) {
        error = err as typeof error
      }
      expect(error.code).toBe('LMT_SIM_OUTPUT_FAILED')
      expect(error.message).toMatch(/cannot write .*a\.json: no space left on device \(ENOSPC\)/)
      expect(readdirSync(dir)).toEqual([])
    },
  )
})
