// The public API of lmt, `lmt`: what converter and plugin authors build against, and all that lmt's own converters
// use (the flag builders are `lmt/flags`).
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
// the line mappers' contract: LineMapperSpec, the mapper modules and functions, MappedLine, MappedBatch
export type * from './convert/line-mapper.js'
export {lineBatchesOf, mapInputBatches} from './convert/batch-input.js'
export type {ConvertSummary, InputSummary, InstanceSummary, TraceCounts} from './convert/summary.js'
export {LmtError, lmtError, isLmtError, type ErrorKind} from './errors.js'
export {pyFormatFixed, pyRound} from './util/pyfmt.js'
export {pyJsonDumps, type PyJsonValue} from './formats/json/py-json.js'
// LMCache's lookup-hash logs: their files, lines and chunk layouts (the lmcache_lookup converter reads them)
export {
  chunkBytesOf,
  dtypeBytes,
  hashKey64,
  lookupLogFiles,
  parseLookupLine,
  type LookupEvent,
} from './formats/lmcache/lookup-log.js'
export {pythonEquals, pythonHashKey, pythonInt, pythonTruthy} from './convert/python-values.js'
export {KeyList, KeySlabs, type HashInput} from './hash/key-list.js'
export {hashInt64, prefixHash, tokensToBlockIds} from './hash/prefix-hash.js'
export {JsonFloat, isJsonObject, type JsonObject, type JsonValue} from './formats/json/json-float.js'
export {JsonDepthError, JsonSyntaxError, MAX_JSON_DEPTH, parseJson} from './formats/json/parse.js'
export {JsonSerializeError, serializeJson, serializeString} from './formats/json/serialize.js'
export {pythonFloatRepr} from './util/float-repr.js'
export {pythonStrip} from './formats/json/trim.js'
export {LineBatch, type LineBatchData} from './formats/json/line-batch.js'
// LMT_PLAIN=1: a converter with a fast lane of its own leaves it out too
export {plainPaths} from './util/plain.js'
// Byte scanners for a row scanner of its own (a converter's fast lane): they find the end of a JSON value, string
// or number and read small integers in place, without building a value per field. A row scanner built on them must
// fall back to `parseJson` for anything it does not recognise, and be pinned to that plain path by its tests.
export * from './formats/json/fast/json-scan-bytes.js'
// a JSON-object line of an input, or why it is skipped; the output space of a batch mapper's key lists
export {parseObjectLine, parseRow, type LineProblem} from './convert/object-lines.js'
export {BatchSlabs} from './convert/batch-slabs.js'
export {LctError} from './errors.js'
export * from './formats/lct/index.js'
// the decoding lmt's commands read .lct traces with (its accelerators; plain under LMT_PLAIN=1)
export {chosenDecoding} from './formats/lct/fast/index.js'
/** The 64-bit Get+Write key of an LMCache ObjectKey (what `--mode lct` writes and `lmcache_lct` reads back). */
export {keyOfObjectKey} from './convert/lct-bridge.js'
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
