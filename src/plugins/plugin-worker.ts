// lmt's plugin thread: the one place third-party plugin code runs (its own isolate: its prototypes, its timers, its
// process.exit are its own). lmt's thread asks; this thread loads modules, runs hooks and conversions, and answers
// with plain data. While it works on a request its port does not keep it alive: plugin code that awaits what never
// comes lets its event loop empty, which lmt's thread sees (state[0]) and reports.
import {existsSync, statSync} from 'node:fs'
import {type MessagePort, parentPort, workerData} from 'node:worker_threads'
import {ConversionRun} from '../convert/conversion-run.js'
import '../convert/fast/index.js' // convert's accelerators (convert/seams.ts)
import type {StagedConversion} from '../convert/isolated-converter.js'
import {converterSettings} from '../convert/settings.js'
import type {ConverterClass, FormatSample} from '../convert/types.js'
import {isLmtError, lmtError} from '../errors.js'
import {replayTrace, type RecordOutcome} from '../replay/driver.js'
import type {StagedReplay} from '../replay/isolated-level.js'
import type {ReplayLevel} from '../replay/level.js'
import {levelConfig} from '../replay/request.js'
import {isConverterClass} from './converter-discovery.js'
import {exportNames, hookItems, MAX_HOOK_ITEMS, moduleName} from './discovery.js'
import {isLevel} from './level-registry.js'
import {importFile, prepareForPluginModules} from './module-loader.js'
import {MODULE_SUFFIXES} from './plugin-package.js'
import {
  type FoundEvent,
  type FoundItem,
  type Locator,
  locatorKey,
  describeConverter,
  describeLevel,
  NEXT_STEP,
} from './plugin-wire.js'
import {errorText, workerErrorData} from '../util/workers/worker-errors.js'

interface Request {
  id: number
  op: keyof typeof OPS
  args: unknown
  /** set for a call lmt's thread waits for: the answer goes to the sync port, then this flag is raised */
  sync?: Int32Array
}

// lmt's stdout carries only lmt's output (--json, -o -, trace dump), and nothing on this thread writes lmt's output
// there: what plugin code prints (console.log, process.stdout.write) goes to stderr instead
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write

const port = parentPort as MessagePort
const state = new Int32Array(workerData.state as SharedArrayBuffer)
const syncPort = workerData.syncPort as MessagePort
process.on('beforeExit', () => Atomics.store(state, 0, 1))

const modules = new Map<string, Record<string, unknown>>()
/** level configurations parsed here, by handle (they stay with the level's code) */
const configs = new Map<number, unknown>()
const hookResults = new Map<string, unknown[]>()

async function moduleAt(path: string): Promise<Record<string, unknown>> {
  let ns = modules.get(path)
  if (!ns) modules.set(path, (ns = await importFile(path)))
  return ns
}

/** A plugin object again, from where it was found. */
async function find(locator: Locator): Promise<unknown> {
  if ('module' in locator) return (await moduleAt(locator.module))[locator.exportName]
  const key = locatorKey({...locator, index: -1})
  let items = hookResults.get(key)
  if (!items) {
    const {file, identifier, event} = locator.hook
    hookResults.set(key, (items = hookItems(await callHook(file, identifier), event)))
  }
  return items[locator.index]
}

/** What `value` is as a plugin of kind `what` (its checks' warnings into `events`), or undefined when none. */
function describe(
  what: string,
  value: unknown,
  at: string,
  locator: Locator,
  exportName: string | undefined,
  events: FoundEvent[],
): FoundItem | undefined {
  const warn = (m: string): number => events.push({warn: m})
  try {
    if (what === 'converter')
      return isConverterClass(value, at, warn)
        ? {locator, exportName, converter: describeConverter(value)}
        : undefined
    if (isLevel(value, exportName, at, warn)) return {locator, exportName, level: describeLevel(value)}
    return undefined
  } catch (err) {
    warn(`${exportName ?? 'an item'} in ${at} cannot be read: ${errorText(err)}; ignored`)
    return undefined
  }
}

