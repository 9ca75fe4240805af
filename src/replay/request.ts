// The checks that turn `lmt replay`'s flags into a replay request (docs/storage-replay.md §1.4): the pace's speed,
// the trace header, the level, its replayable schemas and its configuration. Each failure is a coded error.
import {LctError, LmtError, lmtError} from '../errors.js'
import {openTrace} from '../formats/lct/reader.js'
import type {LctHeader} from '../formats/lct/types.js'
import type {ReplayLevel} from './level.js'

/** The known levels by name (the plugin registry, seen from here). */
export interface KnownLevels {
  readonly levels: ReadonlyMap<string, {level: ReplayLevel}>
  names(): string[]
}

/** `--speed`: only with realtime pace, a number > 0; 1 when not given. */
export function replaySpeed(pace: 'virtual' | 'realtime', flag: string | undefined): number {
  if (flag === undefined) return 1
  if (pace === 'virtual') throw lmtError('REPLAY_SPEED_NEEDS_REALTIME')
  const speed = Number(flag)
  if (!(speed > 0)) throw lmtError('CLI_OUT_OF_RANGE', '--speed', 'a number > 0')
  return speed
}

/** The trace's header; one that lmt cannot replay is a usage error (exit 2), other trace errors exit 1. */
export async function readReplayHeader(file: string, maxFrameBytes: number): Promise<LctHeader> {
  try {
    const reader = await openTrace(file, {maxFrameBytes, name: file})
    const header = reader.header
    await reader.close()
    return header
  } catch (err) {
    if (
      err instanceof LctError &&
      ['LCT_G0_HEADER', 'LCT_UNSUPPORTED_FORMAT', 'LCT_UNSUPPORTED_SCHEMA'].includes(err.kind)
    )
      throw new LmtError(err.kind, err.message, {exitCode: 2})
    throw err
  }
}

/** The header's level, or `--level`, which must equal it (§2.4). */
export function chooseLevel(known: KnownLevels, flag: string | undefined, header: LctHeader): ReplayLevel {
  const levelName = flag ?? header.level
  if (flag !== undefined && !known.levels.has(flag))
    throw lmtError('REPLAY_UNKNOWN_LEVEL', flag, known.names(), {
      suggestions: [`\`lmt levels\` lists the replay levels; this trace's level is '${header.level}'`],
    })
  if (flag !== undefined && flag !== header.level)
    throw lmtError('REPLAY_LEVEL_MISMATCH', header.level, flag, {
      suggestions: [`leave out --level to replay at the trace's own level ('${header.level}')`],
    })
  const reg = known.levels.get(levelName)
  if (!reg)
    throw lmtError('REPLAY_UNKNOWN_LEVEL', levelName, known.names(), {
      suggestions: [
        'install the lmt plugin that provides this level (lmt plugins install …); `lmt levels` lists the installed ones',
      ],
    })
  return reg.level
}

/** The level must replay the trace's schema; schema 1 only with `--allow-schema-1`, after a warning (§2.5). */
export function checkReplaySchema(
  level: ReplayLevel,
  header: LctHeader,
  allowSchema1: boolean,
  warn: (code: string, key: string, message: string) => void,
): void {
  if (level.replayableSchemaVersions.includes(header.traceSchemaVersion)) return
  if (header.traceSchemaVersion === 1 && allowSchema1)
    warn(
      'schema1',
      '',
      'replaying a schema-1 trace: cache salts were not recorded; keys that differed only by salt are merged',
    )
  else
    throw lmtError(
      'REPLAY_SCHEMA_NOT_REPLAYABLE',
      header.traceSchemaVersion,
      level.name,
      level.replayableSchemaVersions,
    )
}

/** The level's configuration from its flags; whatever else a (plugin) level throws is a configuration error. */
export function levelConfig(
  level: ReplayLevel,
  flags: Record<string, unknown>,
  header: LctHeader,
  warn: (message: string) => void,
): unknown {
  try {
    return level.parseConfig(flags, header, warn)
  } catch (err) {
    if (err instanceof LmtError) throw err
    throw lmtError('REPLAY_CONFIG', (err as Error).message)
  }
}
