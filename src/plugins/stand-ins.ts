// What lmt's thread holds of a plugin object that lives on the plugin thread: its name, description and plain flag
// definitions, and members that ask the plugin thread for the rest.
import {type ElsewhereRunner, RUNS_ELSEWHERE} from '../convert/isolated-converter.js'
import type {ConverterClass, FormatSample} from '../convert/types.js'
import {endPluginThread, pluginLoadTimeoutMs, pluginThread} from './plugin-thread.js'
import {type LevelRunner, type PlainReplayResult, REPLAYS_ELSEWHERE} from '../replay/isolated-level.js'
import type {ReplayLevel} from '../replay/level.js'
import type {ConverterDescription, LevelDescription, Locator} from './plugin-wire.js'

/** How long lmt waits for a converter's looksLike, which must be cheap. */
const LOOKS_LIKE_MS = 1000

/**
 * A class standing in for a converter class on the plugin thread: it registers, lists and parses flags like one;
 * `parseOptions` hands the flags over (the converter's own definitions parse them on its thread), and a conversion
 * runs there whole.
 */
export function converterStandIn(
  desc: ConverterDescription,
  locator: Locator,
  source: string,
): ConverterClass {
  const who = `converter ${desc.className} (${source})`
  const name = desc.className
  const holder = {
    [name]: class {
      constructor() {
        throw new Error(`${name} runs on lmt's plugin thread`)
      }

      convertToTraces(): never {
        throw new Error(`${name} runs on lmt's plugin thread`)
      }
    },
  }
  const cls = holder[name] as unknown as Record<PropertyKey, unknown>
  cls.description = desc.description
  cls.aliases = desc.aliases
  if (desc.flags !== undefined) cls.flags = desc.flags
  if (desc.parseOptions)
    cls.parseOptions = (flags: Record<string, unknown>, converterConfig: unknown) => {
      // the settings may not cross threads; their usage errors are told now, before any output or work
      const deferred = {flags: {...flags}, converterConfig}
      pluginThread().callSync('checkSettings', {locator, deferred}, who, pluginLoadTimeoutMs())
      return {lmtDeferredSettings: deferred}
    }
  if (desc.looksLike)
    cls.looksLike = (sample: FormatSample) =>
      pluginThread().callSync<boolean>('looksLike', {locator, sample}, who, LOOKS_LIKE_MS)
  if (desc.inputFiles)
    cls.inputFiles = (dir: string) =>
      pluginThread().callSync<string[]>('inputFiles', {locator, dir}, who, pluginLoadTimeoutMs())
  const runner: ElsewhereRunner = {
    run: (staged, on) =>
      pluginThread().call('convert', {locator, staged}, who, {
        events: {
          warn: (m: string) => on.logger.warn(m),
          info: (m: string) => on.logger.info(m),
          progress: on.progress,
          inputDone: on.inputDone,
        },
      }),
    abandon: () => endPluginThread(),
  }
  cls[RUNS_ELSEWHERE] = runner
  return cls as unknown as ConverterClass
}

/** A level configuration parsed on the plugin thread: a handle to it, and its digest. */
interface ConfigToken {
  lmtConfigHandle: number
  digest?: {json: string; digest: string}
}

/**
 * An object standing in for a replay level on the plugin thread: it lists, chooses and parses flags like one;
 * `parseConfig` runs there (the configuration stays there), and a replay runs there whole.
 */
export function levelStandIn(desc: LevelDescription, locator: Locator, source: string): ReplayLevel {
  const who = `replay level ${desc.name} (${source})`
  const fail = (): never => {
    throw new Error(`replay level ${desc.name} runs on lmt's plugin thread`)
  }
  const runner: LevelRunner = {
    run: (staged, on) =>
      pluginThread().call<PlainReplayResult>(
        'replay',
        {locator, staged, handle: (staged.config as ConfigToken).lmtConfigHandle},
        who,
        {
          events: {
            warn: ([code, key, message]: [string, string, string]) => on.warn(code, key, message),
            records: on.records,
            progress: ([records, offset]: [number, number]) => on.progress(records, offset),
          },
        },
      ),
    abandon: () => endPluginThread(),
  }
  return {
    name: desc.name,
    description: desc.description,
    flags: desc.flags,
    replayableSchemaVersions: desc.replayableSchemaVersions,
    parseConfig(flags, header, warn) {
      const r = pluginThread().callSync<{
        handle: number
        digest?: {json: string; digest: string}
        warnings: string[]
      }>('levelConfig', {locator, flags: {...flags}, header}, who, pluginLoadTimeoutMs())
      for (const m of r.warnings) warn(m)
      return {lmtConfigHandle: r.handle, digest: r.digest} satisfies ConfigToken
    },
    configDigest: desc.configDigest
      ? (config) => (config as ConfigToken).digest ?? {json: '', digest: ''}
      : undefined,
    createTarget: fail,
    buildDispatcher: fail,
    [REPLAYS_ELSEWHERE]: runner,
  } as ReplayLevel
}
