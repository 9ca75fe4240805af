import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {LmtError} from '../../src/errors.js'
import type {LctHeader} from '../../src/formats/lct/types.js'
import {
  checkReplaySchema,
  chooseLevel,
  levelConfig,
  readReplayHeader,
  replaySpeed,
} from '../../src/replay/request.js'
import {storageLevel} from '../../src/replay/storage/storage-level.js'
import type {ReplayLevel} from '../../src/replay/level.js'
import {FIXTURES} from '../helpers/cli.js'

const level = storageLevel as unknown as ReplayLevel
const known = {levels: new Map([['storage', {level}]]), names: () => ['storage']}

/** The coded error `fn` throws: its kind, message and exit code. */
function coded(fn: () => unknown): {kind: string; message: string; exitCode: number} {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(LmtError)
    const e = err as LmtError
    return {kind: e.kind, message: e.message, exitCode: e.exitCode}
  }
  throw new Error('no error thrown')
}

describe('the replay request: flags and header checked by the library, each failure a coded error', () => {
  it('--speed: 1 by default, only with realtime pace, a number > 0', () => {
    expect(replaySpeed('virtual', undefined)).toBe(1)
    expect(replaySpeed('realtime', '4')).toBe(4)
    expect(coded(() => replaySpeed('virtual', '2'))).toEqual({
      kind: 'REPLAY_SPEED_NEEDS_REALTIME',
      message: '--speed applies to --pace realtime only',
      exitCode: 2,
    })
    expect(coded(() => replaySpeed('realtime', '0')).message).toBe('--speed must be a number > 0')
  })

  it('the level: the header’s, --level equal to it, an unknown one named with the known ones', async () => {
    const header = await readReplayHeader(join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct'), 1 << 20)
    expect(chooseLevel(known, undefined, header)).toBe(level)
    const two = {levels: new Map([...known.levels, ['events', {level}]]), names: () => ['events', 'storage']}
    expect(coded(() => chooseLevel(two, 'events', header))).toEqual({
      kind: 'REPLAY_LEVEL_MISMATCH',
      message: "trace level is 'storage' but --level events was given",
      exitCode: 2,
    })
    // a --level no installed plugin provides is unknown, whatever the trace's level, with the nearest name
    expect(coded(() => chooseLevel(known, 'storag', header))).toEqual({
      kind: 'REPLAY_UNKNOWN_LEVEL',
      message: "unknown replay level 'storag' (did you mean 'storage'?); known levels: storage",
      exitCode: 2,
    })
    const other = {...header, level: 'events'} as LctHeader
    expect(coded(() => chooseLevel(known, undefined, other)).message).toBe(
      "unknown replay level 'events'; known levels: storage",
    )
  })

  it('schema 1 only with --allow-schema-1, after one warning; configuration errors are REPLAY_CONFIG', async () => {
    const header = await readReplayHeader(join(FIXTURES, 'lct', 'v1_reserve_finish.lct'), 1 << 20)
    expect(coded(() => checkReplaySchema(level, header, false, () => {})).kind).toBe(
      'REPLAY_SCHEMA_NOT_REPLAYABLE',
    )
    const warned: string[] = []
    checkReplaySchema(level, header, true, (code) => warned.push(code))
    expect(warned).toEqual(['schema1'])
    const throwing = {...level, parseConfig: () => JSON.parse('{')} as ReplayLevel
    expect(coded(() => levelConfig(throwing, {}, header, () => {})).kind).toBe('REPLAY_CONFIG')
    expect(coded(() => levelConfig(level, {'eviction-policy': 'LRU'}, header, () => {})).kind).toBe(
      'REPLAY_CONFIG',
    )
  })
})