/** The file oclif would load for a hook target: as named, or with a module extension or index file. */
function hookFile(path: string): string {
  for (const suffix of MODULE_SUFFIXES)
    if (existsSync(path + suffix) && statSync(path + suffix).isFile()) return path + suffix
  return path
}

/** Runs one oclif hook as oclif would (the hook function of its module, `this` a small context). */
async function callHook(file: string, identifier: string): Promise<unknown> {
  const ns = await importFile(hookFile(file))
  const search = (m: Record<string, unknown>): unknown =>
    typeof m.default === 'function' ? m.default : Object.values(m).find((v) => typeof v === 'function')
  const fn = ns[identifier] ?? (identifier === 'default' ? search(ns) : undefined)
  if (typeof fn !== 'function') return undefined
  const context = {
    log: (...a: unknown[]) => process.stderr.write(a.map(String).join(' ') + '\n'),
    warn: (m: unknown) => process.stderr.write(`warning: ${String(m)}\n`),
    error: (m: unknown) => {
      throw m instanceof Error ? m : new Error(String(m))
    },
    exit: (code = 0) => process.exit(code),
    debug: () => {},
  }
  return (await fn.call(context, {context})) as unknown
}

const OPS = {
  /** Loads a module and reports what plugins of kind `what` it exports. */
  async load(args: {what: string; path: string; source: string}): Promise<FoundEvent[]> {
    const {what, path, source} = args
    const ns = await moduleAt(path)
    const events: FoundEvent[] = []
    const at = moduleName(path, source)
    for (const exportName of exportNames(ns)) {
      const item = describe(what, ns[exportName], at, {module: path, exportName}, exportName, events)
      if (item) events.push({item})
    }
    return events
  },

  /** Runs one plugin's hooks of `event` and reports what they returned, item by item. */
  async hooks(args: {
    what: string
    event: string
    plugin: string
    hooks: Array<{file: string; identifier: string}>
  }): Promise<{events: FoundEvent[]; failures: string[]}> {
    const events: FoundEvent[] = []
    const failures: string[] = []
    for (const {file, identifier} of args.hooks) {
      const hook = {plugin: args.plugin, file, identifier, event: args.event}
      let items: unknown[]
      try {
        items = hookItems(await callHook(file, identifier), args.event)
      } catch (err) {
        failures.push(errorText(err))
        continue
      }
      if (items.length > MAX_HOOK_ITEMS) {
        failures.push(
          lmtError('PLUGIN_HOOK_TOO_MANY', args.plugin, args.event, items.length, MAX_HOOK_ITEMS).message,
        )
        continue
      }
      hookResults.set(locatorKey({hook, index: -1}), items)
      items.forEach((value, index) => {
        const item = describe(args.what, value, args.plugin, {hook, index}, undefined, events)
        events.push(item ? {item} : {notAPlugin: true})
      })
    }
    return {events, failures}
  },

  /** Whether a converter says a file starting with `line` looks like its input. */
  async looksLike(args: {locator: Locator; sample: FormatSample}): Promise<boolean> {
    const cls = (await find(args.locator)) as {looksLike(sample: FormatSample): unknown}
    return cls.looksLike(args.sample) === true
  },

  /**
   * A converter's own flags and its parseOptions, run before the conversion (which runs them again for the settings
   * it uses) so that their usage errors come before any output or work; the settings stay here.
   */
  async checkSettings(args: {locator: Locator; deferred: DeferredSettings}): Promise<null> {
    await settingsOf((await find(args.locator)) as ConverterClass, args.deferred)
    return null
  },

  /** The files a converter lists for a directory input. */
  async inputFiles(args: {locator: Locator; dir: string}): Promise<string[]> {
    const cls = (await find(args.locator)) as {name: string; inputFiles(dir: string): unknown}
    let files: unknown
    try {
      files = cls.inputFiles(args.dir)
    } catch (err) {
      if (isLmtError(err)) throw err
      throw lmtError('PLUGIN_CONVERTER_FAILED', `${cls.name}.inputFiles() failed: ${errorText(err)}`)
    }
    if (!Array.isArray(files) || !files.every((f) => typeof f === 'string'))
      throw lmtError('PLUGIN_CONVERTER_FAILED', `${cls.name}.inputFiles() must return an array of paths`)
    return files
  },

  /** A level's configuration from the flags: kept here under a handle, with its digest and the level's warnings. */
  async levelConfig(args: {locator: Locator; flags: Record<string, unknown>; header: never}): Promise<{
    handle: number
    digest?: {json: string; digest: string}
    warnings: string[]
  }> {
    const level = (await find(args.locator)) as ReplayLevel
    const warnings: string[] = []
    const flags = await ownFlags(level.flags, args.flags)
    let config: unknown
    try {
      config = levelConfig(level, flags, args.header, (m) => warnings.push(m))
    } catch (err) {
      if (isLmtError(err)) throw err
      throw lmtError('REPLAY_CONFIG', errorText(err))
    }
    const handle = configs.size + 1
    configs.set(handle, config)
    const digest = level.configDigest?.(config)
    return {handle, digest: digest && {json: String(digest.json), digest: String(digest.digest)}, warnings}
  },

  /** A whole replay; its --record file is left in the staging folder lmt's thread made. */
  async replay(args: {locator: Locator; staged: StagedReplay; handle: number}, id: number): Promise<unknown> {
    const level = (await find(args.locator)) as ReplayLevel
    const levelFailed = (reason: string) =>
      lmtError('PLUGIN_LEVEL_FAILED', level.name, reason, {suggestions: [NEXT_STEP]})
    const {staged} = args
    const event = (name: string, value: unknown): void => port.postMessage({id, event: name, value})
    let outcomes: RecordOutcome[] = []
    const flush = (): void => {
      if (outcomes.length > 0) event('records', outcomes)
      outcomes = []
    }
    let record: string | undefined
    let result
    try {
      result = await replayTrace({
        ...staged,
        level,
        config: configs.get(args.handle),
        placeRecord: (done) => (record = done.tmp),
        warn: (code, key, message) => event('warn', [code, key, message]),
        onRecord: (o) => {
          if (outcomes.push(o) >= 256) flush()
        },
        onProgress: (records, offset) => {
          flush()
          event('progress', [records, offset])
        },
      })
      flush()
    } catch (err) {
      throw isLmtError(err) ? err : levelFailed(errorText(err))
    }
    const {stats, snapshot: _snapshot, ...rest} = result
    // what goes into the summary must be JSON lmt can write: checked here, before any output is replaced
    let observations = rest.observations
    if (observations !== undefined) {
      let text: string | undefined
      try {
        text = JSON.stringify(observations)
      } catch (err) {
        throw levelFailed(`observations() ${errorText(err)}`)
      }
      if (text === undefined || text.length > MAX_OBSERVATIONS_CHARS)
        throw levelFailed(`observations() must return JSON of at most ${MAX_OBSERVATIONS_CHARS} characters`)
      observations = JSON.parse(text) as typeof observations
    }
    return {
      ...rest,
      observations,
      stats: {summary: stats.summary(), histogramMode: stats.histogramMode},
      record,
    }
  },

  /** A whole conversion into the staging folder lmt's thread made; the finished file is left there. */
  async convert(
    args: {locator: Locator; staged: StagedConversion},
    id: number,
  ): Promise<{summary: unknown; finished: string}> {
    const {staged} = args
    const cls = (await find(args.locator)) as ConverterClass
    const event = (name: string, value: unknown): void => port.postMessage({id, event: name, value})
    const options = {...staged.options}
    const deferred = (options.settings as {lmtDeferredSettings?: DeferredSettings} | undefined)
      ?.lmtDeferredSettings
    const run = new ConversionRun({
      ...staged,
      converterClass: cls,
      options,
      logger: {warn: (m) => event('warn', m), info: (m) => event('info', m)},
      onProgress: (p) => event('progress', p),
      onInputDone: (s) => event('inputDone', s),
    })
    let summary
    try {
      if (deferred) options.settings = await settingsOf(cls, deferred)
      summary = await run.run()
    } catch (err) {
      // lmt's own errors as they are; anything else a converter threw that lmt could not even describe
      if (isLmtError(err)) throw err
      throw lmtError('PLUGIN_CONVERTER_FAILED', `${cls.name} failed: ${errorText(err)}`, {
        suggestions: [NEXT_STEP],
      })
    }
    if (run.finished === undefined) throw new Error('the conversion ended without an output')
    return {summary, finished: run.finished}
  },
}

