// The public API of lmt: what converter and plugin authors build against.
export {
  BaseConverter,
  type GetTrace,
  type GetTraceExtra,
  type Keys,
  type WriteTrace,
} from './convert/base-converter.js'
export {GetRecord, WriteRecord, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES} from './convert/records.js'
export type {
  BatchInput,
  Converter,
  ConverterClass,
  ConverterFlagValues,
  FormatSample,
  ConverterOptions,
  InputContext,
  InputLine,
  Logger,
  Trace,
  TraceSource,
} from './convert/types.js'
export type {
  LineBatchMapFunction,
  LineBatchMapperModule,
  LineMapFunction,
  LineMapperModule,
  LineMapperSpec,
  MappedBatch,
  MappedLine,
} from './convert/line-mapper.js'
export {lineBatchesOf, mapInputBatches} from './convert/batch-input.js'
export {holdYoungGeneration} from './convert/young-generation-hold.js'
export {collectGarbage} from './util/collect-garbage.js'
export type {ConvertSummary, InputSummary, InstanceSummary, TraceCounts} from './convert/summary.js'
// JSON values, key lists and line batches: also the `lmt/values` entry, for modules that run on worker threads
export * from './values.js'
export {LmtError, lmtError, isLmtError, type ErrorKind} from './errors.js'
export {LctError} from './errors.js'
export * from './lct/index.js'
/** The 64-bit Get+Write key of an LMCache ObjectKey (what `--mode lct` writes and `lmcache_lct` reads back). */
export {keyOfObjectKey} from './convert/lct-bridge.js'
export {pyFormatFixed, pyRound} from './util/pyfmt.js'
export {pyJsonDumps, type PyJsonValue} from './jsonl/py-json.js'
export {
  MapDispatcher,
  type Dispatcher,
  type Handler,
  type LevelObservations,
  type ReplayContext,
  type ReplayEnv,
  type ReplayLevel,
} from './replay/level.js'
export type {Scheduler} from './replay/scheduler.js'
export {registerReplayLevel} from './plugins/level-registry.js'
