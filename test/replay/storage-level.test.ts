import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {reservedReplayFlagNames} from '../../src/cli/replay-flags.js'
import {discoverLevels} from '../../src/plugins/replay-levels.js'
import {storageLevel} from '../../src/replay/storage/storage-level.js'
import {lmt, ROOT, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : []
  })
}

describe('the storage level is core', () => {
  it('is the built-in level "storage", with no plugins/levels directory behind it', async () => {
    const reg = await discoverLevels(undefined, () => {}, reservedReplayFlagNames())
    expect(reg.levels.get('storage')).toEqual({name: 'storage', level: storageLevel, source: 'built-in'})
    expect(existsSync(join(ROOT, 'plugins', 'levels'))).toBe(false)
  })

  it('no command imports anything under plugins/', () => {
    const plugins = join(ROOT, 'plugins') + sep
    const offenders = tsFiles(join(ROOT, 'src', 'cli', 'commands')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/from '(\.[^']*)'/g)]
        .filter((m) => resolve(dirname(f), m[1]).startsWith(plugins))
        .map((m) => `${relative(ROOT, f)}: ${m[1]}`),
    )
    expect(offenders).toEqual([])
  })

  it('a storage flag that is not a number is a configuration error, for lmt replay and lmt convert --mode lct', async () => {
    const trace = join(ROOT, 'samples', 'lct', 'v2_full_prefetch_cycle.lct')
    const replay = await lmt(['replay', trace, '--l1-size-gb', 'abc', '--eviction-policy', 'LRU', '--json'])
    const convert = await lmt([
      'convert',
      '-i',
      join(ROOT, 'samples', 'mooncake_synthetic_trace.jsonl'),
      '-f',
      'mooncake',
      '--mode',
      'lct',
      '--l1-size-gb',
      'abc',
      '-o',
      join(tmp.dir, 'out.lct'),
      '--json',
    ])
    for (const r of [replay, convert]) {
      expect(r.exitCode).toBe(2)
      expect(JSON.parse(r.stdout).error).toEqual({
        code: 'LMT_REPLAY_CONFIG',
        message: '--l1-size-gb: "abc" is not a number of at least 0',
        exitCode: 2,
      })
    }
    expect(existsSync(join(tmp.dir, 'out.lct'))).toBe(false)
  })
})