/** The most a level's observations may take, as JSON (they go into the summary). */
const MAX_OBSERVATIONS_CHARS = 16 * 1024 * 1024

interface DeferredSettings {
  flags: Record<string, unknown>
  converterConfig: Record<string, unknown> | undefined
}

/** The converter's own flags parsed by their own definitions, then its settings. */
async function settingsOf(cls: ConverterClass, deferred: DeferredSettings): Promise<unknown> {
  const flags = await ownFlags(cls.flags, deferred.flags)
  return converterSettings({cls, className: cls.name} as never, flags, deferred.converterConfig)
}

/**
 * The flags with a plugin's own parsed by their own definitions (lmt's thread parsed them as plain ones, without
 * the definitions' functions): each value through its `parse`, a missing one from its `default` function.
 */
async function ownFlags(defs: unknown, given: Record<string, unknown>): Promise<Record<string, unknown>> {
  const flags = {...given}
  for (const [name, def] of Object.entries((defs ?? {}) as Record<string, Record<string, unknown>>)) {
    const raw = flags[name]
    try {
      if (raw === undefined && typeof def.default === 'function')
        flags[name] = await (def.default as (c: unknown) => unknown)({flags, options: def})
      else if (raw !== undefined && def.type === 'option' && typeof def.parse === 'function') {
        const parse = (v: unknown): unknown =>
          (def.parse as (i: unknown, c: unknown, o: unknown) => unknown)(v, {}, def)
        flags[name] = Array.isArray(raw) ? await Promise.all(raw.map(parse)) : await parse(raw)
      }
    } catch (err) {
      throw lmtError('PLUGIN_USAGE', `--${name}: ${errorText(err)}`)
    }
  }
  return flags
}

port.on('message', (req: Request) => {
  // a request in progress does not keep this thread alive: if plugin code awaits what never comes, it ends
  port.unref()
  const answer = (message: unknown): void => {
    port.ref()
    if (req.sync) {
      syncPort.postMessage(message)
      Atomics.store(req.sync, 0, 1)
      Atomics.notify(req.sync, 0)
    } else port.postMessage(message)
  }
  const op = OPS[req.op] as (args: unknown, id: number) => Promise<unknown>
  void op(req.args, req.id)
    .then(
      (value) => ({id: req.id, ok: true, value}),
      (err: unknown) => ({id: req.id, ok: false, error: workerErrorData(err)}),
    )
    .then(async (message) => {
      // what plugin code printed reaches lmt's stderr before the answer that may end lmt; a synchronous caller
      // blocks lmt's thread, which then cannot take the text, so its answer does not wait
      if (!req.sync && process.stderr.writableLength > 0)
        await new Promise((resolve) => process.stderr.write('', resolve))
      answer(message)
    })
})

// lmt's modules and module hooks are ready: from here on, time is the plugin's
prepareForPluginModules()
port.postMessage({id: 0})
