import {join} from 'node:path'
import type {Config} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {replayBaseFlags, reservedReplayFlagNames} from '../../src/cli/replay-flags.js'
import Replay from '../../src/cli/commands/replay.js'
import {storageLevel} from '../../src/replay/storage/storage-level.js'
import {discoverLevels} from '../../src/plugins/replay-levels.js'

const BASE_REPLAY_FLAGS = reservedReplayFlagNames()
import {discoverConverters} from '../../src/plugins/converter-discovery.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** A level that works, as a plugin would ship it. */
const level = (name: string, flags: Record<string, unknown> = {}) => ({
  name,
  description: `level ${name}`,
  flags,
  replayableSchemaVersions: [2],
  parseConfig: () => ({}),
  createTarget: () => ({}),
  buildDispatcher: () => new Map(),
})

/** An oclif Config with one installed plugin whose hooks return `results` (by hook name). */
function configWithHooks(results: Record<string, unknown>): Config {
  const plugin = {name: 'lmt-plugin-fake', type: 'user', root: '/nowhere', pjson: {}}
  return {
    name: 'lmt',
    getPluginsList: () => [plugin],
    runHook: async (name: string) => ({
      successes: name in results ? [{plugin, result: results[name]}] : [],
      failures: [],
    }),
  } as unknown as Config
}

describe('the flags a replay level may not declare', () => {
  it('are derived from the flag definitions of lmt replay itself', () => {
    const levelFlags = new Set(Object.keys(storageLevel.flags))
    const commandFlags = Object.keys(Replay.flags).filter((f) => !levelFlags.has(f))
    expect(commandFlags.sort()).toEqual(Object.keys(replayBaseFlags).sort())
    for (const f of commandFlags) expect(BASE_REPLAY_FLAGS.has(f), f).toBe(true)
    // oclif's derived spellings: --no-progress of an allowNo flag, --csv beside --no-csv, and --help
    for (const f of ['no-progress', 'csv', 'help']) expect(BASE_REPLAY_FLAGS.has(f), f).toBe(true)
    expect(BASE_REPLAY_FLAGS.has('l1-size-gb')).toBe(false)
  })

  it('follow a flag added to the definitions', () => {
    const names = reservedReplayFlagNames({...replayBaseFlags, extra: {allowNo: true}})
    expect(names.has('extra') && names.has('no-extra')).toBe(true)
  })

  it('a level declaring one (a derived spelling too) is refused with a warning', async () => {
    const warnings: string[] = []
    const config = configWithHooks({'lmt:levels': [level('clashing', {'no-progress': {}}), level('fine')]})
    const reg = await discoverLevels(config, (w) => warnings.push(w), BASE_REPLAY_FLAGS)
    expect(reg.names()).toContain('fine')
    expect(reg.names()).not.toContain('clashing')
    expect(warnings).toContain(
      'replay level "clashing" from plugin:lmt-plugin-fake: flag --no-progress collides with a base flag of lmt replay; level not registered',
    )
  })
})

describe('hook names', () => {
  it('the documented names lmt:levels and lmt:converters warn of nothing', async () => {
    class HookedConverter {
      convertToTraces() {
        return []
      }
    }
    const warnings: string[] = []
    const config = configWithHooks({'lmt:levels': [level('new_style')], 'lmt:converters': HookedConverter})
    const levels = await discoverLevels(config, (w) => warnings.push(w), BASE_REPLAY_FLAGS)
    const converters = await discoverConverters({
      builtinDir: join(ROOT, 'dist', 'plugins', 'converters'),
      config,
      onWarning: (w) => warnings.push(w),
    })
    expect(levels.names()).toContain('new_style')
    expect(converters.resolve('hooked')?.source).toBe('plugin:lmt-plugin-fake')
    expect(warnings).toEqual([])
  })

  it('one validation path: a hook item that is not a plugin of the kind is a warning naming the plugin', async () => {
    const warnings: string[] = []
    const config = configWithHooks({'lmt:converters': [{not: 'a class'}], 'lmt:levels': [42]})
    await discoverLevels(config, (w) => warnings.push(w), BASE_REPLAY_FLAGS)
    await discoverConverters({
      builtinDir: join(ROOT, 'dist', 'plugins', 'converters'),
      config,
      onWarning: (w) => warnings.push(w),
    })
    expect(warnings).toEqual([
      'plugin lmt-plugin-fake: lmt:levels returned something that is not a replay level; ignored',
      'plugin lmt-plugin-fake: lmt:converters returned something that is not a converter class; ignored',
    ])
  })
})

describe('converter validation', () => {
  it('a converter whose static flags are not flag definitions, or whose parseOptions is no function, is a warning naming it', async () => {
    class BadFlagsConverter {
      static flags = {greeting: 'hello'}
      convertToTraces() {
        return []
      }
    }
    class BadParseConverter {
      static parseOptions = 'nope'
      convertToTraces() {
        return []
      }
    }
    const warnings: string[] = []
    const config = configWithHooks({'lmt:converters': [BadFlagsConverter, BadParseConverter]})
    const reg = await discoverConverters({
      builtinDir: join(ROOT, 'dist', 'plugins', 'converters'),
      config,
      onWarning: (w) => warnings.push(w),
    })
    expect(reg.resolve('bad_flags')).toBeUndefined()
    expect(reg.resolve('bad_parse')).toBeUndefined()
    expect(warnings).toContain(
      'BadFlagsConverter in lmt-plugin-fake has a static flags that is not an object of flag definitions (Flags of lmt/flags); ignored',
    )
    expect(warnings).toContain(
      'BadParseConverter in lmt-plugin-fake has a static parseOptions that is not a function; ignored',
    )
  })
})
