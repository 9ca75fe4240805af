// A temporary file is created exclusively (O_EXCL): whatever someone put at the name picked (a link to a victim
// file, a file) is never opened, followed or reused. The names are random; here they are made predictable (the
// random bytes are the test's) to plant a link at exactly the name lmt picks.
import {mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeEach, describe, expect, it, vi} from 'vitest'
import {tempDir} from '../helpers/cli.js'

const queue: string[] = []
vi.mock('node:crypto', async (original) => {
  const crypto = await original<typeof import('node:crypto')>()
  return {
    ...crypto,
    randomBytes: (n: number) => Buffer.from(queue.shift() ?? 'ffffffffffff', 'hex').subarray(0, n),
  }
})

const {openTempBeside, writeFileAtomic} = await import('../../src/util/atomic-write.js')

const tmp = tempDir()
afterAll(() => tmp.cleanup())
beforeEach(() => (queue.length = 0))

describe('a link planted at the very name a temporary file gets', () => {
  it('is not followed: another name is taken, the link and its target stay as they were', () => {
    const dir = join(tmp.dir, 'one')
    const victim = join(tmp.dir, 'victim-one')
    writeFileSync(victim, 'VICTIM\n')
    mkdirSync(dir)
    const planted = join(dir, `.out.html.lmt-tmp-${process.pid}-aaaaaaaaaaaa`)
    symlinkSync(victim, planted)
    queue.push('aaaaaaaaaaaa', 'bbbbbbbbbbbb')
    writeFileAtomic(join(dir, 'out.html'), '<html>')
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
    expect(readFileSync(join(dir, 'out.html'), 'utf8')).toBe('<html>')
    expect(readdirSync(dir).sort()).toEqual([`.out.html.lmt-tmp-${process.pid}-aaaaaaaaaaaa`, 'out.html'])
  })

  it('when every name tried is taken, the error is EEXIST and nothing is written through', () => {
    const dir = join(tmp.dir, 'all')
    const victim = join(tmp.dir, 'victim-all')
    writeFileSync(victim, 'VICTIM\n')
    mkdirSync(dir)
    symlinkSync(victim, join(dir, `.s.json.lmt-tmp-${process.pid}-cccccccccccc`))
    for (let i = 0; i < 20; i++) queue.push('cccccccccccc')
    expect(() => openTempBeside(join(dir, 's.json'))).toThrow(/EEXIST/)
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n')
  })
})
