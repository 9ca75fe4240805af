// A report killed while it converted its input (-i) leaves its conversion folder in the temporary directory; the
// next report that converts removes the folders of reports whose process is gone, never those of a live one.
import {spawnSync} from 'node:child_process'
import {mkdirSync, readdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {removeStaleReportTemps} from '../../src/simulate/input/convert-input.js'
import {tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('removeStaleReportTemps', () => {
  it('removes the conversion folders of reports that are gone; a live one, links and other names stay', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number // a process that has ended
    mkdirSync(join(tmp.dir, `lmt-report-${dead}-abcDEF`, 'inner'), {recursive: true})
    mkdirSync(join(tmp.dir, `lmt-report-${process.pid}-ghiJKL`))
    mkdirSync(join(tmp.dir, 'lmt-report-other'))
    symlinkSync(join(tmp.dir, 'lmt-report-other'), join(tmp.dir, `lmt-report-${dead}-mnoPQR`))
    expect(removeStaleReportTemps(tmp.dir)).toBe(1)
    expect(readdirSync(tmp.dir).sort()).toEqual(
      [`lmt-report-${dead}-mnoPQR`, `lmt-report-${process.pid}-ghiJKL`, 'lmt-report-other'].sort(),
    )
  })
})
